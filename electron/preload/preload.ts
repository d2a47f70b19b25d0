import { contextBridge, ipcRenderer, webUtils } from 'electron';
import type { DroppedFileLike, EventName, HeapscopeEvents } from '../../shared/ipc/contract.js';
import { channelOf, EVENT_CHANNEL, HEAPSCOPE_METHODS, isEventName } from '../../shared/ipc/methods.js';
import type { Result } from '../../shared/ipc/result.js';

/**
 * The preload: exposes `window.heapscope` (HeapscopeBridge) to the sandboxed renderer.
 *
 * It exposes FUNCTIONS built from the method list, never `ipcRenderer` itself (a renderer holding
 * ipcRenderer could invoke any channel). Each method is `invoke(channelOf(m), req)`; main answers
 * a Result, so nothing rejects except a broken channel, which is turned into a coded Result too.
 * `on(event, cb)` accepts only contract event names and returns an unsubscribe. Dropped files are
 * turned into paths with webUtils.getPathForFile (File.path is gone since Electron 32) and handed
 * to main, which validates them before issuing a token (ARCHITECTURE §9.8).
 *
 * Sandboxed preloads cannot require our modules, so esbuild bundles this file (and the method
 * list from shared/) into one CommonJS file, out/preload/preload.cjs, with `electron` external.
 */
const broken = (e: unknown): Result<never> => ({ ok: false, error: { code: 'bug', message: `IPC failed: ${(e as Error)?.message ?? String(e)}` } });

const invoke = (channel: string, req: unknown): Promise<Result<unknown>> =>
  (ipcRenderer.invoke(channel, req ?? {}) as Promise<Result<unknown>>).catch(broken);

const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
ipcRenderer.on(EVENT_CHANNEL, (_event, msg: { name?: unknown; payload?: unknown }) => {
  if (!msg || !isEventName(msg.name)) return;
  for (const l of listeners.get(msg.name) ?? []) l(msg.payload);
});

const api: Record<string, unknown> = { mode: 'electron' };
for (const m of HEAPSCOPE_METHODS) api[m] = (req: unknown) => invoke(channelOf(m), req);

api.on = <E extends EventName>(event: E, listener: (payload: HeapscopeEvents[E]) => void): (() => void) => {
  if (!isEventName(event) || typeof listener !== 'function') throw new Error(`unknown event ${String(event)}`);
  const set = listeners.get(event) ?? new Set();
  listeners.set(event, set);
  const l = listener as (payload: unknown) => void;
  set.add(l);
  return () => void set.delete(l);
};

api.fileFromDrop = (file: DroppedFileLike): Promise<Result<unknown>> => {
  let path = '';
  try {
    path = webUtils.getPathForFile(file as unknown as Parameters<typeof webUtils.getPathForFile>[0]);
  } catch (e) {
    return Promise.resolve(broken(e));
  }
  if (!path) return Promise.resolve({ ok: false, error: { code: 'usage/bad-argument', message: 'the dropped item is not a file on disk' } });
  return invoke(channelOf('registerPath'), { path, via: 'drop' });
};

contextBridge.exposeInMainWorld('heapscope', api);

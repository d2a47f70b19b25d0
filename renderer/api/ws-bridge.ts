import type { DroppedFileLike, EventName, FileEntry, HeapscopeBridge, HeapscopeEvents } from '../../shared/ipc/contract';
import { HEAPSCOPE_METHODS, isEventName } from '../../shared/ipc/methods';
import { isResult, type Result } from '../../shared/ipc/result';
import { AppError } from '../../shared/errors';

/**
 * Browser mode's `window.heapscope`: the same shape the Electron preload exposes, spoken over a
 * WebSocket to `heapscope serve` (electron/server). Pure DOM: WebSocket, fetch, URL.
 *
 * - The token comes from this page's URL (`?token=`), exactly as the server printed it.
 * - Every method sends `{type:'call', id, method, arg}` and resolves with the server's Result;
 *   like the preload it never rejects: a lost connection resolves pending calls with a coded
 *   `worker/crashed`-style error ('io/read-failed': the server went away).
 * - `fileFromDrop` uploads the dropped File to /api/upload (streamed by the browser), with the
 *   token in the `X-Heapscope-Token` header (same-origin fetch: no preflight).
 * - `exportCsv`, `saveSnapshot` and `exportReport` results carry a one-time `downloadUrl`; the bridge downloads it
 *   itself, so the renderer handles Electron's "saved" and browser mode's "downloaded" the same way.
 */
type Pending = (r: Result<unknown>) => void;

const gone = (message: string): Result<never> => ({ ok: false, error: { code: 'io/read-failed', message } });

export function createWsBridge(ws: WebSocket, base: URL, token: string): HeapscopeBridge {
  const pending = new Map<number, Pending>();
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  let nextId = 1;
  let closed = false;

  ws.addEventListener('message', (ev: MessageEvent) => {
    if (typeof ev.data !== 'string') return;
    let msg: { type?: string; id?: number; result?: unknown; name?: unknown; payload?: unknown };
    try {
      msg = JSON.parse(ev.data) as typeof msg;
    } catch {
      return;
    }
    if (msg.type === 'result' && typeof msg.id === 'number') {
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      p(isResult(msg.result) ? msg.result : { ok: false, error: { code: 'bug', message: 'malformed answer from the server' } });
    } else if (msg.type === 'event' && isEventName(msg.name)) {
      for (const l of listeners.get(msg.name) ?? []) l(msg.payload);
    }
  });
  ws.addEventListener('close', () => {
    closed = true;
    for (const p of pending.values()) p(gone('the Heapscope server closed the connection (restart `heapscope serve`)'));
    pending.clear();
  });

  const call = (method: string, arg: unknown): Promise<Result<unknown>> => {
    if (closed || ws.readyState !== WebSocket.OPEN) return Promise.resolve(gone('not connected to the Heapscope server'));
    const id = nextId++;
    return new Promise((resolve) => {
      pending.set(id, resolve);
      ws.send(JSON.stringify({ type: 'call', id, method, arg }));
    });
  };

  const api: Record<string, unknown> = {};
  for (const m of HEAPSCOPE_METHODS) api[m] = (arg: unknown) => call(m, arg ?? {});
  for (const m of ['exportCsv', 'saveSnapshot', 'exportReport'] as const) {
    api[m] = async (arg: unknown) => {
      const r = await call(m, arg);
      if (r.ok) {
        const v = r.value as { downloadUrl?: string; fileName: string };
        if (v.downloadUrl) triggerDownload(new URL(v.downloadUrl, base).href, v.fileName);
      }
      return r;
    };
  }

  return Object.freeze({
    ...(api as Omit<HeapscopeBridge, 'mode' | 'on' | 'fileFromDrop'>),
    mode: 'browser' as const,
    on<E extends EventName>(event: E, listener: (payload: HeapscopeEvents[E]) => void): () => void {
      if (!isEventName(event)) throw new AppError('usage/bad-argument', `unknown event ${String(event)}`);
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      const l = listener as (payload: unknown) => void;
      set.add(l);
      return () => set.delete(l);
    },
    async fileFromDrop(file: DroppedFileLike): Promise<Result<FileEntry>> {
      const url = new URL('api/upload', base);
      url.searchParams.set('name', file.name);
      try {
        // the token in a header: the server refuses uploads authenticated by the cookie alone (access.ts)
        const headers = { 'Content-Type': 'application/octet-stream', 'X-Heapscope-Token': token };
        const res = await fetch(url, { method: 'POST', body: file as unknown as Blob, headers });
        if (!res.ok) return { ok: false, error: { code: 'io/denied', message: `upload refused: HTTP ${res.status}` } };
        const body: unknown = await res.json();
        return isResult(body) ? (body as Result<FileEntry>) : { ok: false, error: { code: 'bug', message: 'malformed upload answer' } };
      } catch (e) {
        return gone(`upload failed: ${(e as Error).message}`);
      }
    },
  });
}

function triggerDownload(href: string, fileName: string): void {
  const a = document.createElement('a');
  a.href = href;
  a.download = fileName;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

/**
 * Connect to the server that served this page and install `window.heapscope`. Rejects with an
 * AppError when the page has no token or the socket cannot open (the renderer shows why).
 */
export async function installWsBridge(loc: Location = window.location): Promise<void> {
  const token = new URLSearchParams(loc.search).get('token');
  if (!token) throw new AppError('io/denied', 'this page needs the token from the URL that `heapscope serve` printed');
  const base = new URL('./', loc.href);
  const wsUrl = new URL('ws', base);
  wsUrl.protocol = loc.protocol === 'https:' ? 'wss:' : 'ws:';
  wsUrl.search = `?token=${encodeURIComponent(token)}`;
  const ws = new WebSocket(wsUrl.href);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new AppError('io/read-failed', `cannot connect to the Heapscope server at ${base.host}`)), { once: true });
  });
  window.heapscope = createWsBridge(ws, base, token);
}

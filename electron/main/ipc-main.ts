import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import type { EventName, HeapscopeService } from '../../shared/ipc/contract.js';
import { channelOf, EVENT_CHANNEL, HEAPSCOPE_METHODS } from '../../shared/ipc/methods.js';
import { err, type Result } from '../../shared/ipc/result.js';
import { dispatch } from '../host/dispatch.js';
import type { EventHub } from '../host/event-hub.js';

/**
 * The only ipcMain door: one typed handler per contract method (channel names derived from the
 * method list, never typed by hand) and one event channel.
 *
 * Every call is checked, in order: the sender is our window's main frame showing our own page
 * (Desktop's isTrustedIPCSender: a navigated-away or injected frame gets io/denied); the method's
 * argument guard (request-guards.ts); then the service runs and its outcome is a Result. Bugs
 * are logged here with their stack; the renderer gets only the coded message.
 */
export interface IpcOptions {
  service: HeapscopeService;
  events: EventHub;
  /** Whether a call comes from our own window and page. */
  isTrusted(e: IpcMainInvokeEvent): boolean;
  log?(message: string): void;
}

export function registerIpc(o: IpcOptions): () => void {
  for (const m of HEAPSCOPE_METHODS) {
    ipcMain.handle(channelOf(m), async (event, arg: unknown): Promise<Result<unknown>> => {
      if (!o.isTrusted(event)) return err({ code: 'io/denied', message: 'IPC from an untrusted frame' });
      const r = await dispatch(o.service, m, arg);
      if (!r.ok && r.error.code === 'bug') o.log?.(`${m}: ${r.error.message}`);
      return r;
    });
  }
  return () => {
    for (const m of HEAPSCOPE_METHODS) ipcMain.removeHandler(channelOf(m));
  };
}

/** Forward back-end events to one window; returns the unsubscribe. */
export function forwardEvents(events: EventHub, contents: WebContents): () => void {
  return events.subscribe((name: EventName, payload: unknown) => {
    if (!contents.isDestroyed()) contents.send(EVENT_CHANNEL, { name, payload });
  });
}

/** Desktop-style sender check: the call comes from `contents`' main frame showing a URL under `allowedUrlPrefix`. */
export function trustedSender(contents: () => WebContents | null, allowedUrlPrefix: string): (e: IpcMainInvokeEvent) => boolean {
  return (e) => {
    const wc = contents();
    if (!wc || e.sender !== wc) return false;
    const frame = e.senderFrame;
    if (!frame || frame !== wc.mainFrame) return false;
    return frame.url.startsWith(allowedUrlPrefix);
  };
}

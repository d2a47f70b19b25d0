import WebSocket from 'ws';
import type { Result } from '../../shared/ipc/result.js';

/** A browser-mode page as the server sees it: one WebSocket, its calls and the events it got. */
export interface WsPage<P = unknown> {
  ws: WebSocket;
  events: { name: string; payload: P }[];
  call<T>(method: string, arg: unknown): Promise<Result<T>>;
}

/**
 * Speaks the WebSocket protocol of electron/server (what renderer/api/ws-bridge.ts sends) on an
 * open socket: `call` sends `{type:'call', id, method, arg}` and resolves with the `result` of
 * that id; every other message is an event, kept in `events` in arrival order.
 */
export function wsRpc<P = unknown>(ws: WebSocket): WsPage<P> {
  let id = 0;
  const events: WsPage<P>['events'] = [];
  const waiting = new Map<number, (r: Result<unknown>) => void>();
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as { type: string; id: number; result: Result<unknown>; name: string; payload: P };
    if (m.type === 'result') waiting.get(m.id)?.(m.result);
    else events.push({ name: m.name, payload: m.payload });
  });
  return {
    ws,
    events,
    call<T>(method: string, arg: unknown): Promise<Result<T>> {
      const my = ++id;
      return new Promise((resolve) => {
        waiting.set(my, resolve as (r: Result<unknown>) => void);
        ws.send(JSON.stringify({ type: 'call', id: my, method, arg }));
      });
    },
  };
}

/** A new page on the server at `port` with its `token`, once its socket is open. */
export async function openWsPage<P = unknown>(port: number, token: string): Promise<WsPage<P>> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return wsRpc<P>(ws);
}

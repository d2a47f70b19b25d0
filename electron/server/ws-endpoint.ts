import type { WebSocket, WebSocketServer } from 'ws';
import type { Backend } from '../host/backend.js';
import { dispatch } from '../host/dispatch.js';
import { ConnectionSessions } from './connection-sessions.js';
import { hidePathsInResult } from './hide-paths.js';

/**
 * The contract over WebSocket: one JSON message per call and per event.
 *
 *   client → server  { type: 'call', id: number, method: string, arg: object }
 *   server → client  { type: 'result', id, result: Result }  |  { type: 'event', name, payload }
 *
 * Method names and arguments go through the same `dispatch` (method list + per-method guards) as
 * Electron IPC. A malformed message is answered with a coded error when it has an id and is
 * otherwise dropped; it never reaches the back end. Messages are capped at 1 MiB by the server.
 * Error messages never name the server's temp directory `workDir` (hide-paths.ts). What a page
 * opened is freed when its socket closes (connection-sessions.ts).
 */
export function attachWebSocket(wss: WebSocketServer, backend: Backend, workDir: string): void {
  wss.on('connection', (ws: WebSocket) => {
    const unsubscribe = backend.events.subscribe((name, payload) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'event', name, payload }));
    });
    const held = new ConnectionSessions(backend.service);
    ws.on('close', () => {
      unsubscribe();
      void held.release();
    });
    ws.on('error', unsubscribe);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let msg: { type?: unknown; id?: unknown; method?: unknown; arg?: unknown };
      try {
        msg = JSON.parse(data.toString()) as typeof msg;
      } catch {
        return;
      }
      if (typeof msg !== 'object' || msg === null || msg.type !== 'call' || typeof msg.id !== 'number' || !Number.isSafeInteger(msg.id)) return;
      const id = msg.id;
      void dispatch(backend.service, msg.method, msg.arg).then((result) => {
        held.record(msg.method, msg.arg, result);
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'result', id, result: hidePathsInResult(result, workDir) }));
      });
    });
  });
}

import { AppError } from '../../shared/errors.js';
import {
  collectTracing2,
  collectTracing6,
  decodeSessionId,
  HResult,
  hresultName,
  stopTracing,
  type ProviderConfig,
} from '../../shared/diagnostics/ipc-messages.js';
import { IpcConnection, sendCommand } from './ipc-connection.js';

/**
 * An EventPipe session on a live process: start (newest command first, falling back for older
 * runtimes), stream the NetTrace bytes, stop on a second connection, drain to EOF.
 */
export interface StartedSession {
  connection: IpcConnection;
  sessionId: bigint;
  /** Which command the runtime accepted. */
  command: 'CollectTracing6' | 'CollectTracing2';
}

export interface SessionRequest {
  providers: ProviderConfig[];
  /** Rundown at stop (module paths for type names). */
  rundown: boolean;
  /** Ask for the non-lossy Block buffer mode (.NET 11+); older runtimes fall back to lossy CollectTracing2. */
  preferBlocking: boolean;
  bufferMB?: number;
  connectTimeoutMs?: number;
}

export async function startSession(endpoint: string, req: SessionRequest): Promise<StartedSession> {
  const bufferMB = req.bufferMB ?? 1024;
  const timeout = req.connectTimeoutMs ?? 30_000;
  if (req.preferBlocking) {
    const conn = await IpcConnection.connect(endpoint, timeout);
    conn.write(
      collectTracing6({
        bufferMB,
        rundownKeyword: req.rundown ? 0x80020139n : 0n,
        requestStackwalk: true,
        providers: req.providers,
        blocking: true,
      }),
    );
    const r = await conn.readResponse();
    if (r.ok) return { connection: conn, sessionId: decodeSessionId(r.payload), command: 'CollectTracing6' };
    conn.close();
    if (r.hresult !== HResult.UnknownCommand) {
      throw new AppError('process/protocol', `the runtime refused the tracing session: ${hresultName(r.hresult)}`);
    }
    // pre-.NET 11 runtime: retry on a new connection with the command every runtime knows
  }
  const conn = await IpcConnection.connect(endpoint, timeout);
  conn.write(collectTracing2({ bufferMB, requestRundown: req.rundown, providers: req.providers }));
  const r = await conn.readResponse();
  if (!r.ok) {
    conn.close();
    throw new AppError('process/protocol', `the runtime refused the tracing session: ${hresultName(r.hresult)}`);
  }
  return { connection: conn, sessionId: decodeSessionId(r.payload), command: 'CollectTracing2' };
}

/**
 * StopTracing on a new connection. A process that already exited cannot be connected to: that
 * counts as stopped (the stream then simply ends).
 */
export async function stopSession(endpoint: string, sessionId: bigint): Promise<boolean> {
  try {
    const r = await sendCommand(endpoint, stopTracing(sessionId), 5_000);
    return r.ok;
  } catch (e) {
    if (e instanceof AppError && (e.code === 'process/exited' || e.code === 'process/timeout')) return false;
    throw e;
  }
}

import { connect, type Socket } from 'node:net';
import { AppError } from '../../shared/errors.js';
import { decodeHeader, decodeResponse, IPC_HEADER_SIZE, type IpcResponse } from '../../shared/diagnostics/ipc-messages.js';

/**
 * One diagnostics IPC connection: one request, one response, then (for CollectTracing) the
 * event stream until the runtime closes it.
 *
 * Incoming bytes are queued as received; `readExactly` assembles responses and `chunks()` hands
 * the rest of the stream out without copying. Every wait is bounded by the connection's end, so
 * a process that exits mid-capture ends the stream instead of hanging it.
 */
export class IpcConnection {
  private readonly queue: Uint8Array[] = [];
  private queued = 0;
  private ended = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (b: Buffer) => {
      this.queue.push(new Uint8Array(b.buffer, b.byteOffset, b.length));
      this.queued += b.length;
      this.notify();
    });
    socket.on('end', () => {
      this.ended = true;
      this.notify();
    });
    socket.on('close', () => {
      this.ended = true;
      this.notify();
    });
    socket.on('error', (e) => {
      this.failure = e;
      this.ended = true;
      this.notify();
    });
  }

  /** Connect to a socket path or named pipe, failing with a coded error after `timeoutMs`. */
  static connect(endpoint: string, timeoutMs = 30_000): Promise<IpcConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ path: endpoint });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new AppError('process/timeout', `timed out after ${timeoutMs} ms connecting to ${endpoint}`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new IpcConnection(socket));
      });
      socket.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(connectError(e, endpoint));
      });
    });
  }

  write(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private waitForData(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  /** Exactly `n` bytes, or a process/exited error if the stream ends first. */
  async readExactly(n: number): Promise<Uint8Array> {
    while (this.queued < n) {
      if (this.ended) {
        throw this.failure
          ? new AppError('process/exited', `connection failed: ${this.failure.message}`)
          : new AppError('process/exited', 'the process closed the diagnostics connection (did it exit?)');
      }
      await this.waitForData();
    }
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const head = this.queue[0];
      const take = Math.min(head.length, n - filled);
      out.set(head.subarray(0, take), filled);
      filled += take;
      if (take === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(take);
    }
    this.queued -= n;
    return out;
  }

  /** One response message (header + payload). */
  async readResponse(): Promise<IpcResponse> {
    const head = await this.readExactly(IPC_HEADER_SIZE);
    const header = decodeHeader(head);
    if (!header || header.size < IPC_HEADER_SIZE) {
      throw new AppError('process/protocol', 'the diagnostics endpoint answered with something that is not a DOTNET_IPC_V1 message');
    }
    const payload = await this.readExactly(header.size - IPC_HEADER_SIZE);
    return decodeResponse(header, payload);
  }

  /** The remaining stream, chunk by chunk, until the runtime closes the connection. */
  async *chunks(): AsyncGenerator<Uint8Array> {
    for (;;) {
      while (this.queue.length > 0) {
        const c = this.queue.shift()!;
        this.queued -= c.length;
        yield c;
      }
      if (this.ended) return;
      await this.waitForData();
    }
  }

  close(): void {
    this.socket.destroy();
    this.ended = true;
    this.notify();
  }
}

function connectError(e: NodeJS.ErrnoException, endpoint: string): AppError {
  switch (e.code) {
    case 'ENOENT':
    case 'ECONNREFUSED':
      return new AppError('process/exited', `no diagnostics endpoint at ${endpoint} (the process has exited or disabled diagnostics)`);
    case 'EACCES':
    case 'EPERM':
      return new AppError('process/denied', `permission denied opening ${endpoint} (run as the process's user)`);
    default:
      return new AppError('process/protocol', `cannot connect to ${endpoint}: ${e.message}`);
  }
}

/** Send one command and read its response on a fresh connection. */
export async function sendCommand(endpoint: string, message: Uint8Array, timeoutMs = 30_000): Promise<IpcResponse> {
  const conn = await IpcConnection.connect(endpoint, timeoutMs);
  try {
    conn.write(message);
    return await conn.readResponse();
  } finally {
    conn.close();
  }
}

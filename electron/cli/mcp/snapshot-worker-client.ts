import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AppError, fromErrorDto } from '../../../shared/errors.js';
import type { ProgressSink } from '../../../shared/util/progress.js';
import { SNAPSHOT_WORKER_URL, WORKER_FLAG, type FromSnapshotWorker, type OpenedInfo, type QueryName, type ToSnapshotWorker } from './snapshot-worker.js';

/**
 * The main thread's handle on one snapshot worker (snapshot-worker.ts): calls with ids, progress
 * forwarded to the caller's sink, cancellation by a shared flag, and a thread that dies (out of
 * memory, crash) or is terminated rejects every pending call with a coded error at once, so no
 * tool call is ever left waiting.
 */
interface Pending {
  resolve(v: unknown): void;
  reject(e: AppError): void;
  progress?: ProgressSink;
}

/** A minimal AbortSignal (the SDK's RequestHandlerExtra.signal). */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, opts?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export class SnapshotWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextCall = 1;
  private dead: AppError | null = null;
  private stopReason: AppError | null = null;
  /** Resolves once the thread has exited (terminated, crashed or failed to start). */
  readonly exited: Promise<void>;

  constructor(onCrash: (e: AppError) => void) {
    const url = new URL(SNAPSHOT_WORKER_URL);
    url.search = ''; // tsx may add a query to a module's URL
    const file = fileURLToPath(url);
    // Node cannot start a .ts worker itself: under tsx (tests, a checkout without the CLI bundle)
    // the app's shim loads it through tsx (electron/workers/dev-worker-shim.mjs).
    const ts = file.endsWith('.ts');
    const script = ts ? join(dirname(file), '..', '..', 'workers', 'dev-worker-shim.mjs') : file;
    this.worker = new Worker(script, { workerData: { [WORKER_FLAG]: true, ...(ts ? { tsEntry: url.href } : {}) } });
    // a forgotten worker never keeps the process alive after stdin closed (serveMcp terminates them anyway)
    this.worker.unref();
    this.worker.on('message', (m: FromSnapshotWorker) => this.onMessage(m));
    this.worker.on('error', (e: Error & { code?: string }) => {
      const error =
        e.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new AppError('worker/out-of-memory', 'the snapshot worker ran out of memory')
          : new AppError('worker/crashed', `the snapshot worker failed: ${e.message}`);
      if (this.stopReason === null) onCrash(error);
      this.die(error);
    });
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        const error = this.stopReason ?? new AppError('worker/crashed', `the snapshot worker exited (code ${code})`);
        if (this.stopReason === null && this.dead === null) onCrash(error);
        this.die(error);
        resolve();
      }),
    );
  }

  open(path: string, select: string | undefined, progress: ProgressSink | undefined): Promise<OpenedInfo> {
    return this.send<OpenedInfo>((call) => ({ type: 'open', call, path, select }), progress);
  }

  /** Runs a query; when `signal` aborts, the worker's token fires and the query ends with `cancelled`. */
  query<T = unknown>(snapshot: string, op: QueryName, args: unknown, signal?: CancelSignal): Promise<T> {
    const cancel = new SharedArrayBuffer(4);
    const raise = () => Atomics.store(new Int32Array(cancel), 0, 1);
    if (signal?.aborted) raise();
    signal?.addEventListener('abort', raise, { once: true });
    const done = this.send<T>((call) => ({ type: 'query', call, snapshot, op, args, cancel }));
    return done.finally(() => signal?.removeEventListener('abort', raise));
  }

  /** Stops the thread; pending calls reject with `reason` now. Works on a thread stuck in a loop (Worker.terminate interrupts JavaScript). */
  async terminate(reason: AppError): Promise<void> {
    this.stopReason ??= reason;
    this.die(reason);
    await this.worker.terminate();
  }

  /** Kills the thread as a crash would (tests: a worker that dies on its own). */
  async kill(): Promise<void> {
    await this.worker.terminate();
  }

  private send<T>(message: (call: number) => ToSnapshotWorker, progress?: ProgressSink): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    const call = this.nextCall++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(call, { resolve: resolve as (v: unknown) => void, reject, progress });
      this.worker.postMessage(message(call));
    });
  }

  private onMessage(m: FromSnapshotWorker): void {
    const p = this.pending.get(m.call);
    if (!p) return;
    if (m.type === 'progress') {
      p.progress?.(m.phase, m.done, m.total);
      return;
    }
    this.pending.delete(m.call);
    if (m.ok) p.resolve(m.value);
    else p.reject(fromErrorDto(m.error));
  }

  private die(error: AppError): void {
    if (this.dead) return;
    this.dead = error;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(error);
  }
}

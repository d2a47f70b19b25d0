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
  /** The call's cancellation flag (snapshot-worker.ts flagToken). */
  cancel: SharedArrayBuffer;
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
  /** Set by retire(): the thread is terminated as soon as its current call answers. */
  private retiring = false;
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
    return this.send<OpenedInfo>((call, cancel) => ({ type: 'open', call, path, select, cancel }), undefined, progress);
  }

  /** Runs a query; when `signal` aborts, the worker's token fires and the query ends with `cancelled`. */
  query<T = unknown>(snapshot: string, op: QueryName, args: unknown, signal?: CancelSignal): Promise<T> {
    return this.send<T>((call, cancel) => ({ type: 'query', call, snapshot, op, args, cancel }), signal);
  }

  /**
   * Ends the thread without orphaning anything: every pending call rejects with `reason` now and
   * has its cancellation flag raised, so the reader or analysis stops at its next check (a dump
   * read kills its helper process then); the thread is terminated once that call has answered,
   * at once when none was running, and after `graceMs` at the latest.
   */
  retire(reason: AppError, graceMs: number): Promise<void> {
    if (this.retiring) return this.exited;
    this.stopReason ??= reason;
    const running = this.pending.size > 0;
    for (const p of this.pending.values()) raise(p.cancel);
    this.die(reason);
    if (!running) return this.terminate(reason);
    this.retiring = true;
    const timer = setTimeout(() => void this.worker.terminate(), graceMs);
    timer.unref();
    void this.exited.then(() => clearTimeout(timer));
    return this.exited;
  }

  /** Stops the thread now; pending calls reject with `reason`. Works on a thread stuck in a loop (Worker.terminate interrupts JavaScript). */
  async terminate(reason: AppError): Promise<void> {
    this.stopReason ??= reason;
    this.die(reason);
    await this.worker.terminate();
  }

  /** Kills the thread as a crash would (tests: a worker that dies on its own). */
  async kill(): Promise<void> {
    await this.worker.terminate();
  }

  private send<T>(message: (call: number, cancel: SharedArrayBuffer) => ToSnapshotWorker, signal?: CancelSignal, progress?: ProgressSink): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    const call = this.nextCall++;
    const cancel = new SharedArrayBuffer(4);
    const onAbort = () => raise(cancel);
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const answer = new Promise<T>((resolve, reject) => {
      this.pending.set(call, { resolve: resolve as (v: unknown) => void, reject, cancel, progress });
      this.worker.postMessage(message(call, cancel));
    });
    return answer.finally(() => signal?.removeEventListener('abort', onAbort));
  }

  private onMessage(m: FromSnapshotWorker): void {
    if (this.retiring && m.type === 'result') {
      void this.worker.terminate(); // the cancelled call has wound down
      return;
    }
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

function raise(flag: SharedArrayBuffer): void {
  Atomics.store(new Int32Array(flag), 0, 1);
}

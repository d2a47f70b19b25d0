import { Worker, type ResourceLimits } from 'node:worker_threads';
import { AppError, CancelledError, fromErrorDto, type AppErrorDto } from '../../shared/errors.js';
import type { FromWorker, ToWorker, WorkerEvent, WorkerMethod, WorkerRequest, WorkerScript, WorkerValue } from './worker-protocol.js';

/**
 * Main-side handle of one worker: typed calls, events, cancel, and a crash that rejects everything.
 *
 * Every call gets an id and a pending entry; the worker answers `{id, ok, value|error}`. When the
 * worker dies (`error`, or `exit` that we did not ask for) every pending call is rejected with
 * `worker/crashed` (or `worker/out-of-memory` when V8 hit `resourceLimits`) and `onCrash` fires
 * once: no promise is ever left pending (the DevTools proxy bug in ARCHITECTURE §1).
 */
export interface WorkerClientOptions {
  script: WorkerScript;
  workerData?: Record<string, unknown>;
  resourceLimits?: ResourceLimits;
  onEvent(e: WorkerEvent): void;
  onCrash(error: AppError): void;
}

interface Pending {
  method: WorkerMethod;
  startedAt: number;
  resolve(v: unknown): void;
  reject(e: AppError): void;
}

let nextWorkerId = 1;

export class WorkerClient {
  readonly id = nextWorkerId++;
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextCallId = 1;
  private dead: AppError | null = null;
  private stopping = false;
  private markStarted!: () => void;
  /**
   * Resolves when the worker listens (its `started` message). Starting a thread and loading its
   * modules can take seconds on a busy machine; an answer-time limit (session-manager's
   * unresponsive watchdog) counts from here, so a slow start is not taken for a jam.
   */
  readonly started = new Promise<void>((resolve) => (this.markStarted = resolve));

  constructor(private readonly opts: WorkerClientOptions) {
    const { script } = opts;
    this.worker = new Worker(script.file, {
      workerData: { ...(opts.workerData ?? {}), ...(script.tsEntry ? { tsEntry: script.tsEntry } : {}) },
      resourceLimits: opts.resourceLimits,
    });
    this.worker.on('message', (m: FromWorker) => this.onMessage(m));
    this.worker.on('error', (e: Error & { code?: string }) => {
      this.die(
        e.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new AppError('worker/out-of-memory', 'the snapshot worker ran out of memory (resource limit)')
          : new AppError('worker/crashed', `the snapshot worker failed: ${e.message}`),
      );
    });
    this.worker.on('exit', (code) => {
      this.die(this.stopping ? new AppError('session/not-found', 'worker stopped') : new AppError('worker/crashed', `the snapshot worker exited (code ${code})`));
    });
  }

  get alive(): boolean {
    return this.dead === null;
  }

  /** Calls in flight, and since when (for the busy indicator). */
  pendingCalls(): { method: WorkerMethod; startedAt: number }[] {
    return [...this.pending.values()].map((p) => ({ method: p.method, startedAt: p.startedAt }));
  }

  call<M extends WorkerMethod>(method: M, arg: WorkerRequest<M>, signal?: { onCancel(cb: () => void): void }): Promise<WorkerValue<M>> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextCallId++;
    return new Promise<WorkerValue<M>>((resolve, reject) => {
      this.pending.set(id, { method, startedAt: Date.now(), resolve: resolve as (v: unknown) => void, reject });
      signal?.onCancel(() => this.cancel(id));
      this.post({ type: 'call', id, method, arg });
    });
  }

  /** Stop waiting for a call: it rejects with `cancelled` now; the worker's late answer is dropped. */
  cancel(id: number): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.reject(new CancelledError(`${p.method} cancelled`));
    this.post({ type: 'cancel', id });
  }

  /**
   * Stop the worker (recycling after its last session closed, or replacing one that stopped
   * answering). Pending calls reject with `reason` at once, not when the thread is gone. Works
   * on a worker stuck in a loop: Worker.terminate interrupts running JavaScript.
   */
  async terminate(reason: AppError = new AppError('session/not-found', 'worker stopped')): Promise<void> {
    this.stopping = true;
    this.die(reason);
    await this.worker.terminate();
  }

  /** Kill it as a crash would (tests: "kill a worker"). */
  async kill(): Promise<void> {
    await this.worker.terminate();
  }

  private post(m: ToWorker): void {
    try {
      this.worker.postMessage(m);
    } catch (e) {
      this.die(new AppError('worker/crashed', `cannot reach the snapshot worker: ${(e as Error).message}`));
    }
  }

  private onMessage(m: FromWorker): void {
    if (m.type === 'started') {
      this.markStarted();
      return;
    }
    if (m.type === 'event') {
      this.opts.onEvent(m);
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return; // cancelled
    this.pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else p.reject(fromErrorDto(m.error as AppErrorDto));
  }

  private die(error: AppError): void {
    if (this.dead) return;
    this.dead = error;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(error);
    if (!this.stopping) this.opts.onCrash(error);
  }
}

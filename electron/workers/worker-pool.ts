import { availableParallelism } from 'node:os';
import type { ResourceLimits } from 'node:worker_threads';
import { AppError } from '../../shared/errors.js';
import type { SessionId } from '../../shared/ipc/contract.js';
import { WorkerClient } from './worker-rpc.js';
import type { SnapshotWorkerData, WorkerEvent, WorkerScript } from './worker-protocol.js';

/**
 * The snapshot worker pool: session affinity, crash containment, memory recycling.
 *
 * Why raw worker_threads and not piscina/workerpool: those pools hand each task to ANY idle
 * worker, which suits stateless tasks. Ours are not stateless: a session's HeapGraph (hundreds of
 * MB) lives in exactly one worker and every query about it must go there (ARCHITECTURE §9.6).
 * That affinity, plus "a crash fails only the sessions of that worker", is the whole pool, and
 * it is smaller written out than bent into a task-queue library.
 *
 * Policy:
 * - up to `size` workers (default clamp(cores, 2, 4): at least two, so one crashing snapshot
 *   never takes the others down even on a 2-core machine); a new session goes to an empty worker,
 *   else a new one, else the worker with the fewest sessions;
 * - when a worker's last session closes, the worker is terminated (recycled), which returns its
 *   whole heap to the OS at once rather than waiting for a GC to shrink it;
 * - when a worker dies, its sessions are reported through `onSessionsLost`, and a replacement is
 *   spawned at once so the next open does not pay the start-up (~100–250 ms with the tsx shim);
 * - a worker that stops answering (a load stuck in a loop) is `evict`ed by the session manager,
 *   which re-pins its sessions elsewhere and then terminates it (session-manager.ts);
 * - `resourceLimits` cap each worker's V8 heap so an out-of-memory kills the worker, not the app.
 *   Typed arrays live outside the V8 heap; a failed allocation there is a RangeError the worker
 *   maps to `worker/out-of-memory` (errors.ts).
 */
export interface WorkerPoolOptions {
  script: WorkerScript;
  workerData: SnapshotWorkerData;
  size?: number;
  resourceLimits?: ResourceLimits;
  onEvent(e: WorkerEvent): void;
  /** A worker died: these sessions are gone. */
  onSessionsLost(sessions: SessionId[], error: AppError): void;
}

export function defaultPoolSize(): number {
  return Math.min(4, Math.max(2, availableParallelism()));
}

export class WorkerPool {
  private readonly workers = new Set<WorkerClient>();
  private readonly sessionsOf = new Map<WorkerClient, Set<SessionId>>();
  private readonly workerOf = new Map<SessionId, WorkerClient>();
  private spare: WorkerClient | null = null;
  private disposed = false;
  readonly size: number;

  constructor(private readonly opts: WorkerPoolOptions) {
    this.size = Math.max(1, opts.size ?? defaultPoolSize());
  }

  /** Pin a new session to a worker and return it. */
  assign(sessionId: SessionId): WorkerClient {
    if (this.disposed) throw new AppError('bug', 'worker pool is disposed');
    let w: WorkerClient | null = null;
    for (const c of this.workers) if (this.sessionsOf.get(c)!.size === 0) w = c;
    if (!w && this.workers.size < this.size) w = this.spawn();
    if (!w) {
      for (const c of this.workers) if (!w || this.sessionsOf.get(c)!.size < this.sessionsOf.get(w)!.size) w = c;
    }
    if (this.spare === w) this.spare = null;
    this.sessionsOf.get(w!)!.add(sessionId);
    this.workerOf.set(sessionId, w!);
    return w!;
  }

  /** The worker a session lives in. */
  route(sessionId: SessionId): WorkerClient {
    const w = this.workerOf.get(sessionId);
    if (!w) throw new AppError('session/not-found', `no open session ${sessionId}`);
    return w;
  }

  has(sessionId: SessionId): boolean {
    return this.workerOf.has(sessionId);
  }

  /** Unpin a closed session; recycle its worker when that was the last one. */
  async release(sessionId: SessionId): Promise<void> {
    const w = this.workerOf.get(sessionId);
    if (!w) return;
    this.workerOf.delete(sessionId);
    const set = this.sessionsOf.get(w)!;
    set.delete(sessionId);
    if (set.size === 0) {
      this.forget(w);
      await w.terminate();
      this.ensureSpare();
    }
  }

  /** Live workers (for tests and the busy indicator). */
  get workerCount(): number {
    return this.workers.size;
  }

  allWorkers(): WorkerClient[] {
    return [...this.workers];
  }

  /** Start one idle worker ahead of time so the first open is quick. */
  ensureSpare(): void {
    if (this.disposed || this.spare?.alive) return;
    for (const c of this.workers) if (this.sessionsOf.get(c)!.size === 0) return;
    if (this.workers.size < this.size) this.spare = this.spawn();
  }

  /**
   * Take a worker out of the pool without stopping it (the caller re-pins its sessions, then
   * terminates it): the sessions it held, or null when it is no longer in the pool (already
   * replaced or crashed). Events it still sends are dropped from now on.
   */
  evict(w: WorkerClient): SessionId[] | null {
    const held = this.sessionsOf.get(w);
    if (!held) return null;
    this.forget(w);
    for (const s of held) if (this.workerOf.get(s) === w) this.workerOf.delete(s);
    return [...held];
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const all = [...this.workers];
    this.workers.clear();
    this.sessionsOf.clear();
    this.workerOf.clear();
    await Promise.all(all.map((w) => w.terminate()));
  }

  private spawn(): WorkerClient {
    const client: WorkerClient = new WorkerClient({
      script: this.opts.script,
      workerData: { ...this.opts.workerData },
      resourceLimits: this.opts.resourceLimits,
      // only from the session's current worker: a replaced one may still have events queued
      onEvent: (e) => {
        if (this.workerOf.get(e.payload.sessionId) === client) this.opts.onEvent(e);
      },
      onCrash: (error) => this.onCrash(client, error),
    });
    this.workers.add(client);
    this.sessionsOf.set(client, new Set());
    return client;
  }

  private onCrash(w: WorkerClient, error: AppError): void {
    const lost = [...(this.sessionsOf.get(w) ?? [])];
    this.forget(w);
    for (const s of lost) this.workerOf.delete(s);
    if (this.disposed) return;
    this.ensureSpare(); // respawn so the pool keeps its capacity warm
    if (lost.length > 0) this.opts.onSessionsLost(lost, error);
  }

  private forget(w: WorkerClient): void {
    this.workers.delete(w);
    this.sessionsOf.delete(w);
    if (this.spare === w) this.spare = null;
  }
}

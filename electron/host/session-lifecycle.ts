import { randomBytes } from 'node:crypto';
import type { ResourceLimits } from 'node:worker_threads';
import type { TypeSummary } from '../../shared/analysis/type-summary.js';
import { AppError, toErrorDto } from '../../shared/errors.js';
import type { FileEntry, SessionId, SessionInfo, SnapshotSummary } from '../../shared/ipc/contract.js';
import { WorkerPool } from '../workers/worker-pool.js';
import { CANCEL_CLOSE, CANCEL_LOAD, newCancelFlag, raiseCancelFlag } from '../workers/shared-cancel.js';
import type { WorkerScript } from '../workers/worker-protocol.js';
import type { WorkerClient } from '../workers/worker-rpc.js';
import type { WorkerScripts } from '../workers/worker-scripts.js';
import type { EventSink } from './event-hub.js';
import { answersWithin, BusyWatch } from './worker-watch.js';

/**
 * SessionId → worker, and the life cycle of every open snapshot, on the main side. The queries on
 * open sessions are in SessionManager (session-manager.ts), which extends this class.
 *
 * `open` pins a new session to a worker and starts its load without waiting; the load's promise
 * is kept so `summary` can await it. Worker events are forwarded only for sessions still open.
 * When a worker dies, its sessions (and only those) get `session-closed {reason:'worker-crashed'}`
 * and their pending calls reject with `worker/crashed` (worker-rpc.ts); sessions in other workers
 * never notice.
 *
 * A worker that does not answer a cancel or close within `unresponsiveAfterMs` (a load stuck in a
 * loop that never looks at its token) is terminated, which stops its CPU at once. The session
 * that was cancelled or closed gets `worker/unresponsive` (or is simply closed); every other
 * session that lived in that worker is reopened from its file on another worker under the same
 * SessionId, and its calls in flight are retried there, so the neighbour tabs lose nothing but
 * the time of a reload. A capture still in progress cannot be reopened: it fails with
 * `worker/unresponsive` too. Cancel and close raise the session's shared flag first, so a long
 * loop that does check its token stops without a restart.
 */
export interface Slot {
  info: SessionInfo;
  path: string;
  select?: string;
  /** A live capture until its .gcdump is written: it cannot be redone by reopening a file. */
  capturing: boolean;
  /** Raised by main to cancel the current load while its worker is busy (workers/shared-cancel.ts). */
  cancelFlag: SharedArrayBuffer;
  /** Bumped when the session is reopened on a new worker; calls begun before it retry. */
  generation: number;
  ready: Promise<SnapshotSummary>;
  summary: SnapshotSummary | null;
  /** A dump's preliminary summary (`session-preliminary`) while it loads: typeRows need not wait for `ready`. */
  preliminary: SnapshotSummary | null;
  typeSummary: Promise<TypeSummary> | null;
}

export interface SessionManagerOptions {
  scripts: WorkerScripts;
  emit: EventSink;
  poolSize?: number;
  resourceLimits?: ResourceLimits;
  /** Run the analysis inline in the snapshot worker instead of a child worker (tests of the fallback). */
  inlineAnalysis?: boolean;
  analysisLimits?: { maxOldGenerationSizeMb?: number };
  /** Called once a file parsed successfully (recent files). */
  onOpened?(path: string): void;
  /** ms a call may be pending before `busy` fires (default 300). */
  busyAfterMs?: number;
  /** ms a worker gets to answer a cancel or close before it is terminated and replaced (default 1000). */
  unresponsiveAfterMs?: number;
  /** Test-only: loads of files with a `<file>.jam` marker spin in the worker (workers/debug-jam.ts). */
  debugJam?: boolean;
}

type Begin = (worker: WorkerClient, sessionId: SessionId, cancelFlag: SharedArrayBuffer) => Promise<SnapshotSummary>;

export class SessionLifecycle {
  readonly pool: WorkerPool;
  protected readonly slots = new Map<SessionId, Slot>();
  private readonly busyWatch: BusyWatch;

  constructor(protected readonly opts: SessionManagerOptions) {
    const analysis: WorkerScript | null = opts.inlineAnalysis ? null : opts.scripts.analysis;
    this.pool = new WorkerPool({
      script: opts.scripts.snapshot,
      workerData: { analysis, analysisLimits: opts.analysisLimits, ...(opts.debugJam ? { debugJam: true } : {}) },
      size: opts.poolSize,
      resourceLimits: opts.resourceLimits,
      onEvent: (e) => {
        const slot = this.slots.get(e.payload.sessionId);
        if (!slot) return;
        if (e.name === 'summary-updated') {
          slot.summary = e.payload.summary;
          opts.emit('summary-updated', e.payload);
        } else if (e.name === 'session-preliminary') {
          if (slot.info.state !== 'loading') return;
          slot.preliminary = e.payload.summary;
          opts.emit('session-preliminary', e.payload);
        } else if (e.name === 'capture-progress') {
          opts.emit('capture-progress', e.payload);
        } else if (e.name === 'set-retained-progress') {
          opts.emit('set-retained-progress', e.payload);
        } else {
          opts.emit('load-progress', e.payload);
        }
      },
      onSessionsLost: (ids) => {
        for (const id of ids) {
          if (!this.slots.delete(id)) continue;
          opts.emit('session-closed', { sessionId: id, reason: 'worker-crashed' });
        }
      },
    });
    this.pool.ensureSpare();
    this.busyWatch = new BusyWatch(this.pool, opts.emit, () => opts.busyAfterMs ?? 300);
  }

  open(file: FileEntry, path: string, select?: string): SessionInfo {
    return this.start(file, path, select, false, (worker, sessionId, cancelFlag) => worker.call('load', { sessionId, path, file, select, cancelFlag }));
  }

  /** A live capture of `pid` into a new session; the worker saves the .gcdump at `path` (see SnapshotHost.capture). */
  capture(file: FileEntry, path: string, pid: number, timeoutSec: number): SessionInfo {
    return this.start(file, path, undefined, true, (worker, sessionId, cancelFlag) =>
      worker.call('capture', { sessionId, pid, timeoutSec, outPath: path, file, cancelFlag }),
    );
  }

  /** Paths of the files behind open sessions (the capture cache must not delete those). */
  openPaths(): Set<string> {
    return new Set([...this.slots.values()].map((s) => s.path));
  }

  /** The file of an open session and where it is (Save snapshot as…). */
  fileOf(sessionId: SessionId): { file: FileEntry; path: string; summary: SnapshotSummary | null } {
    const slot = this.slot(sessionId);
    return { file: slot.summary?.file ?? slot.info.file, path: slot.path, summary: slot.summary };
  }

  private start(file: FileEntry, path: string, select: string | undefined, capturing: boolean, begin: Begin): SessionInfo {
    const sessionId = `s-${randomBytes(6).toString('hex')}` as SessionId;
    const info: SessionInfo = { sessionId, file, state: 'loading' };
    const slot: Slot = { info, path, select, capturing, cancelFlag: newCancelFlag(), generation: 0, ready: null as unknown as Promise<SnapshotSummary>, summary: null, preliminary: null, typeSummary: null };
    this.slots.set(sessionId, slot);
    this.run(slot, begin, true);
    return { ...info };
  }

  /** Start the slot's load on a worker the pool picks (first open, or reopen after a restart). */
  private run(slot: Slot, begin: Begin, first: boolean): void {
    const { sessionId } = slot.info;
    const generation = slot.generation;
    const current = () => this.slots.get(sessionId) === slot && slot.generation === generation;
    slot.cancelFlag = newCancelFlag(); // a flag raised for an earlier run must not cancel this one
    const worker = this.pool.assign(sessionId);
    slot.ready = this.track(begin(worker, sessionId, slot.cancelFlag)).then(
      (summary) => {
        if (!current()) throw new AppError('session/not-found', 'the session was closed while loading');
        slot.info.state = 'ready';
        slot.info.file = summary.file; // a capture's file exists (and has a size) only now
        slot.capturing = false;
        slot.summary = summary;
        slot.preliminary = null;
        this.opts.emit('session-ready', { sessionId, summary });
        if (first) this.opts.onOpened?.(slot.path);
        return summary;
      },
      async (e: unknown) => {
        // (a crash already removed the slot and said session-closed, a restart already reopened
        // or failed it: don't report it twice)
        if (current()) {
          slot.info.state = 'failed';
          this.slots.delete(sessionId);
          this.opts.emit('session-failed', { sessionId, error: toErrorDto(e) });
          await this.pool.release(sessionId);
        }
        throw e;
      },
    );
    slot.ready.catch(() => undefined); // observed through summary() / events
  }

  /** The session again, from its file, in another worker (its old worker is being replaced). */
  private reopen(slot: Slot): void {
    slot.generation++;
    slot.info.state = 'loading';
    slot.summary = null;
    slot.preliminary = null;
    slot.typeSummary = null;
    const { path, select } = slot;
    const file = slot.info.file;
    this.run(slot, (worker, sessionId, cancelFlag) => worker.call('load', { sessionId, path, file, select, cancelFlag }), false);
  }

  list(): SessionInfo[] {
    return [...this.slots.values()].map((s) => ({ ...s.info }));
  }

  async summary(sessionId: SessionId): Promise<SnapshotSummary> {
    return this.onWorker(sessionId, () => {
      const slot = this.slot(sessionId);
      return slot.summary ? Promise.resolve(slot.summary) : slot.ready;
    });
  }

  /** Parsing: the load fails with `cancelled`; analysing: only the analysis stops. */
  async cancel(sessionId: SessionId): Promise<void> {
    const slot = this.slot(sessionId);
    if (slot.info.state === 'loading') raiseCancelFlag(slot.cancelFlag, CANCEL_LOAD);
    const w = this.pool.route(sessionId);
    if (!(await answersWithin(w, w.call('cancelLoad', { sessionId }), this.unresponsiveAfterMs))) await this.replaceUnresponsive(w, sessionId);
  }

  async close(sessionId: SessionId): Promise<void> {
    const slot = this.slot(sessionId);
    this.slots.delete(sessionId);
    if (slot.info.state === 'loading') raiseCancelFlag(slot.cancelFlag, CANCEL_CLOSE);
    const w = this.pool.route(sessionId);
    const answered = await answersWithin(w, w.call('close', { sessionId }), this.unresponsiveAfterMs).catch(() => true);
    if (!answered) await this.replaceUnresponsive(w, sessionId);
    await this.pool.release(sessionId);
    this.opts.emit('session-closed', { sessionId, reason: 'user' });
  }

  has(sessionId: SessionId): boolean {
    return this.slots.has(sessionId);
  }

  async dispose(): Promise<void> {
    this.busyWatch.stop();
    this.slots.clear();
    await this.pool.dispose();
  }

  /**
   * `call` on the session's worker once its load is done; again (on the new worker, after the
   * reload) when the session was reopened meanwhile, so a neighbour of a jammed load never sees
   * the restart. Each retry needs a reopen, which needs a replaced worker: no busy loop.
   */
  protected async onWorker<T>(sessionId: SessionId, call: (w: WorkerClient) => Promise<T>): Promise<T> {
    for (;;) {
      const slot = this.slot(sessionId);
      const generation = slot.generation;
      try {
        await slot.ready;
        return await call(this.pool.route(sessionId));
      } catch (e) {
        if (this.slots.get(sessionId) === slot && slot.generation !== generation) continue;
        throw e;
      }
    }
  }

  /**
   * `w` did not answer a cancel or close of `jammed` in time: take it out of the pool, fail
   * `jammed` (and a capture in progress), reopen its other sessions elsewhere, then terminate it.
   * Reopening first means their pending calls, rejected by the terminate, find a new load to wait for.
   */
  private async replaceUnresponsive(w: WorkerClient, jammed: SessionId): Promise<void> {
    const held = this.pool.evict(w);
    if (!held) return; // already replaced (two cancels timed out) or crashed meanwhile
    const error = new AppError('worker/unresponsive', 'the analysis did not stop when asked; its worker was restarted');
    for (const id of held) {
      const slot = this.slots.get(id);
      if (!slot) continue;
      if (id !== jammed && !slot.capturing) {
        this.reopen(slot);
        continue;
      }
      this.slots.delete(id);
      slot.info.state = 'failed';
      const why = id === jammed ? error : new AppError('worker/unresponsive', 'the capture was interrupted: another snapshot in its worker did not stop when asked and the worker was restarted');
      this.opts.emit('session-failed', { sessionId: id, error: toErrorDto(why) });
    }
    await w.terminate(error);
    this.pool.ensureSpare();
  }

  private get unresponsiveAfterMs(): number {
    return this.opts.unresponsiveAfterMs ?? 1000;
  }

  protected slot(sessionId: SessionId): Slot {
    const slot = this.slots.get(sessionId);
    if (!slot) throw new AppError('session/not-found', `no open session ${sessionId}`);
    return slot;
  }

  /** Watch calls for the busy indicator (worker-watch.ts). */
  protected track<T>(p: Promise<T>): Promise<T> {
    return this.busyWatch.track(p);
  }
}

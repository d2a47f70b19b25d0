import { randomBytes } from 'node:crypto';
import type { ResourceLimits } from 'node:worker_threads';
import type { TypeSummary } from '../../shared/analysis/type-summary.js';
import { AppError, toErrorDto } from '../../shared/errors.js';
import type { ApiRequest, ApiValue, DiffReq, DiffWindow, FileEntry, SessionExportReq, SessionId, SessionInfo, SnapshotSummary } from '../../shared/ipc/contract.js';
import { WorkerPool } from '../workers/worker-pool.js';
import type { WorkerQueryMethod, WorkerScript } from '../workers/worker-protocol.js';
import type { WorkerClient } from '../workers/worker-rpc.js';
import type { WorkerScripts } from '../workers/worker-scripts.js';
import type { EventSink } from './event-hub.js';

/**
 * SessionId → worker, and the life cycle of every open snapshot, on the main side.
 *
 * `open` pins a new session to a worker and starts its load without waiting; the load's promise
 * is kept so `summary` can await it. Worker events are forwarded only for sessions still open.
 * When a worker dies, its sessions (and only those) get `session-closed {reason:'worker-crashed'}`
 * and their pending calls reject with `worker/crashed` (worker-rpc.ts); sessions in other workers
 * never notice.
 *
 * A diff needs two sessions that may live in two workers: main asks the baseline's worker for its
 * per-type summary (thousands of rows at most, cached here once the analysis is done) and hands it
 * to the other worker. Graphs never move.
 */
interface Slot {
  info: SessionInfo;
  path: string;
  ready: Promise<SnapshotSummary>;
  summary: SnapshotSummary | null;
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
}

export class SessionManager {
  readonly pool: WorkerPool;
  private readonly slots = new Map<SessionId, Slot>();
  private busy = false;
  private busyTimer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly opts: SessionManagerOptions) {
    const analysis: WorkerScript | null = opts.inlineAnalysis ? null : opts.scripts.analysis;
    this.pool = new WorkerPool({
      script: opts.scripts.snapshot,
      workerData: { analysis, analysisLimits: opts.analysisLimits },
      size: opts.poolSize,
      resourceLimits: opts.resourceLimits,
      onEvent: (e) => {
        const slot = this.slots.get(e.payload.sessionId);
        if (!slot) return;
        if (e.name === 'summary-updated') {
          slot.summary = e.payload.summary;
          opts.emit('summary-updated', e.payload);
        } else if (e.name === 'capture-progress') {
          opts.emit('capture-progress', e.payload);
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
  }

  open(file: FileEntry, path: string, select?: string): SessionInfo {
    return this.start(file, path, (worker, sessionId) => worker.call('load', { sessionId, path, file, select }));
  }

  /** A live capture of `pid` into a new session; the worker saves the .gcdump at `path` (see SnapshotHost.capture). */
  capture(file: FileEntry, path: string, pid: number, timeoutSec: number): SessionInfo {
    return this.start(file, path, (worker, sessionId) => worker.call('capture', { sessionId, pid, timeoutSec, outPath: path, file }));
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

  private start(file: FileEntry, path: string, begin: (worker: WorkerClient, sessionId: SessionId) => Promise<SnapshotSummary>): SessionInfo {
    const sessionId = `s-${randomBytes(6).toString('hex')}` as SessionId;
    const worker = this.pool.assign(sessionId);
    const info: SessionInfo = { sessionId, file, state: 'loading' };
    const slot: Slot = { info, path, ready: null as unknown as Promise<SnapshotSummary>, summary: null, typeSummary: null };
    this.slots.set(sessionId, slot);
    slot.ready = this.track(begin(worker, sessionId)).then(
      (summary) => {
        if (this.slots.get(sessionId) !== slot) throw new AppError('session/not-found', 'the session was closed while loading');
        info.state = 'ready';
        info.file = summary.file; // a capture's file exists (and has a size) only now
        slot.summary = summary;
        this.opts.emit('session-ready', { sessionId, summary });
        this.opts.onOpened?.(path);
        return summary;
      },
      async (e: unknown) => {
        info.state = 'failed';
        if (this.slots.get(sessionId) === slot) {
          // (a crash already removed the slot and said session-closed; don't report it twice)
          this.slots.delete(sessionId);
          this.opts.emit('session-failed', { sessionId, error: toErrorDto(e) });
          await this.pool.release(sessionId);
        }
        throw e;
      },
    );
    slot.ready.catch(() => undefined); // observed through summary() / events
    return { ...info };
  }

  list(): SessionInfo[] {
    return [...this.slots.values()].map((s) => ({ ...s.info }));
  }

  async summary(sessionId: SessionId): Promise<SnapshotSummary> {
    const slot = this.slot(sessionId);
    await slot.ready;
    return slot.summary ?? slot.ready;
  }

  async cancel(sessionId: SessionId): Promise<void> {
    this.slot(sessionId);
    await this.pool.route(sessionId).call('cancelLoad', { sessionId });
  }

  /** The analysis again after a cancel or a failure (SnapshotHost.reanalyze); the worker announces it with summary-updated. */
  async computeAgain(sessionId: SessionId): Promise<SnapshotSummary> {
    const slot = this.slot(sessionId);
    await slot.ready;
    const summary = await this.pool.route(sessionId).call('reanalyze', { sessionId });
    if (this.slots.get(sessionId) === slot) slot.summary = summary;
    return summary;
  }

  async close(sessionId: SessionId): Promise<void> {
    this.slot(sessionId);
    this.slots.delete(sessionId);
    const w = this.pool.route(sessionId);
    await w.call('close', { sessionId }).catch(() => undefined);
    await this.pool.release(sessionId);
    this.opts.emit('session-closed', { sessionId, reason: 'user' });
  }

  /** A query answered by the session's own worker. */
  async query<M extends WorkerQueryMethod>(method: M, req: ApiRequest<M>): Promise<ApiValue<M>> {
    const slot = this.slot(req.sessionId);
    await slot.ready;
    return this.track(this.pool.route(req.sessionId).call(method, req as never)) as Promise<ApiValue<M>>;
  }

  async diff(req: DiffReq): Promise<DiffWindow> {
    const baseline = await this.typeSummaryOf(req.baselineSessionId);
    await this.slot(req.sessionId).ready;
    return this.track(this.pool.route(req.sessionId).call('diff', { ...req, baseline }));
  }

  async exportCsv(req: SessionExportReq, outPath: string): Promise<{ rows: number; bytes: number; fileName: string }> {
    const baseline = req.view === 'diff' ? await this.typeSummaryOf(req.baselineSessionId) : undefined;
    await this.slot(req.sessionId).ready;
    return this.track(this.pool.route(req.sessionId).call('exportCsv', { req, outPath, baseline }));
  }

  /** Suggested file name of an export (before the save dialog). */
  exportFileName(req: SessionExportReq): string {
    const stem = this.slot(req.sessionId).info.file.name.replace(/\.[^.]+$/, '');
    return `${stem}-${req.view}.csv`;
  }

  has(sessionId: SessionId): boolean {
    return this.slots.has(sessionId);
  }

  async dispose(): Promise<void> {
    if (this.busyTimer) clearInterval(this.busyTimer);
    this.slots.clear();
    await this.pool.dispose();
  }

  private typeSummaryOf(sessionId: SessionId): Promise<TypeSummary> {
    const slot = this.slot(sessionId);
    if (!slot.typeSummary) {
      const p = slot.ready.then(() => this.pool.route(sessionId).call('typeSummary', { sessionId }));
      slot.typeSummary = p;
      p.catch(() => {
        if (slot.typeSummary === p) slot.typeSummary = null; // retry next time (e.g. analysis was cancelled)
      });
    }
    return slot.typeSummary;
  }

  private slot(sessionId: SessionId): Slot {
    const slot = this.slots.get(sessionId);
    if (!slot) throw new AppError('session/not-found', `no open session ${sessionId}`);
    return slot;
  }

  /** Watch calls for the busy indicator: `busy` after busyAfterMs pending, cleared when all are done. */
  private track<T>(p: Promise<T>): Promise<T> {
    if (!this.busyTimer) {
      const after = this.opts.busyAfterMs ?? 300;
      this.busyTimer = setInterval(() => this.checkBusy(after), 100);
      this.busyTimer.unref?.();
    }
    return p;
  }

  private checkBusy(after: number): void {
    const now = Date.now();
    let pending = 0;
    let long = false;
    for (const w of this.pool.allWorkers()) {
      for (const c of w.pendingCalls()) {
        if (c.method === 'load' || c.method === 'capture') continue; // loads and captures show their own progress
        pending++;
        if (now - c.startedAt >= after) long = true;
      }
    }
    if (long !== this.busy) {
      this.busy = long;
      this.opts.emit('busy', { busy: long });
    }
    if (pending === 0 && this.busyTimer) {
      clearInterval(this.busyTimer);
      this.busyTimer = null;
    }
  }
}

import { randomBytes } from 'node:crypto';
import type { ResourceLimits } from 'node:worker_threads';
import type { TypeSummary } from '../../shared/analysis/type-summary.js';
import { AppError, toErrorDto } from '../../shared/errors.js';
import type { ApiRequest, ApiValue, DiffReq, DiffWindow, ExportReportReq, FileEntry, SessionExportReq, SessionId, SessionInfo, SetIgnoredReq, SetRetainedReq, SetRetainedResult, SnapshotSummary, TrendReq, TrendResult } from '../../shared/ipc/contract.js';
import { trendOf } from '../../shared/session/trend-view.js';
import { dominatorTrendOf } from '../../shared/session/dominator-trend-view.js';
import { DEFAULT_RETAINER_DEPTH } from '../../shared/analysis/dominator-signatures.js';
import type { DominatorTrendResult, TrendDominatorsReq } from '../../shared/ipc/dtos-growth.js';
import { WorkerPool } from '../workers/worker-pool.js';
import { CANCEL_CLOSE, CANCEL_LOAD, newCancelFlag, raiseCancelFlag, raiseRestore } from '../workers/shared-cancel.js';
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
 * A worker that does not answer a cancel or close within `unresponsiveAfterMs` (a load stuck in a
 * loop that never looks at its token) is terminated, which stops its CPU at once. The session
 * that was cancelled or closed gets `worker/unresponsive` (or is simply closed); every other
 * session that lived in that worker is reopened from its file on another worker under the same
 * SessionId, and its calls in flight are retried there, so the neighbour tabs lose nothing but
 * the time of a reload. A capture still in progress cannot be reopened: it fails with
 * `worker/unresponsive` too. Cancel and close raise the session's shared flag first, so a long
 * loop that does check its token stops without a restart.
 *
 * A diff needs two sessions that may live in two workers: main asks the baseline's worker for its
 * per-type summary (thousands of rows at most, cached here once the analysis is done) and hands it
 * to the other worker. Graphs never move.
 */
interface Slot {
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

/** A worker gets this long to start listening before a cancel or close stops waiting for it. */
const START_LIMIT_MS = 60_000;

/**
 * True when `w`'s `call` settles (rethrowing its error) within `ms` of the worker listening, false
 * when it is still pending then. The clock starts at `started` (a worker still loading its modules
 * on a busy machine is not jammed), capped by START_LIMIT_MS for a worker that never starts.
 */
async function answersWithin(w: WorkerClient, call: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = call.then(() => true);
  settled.catch(() => undefined); // a late rejection (the worker is terminated) is expected
  const timers: ReturnType<typeof setTimeout>[] = [];
  const after = (t: number) => new Promise<false>((resolve) => timers.push(setTimeout(() => resolve(false), t)));
  const late = Promise.race([w.started.then(() => after(ms)), after(START_LIMIT_MS)]);
  try {
    return await Promise.race([settled, late]);
  } finally {
    for (const t of timers) clearTimeout(t);
  }
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
      workerData: { analysis, analysisLimits: opts.analysisLimits, ...(opts.debugJam ? { debugJam: true } : {}) },
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
    const slot: Slot = { info, path, select, capturing, cancelFlag: newCancelFlag(), generation: 0, ready: null as unknown as Promise<SnapshotSummary>, summary: null, typeSummary: null };
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

  /** The analysis again after a cancel or a failure (SnapshotHost.reanalyze); the worker announces it with summary-updated. */
  async computeAgain(sessionId: SessionId): Promise<SnapshotSummary> {
    const slot = this.slot(sessionId);
    await slot.ready;
    const summary = await this.pool.route(sessionId).call('reanalyze', { sessionId });
    if (this.slots.get(sessionId) === slot) slot.summary = summary;
    return summary;
  }

  /** "What if" (issue 16): the worker swaps the session's ignore list; summary-updated announces the recompute's end. */
  async setIgnored(req: SetIgnoredReq): Promise<SnapshotSummary> {
    const slot = this.slot(req.sessionId);
    await slot.ready;
    if (req.rules.length === 0) raiseRestore(slot.cancelFlag); // the what-if's queries running in the worker stop (shared-cancel.ts)
    const summary = await this.pool.route(req.sessionId).call('setIgnored', { sessionId: req.sessionId, rules: req.rules });
    if (this.slots.get(req.sessionId) === slot) slot.summary = summary;
    return summary;
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

  /** A query answered by the session's own worker. */
  async query<M extends WorkerQueryMethod>(method: M, req: ApiRequest<M>): Promise<ApiValue<M>> {
    return this.track(this.onWorker(req.sessionId, (w) => w.call(method, req as never))) as Promise<ApiValue<M>>;
  }

  async diff(req: DiffReq): Promise<DiffWindow> {
    const baseline = await this.typeSummaryOf(req.baselineSessionId);
    return this.track(this.onWorker(req.sessionId, (w) => w.call('diff', { ...req, baseline })));
  }

  /** A trend over several sessions: their type summaries (as for a diff's baseline), compared here. */
  async trend(req: TrendReq): Promise<TrendResult> {
    for (const id of req.sessionIds) this.slot(id); // session/not-found before any wait
    const summaries = await this.track(Promise.all(req.sessionIds.map((id) => this.typeSummaryOf(id))));
    return trendOf(req.sessionIds.map((sessionId, i) => ({ sessionId, summary: summaries[i] })));
  }

  /**
   * A dominator-level trend: each session's retainers from its own worker, with one threshold for
   * all (the request's, else the first session's default, so "absent" means the same everywhere).
   */
  async trendDominators(req: TrendDominatorsReq): Promise<DominatorTrendResult> {
    for (const id of req.sessionIds) this.slot(id); // session/not-found before any wait
    const maxDepth = req.maxDepth ?? DEFAULT_RETAINER_DEPTH;
    const retainers = (sessionId: SessionId, minBytes: number | null) => this.onWorker(sessionId, (w) => w.call('retainers', { sessionId, minBytes, maxDepth }));
    return this.track(
      (async () => {
        const summaries = await Promise.all(req.sessionIds.map((id) => this.typeSummaryOf(id)));
        const first = await retainers(req.sessionIds[0], req.minBytes ?? null);
        const rest = await Promise.all(req.sessionIds.slice(1).map((id) => retainers(id, first.minBytes)));
        const all = [first, ...rest];
        return dominatorTrendOf(req.sessionIds.map((sessionId, i) => ({ sessionId, summary: summaries[i], retainers: all[i] })));
      })(),
    );
  }

  /** Set retained sizes in the session's worker (SnapshotHost.setRetained). */
  async setRetained(req: SetRetainedReq): Promise<SetRetainedResult> {
    await this.slot(req.sessionId).ready;
    return this.track(this.pool.route(req.sessionId).call('setRetained', req));
  }

  async cancelSetRetained(sessionId: SessionId): Promise<void> {
    this.slot(sessionId);
    await this.pool.route(sessionId).call('cancelSetRetained', { sessionId });
  }

  async exportCsv(req: SessionExportReq, outPath: string): Promise<{ rows: number; bytes: number; fileName: string }> {
    const baseline = req.view === 'diff' ? await this.typeSummaryOf(req.baselineSessionId) : undefined;
    return this.track(this.onWorker(req.sessionId, (w) => w.call('exportCsv', { req, outPath, baseline })));
  }

  /**
   * The leak-suspects report written as HTML to `outPath`: the baseline session (if any) is reduced
   * to per-type and per-field figures in its own worker (SuspectsBaseline, small), then the
   * session's worker builds and writes the report.
   */
  async exportReport(req: ExportReportReq, outPath: string): Promise<{ bytes: number; suspects: number; findings: number }> {
    const b = req.baselineSessionId;
    const baseline = b === undefined ? null : await this.track(this.onWorker(b, (w) => w.call('suspectsBaseline', { sessionId: b })));
    return this.track(this.onWorker(req.sessionId, (w) => w.call('exportReport', { req, outPath, baseline })));
  }

  /** Suggested file name of the report: "<file stem>-suspects.html". */
  reportFileName(sessionId: SessionId): string {
    return `${this.slot(sessionId).info.file.name.replace(/\.[^.]+$/, '')}-suspects.html`;
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
      const p = this.onWorker(sessionId, (w) => w.call('typeSummary', { sessionId }));
      slot.typeSummary = p;
      p.catch(() => {
        if (slot.typeSummary === p) slot.typeSummary = null; // retry next time (e.g. analysis was cancelled)
      });
    }
    return slot.typeSummary;
  }

  /**
   * `call` on the session's worker once its load is done; again (on the new worker, after the
   * reload) when the session was reopened meanwhile, so a neighbour of a jammed load never sees
   * the restart. Each retry needs a reopen, which needs a replaced worker: no busy loop.
   */
  private async onWorker<T>(sessionId: SessionId, call: (w: WorkerClient) => Promise<T>): Promise<T> {
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

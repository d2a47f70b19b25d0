import type { TypeSummary } from '../../shared/analysis/type-summary.js';
import type { ApiRequest, ApiValue, DiffReq, DiffWindow, ExportReportReq, SessionExportReq, SessionId, SetIgnoredReq, SetRetainedReq, SetRetainedResult, SnapshotSummary, TrendReq, TrendResult } from '../../shared/ipc/contract.js';
import { trendOf } from '../../shared/session/trend-view.js';
import { dominatorTrendOf } from '../../shared/session/dominator-trend-view.js';
import { DEFAULT_RETAINER_DEPTH } from '../../shared/analysis/dominator-signatures.js';
import type { DominatorTrendResult, TrendDominatorsReq } from '../../shared/ipc/dtos-growth.js';
import type { WorkerQueryMethod } from '../workers/worker-protocol.js';
import { raiseRestore } from '../workers/shared-cancel.js';
import { SessionLifecycle } from './session-lifecycle.js';

export type { SessionManagerOptions } from './session-lifecycle.js';

/**
 * The main side's sessions: their life cycle (open, capture, cancel, close, a jammed worker
 * replaced; session-lifecycle.ts) and the queries on them, each answered by the session's own
 * worker once its load is done.
 *
 * A diff needs two sessions that may live in two workers: main asks the baseline's worker for its
 * per-type summary (thousands of rows at most, cached here once the analysis is done) and hands it
 * to the other worker. Graphs never move.
 */
export class SessionManager extends SessionLifecycle {
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

  /** A query answered by the session's own worker. */
  async query<M extends WorkerQueryMethod>(method: M, req: ApiRequest<M>): Promise<ApiValue<M>> {
    const slot = this.slot(req.sessionId);
    // A dump still loading answers type rows from its helper's stats pass (session-preliminary).
    if (method === 'typeRows' && slot.info.state === 'loading' && slot.preliminary) {
      return this.track(this.pool.route(req.sessionId).call(method, req as never)) as Promise<ApiValue<M>>;
    }
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
}

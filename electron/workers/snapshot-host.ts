import { writeFile } from 'node:fs/promises';
import '../../shared/formats/all-readers.js';
import '../dump-reader/register-dump-reader.js';
import { readGcTimeline, type GcTimeline as GcAnalysis } from '../../shared/analysis/gc-timeline.js';
import { renderSuspectsHtml } from '../../shared/analysis/suspects/render-html.js';
import { AppError } from '../../shared/errors.js';
import type { SessionId, SnapshotSummary } from '../../shared/ipc/contract.js';
import { PathsView } from '../../shared/session/paths-view.js';
import { SnapshotSession } from '../../shared/session/snapshot-session.js';
import { CancellationSource, type CancellationToken } from '../../shared/util/cancellation.js';
import { FileByteSource, mapFsError } from '../files/file-byte-source.js';
import { buildRetainersInChild } from './analysis-runner.js';
import { eitherToken, QueryTokens } from './query-tokens.js';
import { restoreCount } from './shared-cancel.js';
import { reanalyze, setIgnored } from './snapshot-analysis-runs.js';
import { captureSession, loadSession } from './snapshot-open.js';
import { readySession, summaryOf, type HostContext, type Slot } from './snapshot-slots.js';
import { writeCsvFile } from './write-csv-file.js';
import type { SnapshotWorkerData, WorkerEvent, WorkerMethods, WorkerRequest, WorkerValue } from './worker-protocol.js';

/** How long close waits for a closed load to stop (main gives a worker 1000 ms to answer a close). */
const CLOSE_WAIT_MS = 500;
const noop = (): void => undefined;

/**
 * The sessions one snapshot worker holds, and the worker-side implementation of every worker
 * method. No worker_threads plumbing here (snapshot.worker.ts wires it to the port), so tests can
 * drive a host in-process. The slots and their life cycle are in snapshot-slots.ts, the load and
 * capture path in snapshot-open.ts, the analysis reruns and the what-if slot in
 * snapshot-analysis-runs.ts; the query path (scheduling, cancellation), exports and set-retained
 * jobs stay here.
 */
export type AsyncWorkerMethods = { [M in keyof WorkerMethods]: (req: WorkerRequest<M>) => Promise<WorkerValue<M>> };

export class SnapshotHost implements AsyncWorkerMethods {
  private readonly slots = new Map<SessionId, Slot>();
  private readonly queries = new QueryTokens();
  /** Retainer indexes being built in a child, per analysis (retainersFor). */
  private readonly retainerBuilds = new WeakMap<object, Promise<void>>();
  /** What the load and analysis-run functions (snapshot-open.ts, snapshot-analysis-runs.ts) share with this host. */
  private readonly ctx: HostContext;

  constructor(
    private readonly emit: (e: WorkerEvent) => void,
    data: Pick<SnapshotWorkerData, 'analysis' | 'analysisLimits' | 'debugJam'>,
    /** Sliced queries (the sunburst): slice length and checkpoint spacing; tests make them small. */
    private readonly slicing: { sliceMs?: number; checkEvery?: number } = {},
  ) {
    this.ctx = { slots: this.slots, emit, data };
  }

  async load(req: WorkerRequest<'load'>): Promise<SnapshotSummary> {
    return this.loading(req.sessionId, loadSession(this.ctx, req));
  }

  /** Live capture, in this worker rather than in main (snapshot-open.ts says why). */
  async capture(req: WorkerRequest<'capture'>): Promise<SnapshotSummary> {
    return this.loading(req.sessionId, captureSession(this.ctx, req));
  }

  /** Keep the load's promise on its slot (made synchronously by loadSession/captureSession), for close. */
  private loading(id: SessionId, p: Promise<SnapshotSummary>): Promise<SnapshotSummary> {
    const slot = this.slots.get(id);
    if (slot) slot.loading = p;
    return p;
  }

  async cancelLoad(req: WorkerRequest<'cancelLoad'>): Promise<void> {
    const slot = this.slots.get(req.sessionId);
    if (!slot) return;
    if (!slot.session) slot.loadToken.cancel('loading cancelled');
    else if (slot.whatIf?.run) slot.whatIf.run.cancel();
    else slot.analysis?.cancel();
  }

  /** "What if" (issue 16): replace the ignore list (snapshot-analysis-runs.ts). */
  async setIgnored(req: WorkerRequest<'setIgnored'>): Promise<SnapshotSummary> {
    return setIgnored(this.ctx, req);
  }

  /** Compute again (issue 14): restart a cancelled or failed analysis (snapshot-analysis-runs.ts). */
  async reanalyze(req: WorkerRequest<'reanalyze'>): Promise<SnapshotSummary> {
    return reanalyze(this.ctx, req);
  }

  async close(req: WorkerRequest<'close'>): Promise<void> {
    const slot = this.slots.get(req.sessionId);
    if (!slot) return;
    this.slots.delete(req.sessionId);
    slot.loadToken.cancel('session closed');
    // A load still running stops at its next token check; wait for that (bounded, well below
    // main's unresponsive limit): main terminates a worker left without sessions as soon as this
    // answers, and a dump helper whose read is cut off that way is never killed (a stand-in that
    // writes nothing more runs on; the real one dies only at its next write). Costs a closed
    // load's last poll (the helper's read checks its token every 100 ms).
    if (!slot.session && slot.loading) await Promise.race([slot.loading.then(noop, noop), new Promise((r) => setTimeout(r, CLOSE_WAIT_MS))]);
    slot.analysis?.cancel();
    slot.whatIf?.run?.cancel();
    slot.whatIf = null;
    for (const job of slot.setRetainedJobs ?? []) job.cancel('session closed');
    slot.session = null; // the only reference to the graph: GC frees it (and its shared buffers once the child is gone)
  }

  async summary(req: WorkerRequest<'summary'>) {
    this.ready(req.sessionId);
    return summaryOf(this.slots.get(req.sessionId)!);
  }

  async typeRows(req: WorkerRequest<'typeRows'>) {
    const slot = this.slots.get(req.sessionId);
    if (slot && !slot.session && slot.preliminary) return slot.preliminary.typeRows(req); // a dump still loading (snapshot-open.ts)
    return this.ready(req.sessionId).typeRows(req);
  }

  async objectRows(req: WorkerRequest<'objectRows'>) {
    return this.ready(req.sessionId).objectRows(req);
  }

  // object info, references and objects at an address show incoming counts: the retainer index
  async objectInfo(req: WorkerRequest<'objectInfo'>) {
    await this.retainersFor(this.ready(req.sessionId));
    return this.ready(req.sessionId).objectInfo(req);
  }

  async references(req: WorkerRequest<'references'>) {
    await this.retainersFor(await this.settled(req.sessionId, 'references', req));
    return this.ready(req.sessionId).references(req);
  }

  async objectAtAddress(req: WorkerRequest<'objectAtAddress'>) {
    await this.retainersFor(this.ready(req.sessionId));
    return this.ready(req.sessionId).objectAtAddress(req);
  }

  async dominatorChildren(req: WorkerRequest<'dominatorChildren'>) {
    return (await this.settled(req.sessionId, 'dominatorChildren', req)).dominatorChildren(req);
  }

  async dominatorPath(req: WorkerRequest<'dominatorPath'>) {
    return (await this.settled(req.sessionId, 'dominatorPath', req)).dominatorPath(req);
  }

  async dominatorTypeGroups(req: WorkerRequest<'dominatorTypeGroups'>) {
    return this.query(req.sessionId, 'dominatorTypeGroups', req, (s, token) => s.dominatorTypeGroups(req, token));
  }

  async dominatorTypeInstances(req: WorkerRequest<'dominatorTypeInstances'>) {
    return this.query(req.sessionId, 'dominatorTypeInstances', req, (s, token) => s.dominatorTypeInstances(req, token));
  }

  async retainedBy(req: WorkerRequest<'retainedBy'>) {
    return this.query(req.sessionId, 'retainedBy', req, (s, token) => s.retainedBy(req, token));
  }

  async inspections(req: WorkerRequest<'inspections'>) {
    return this.query(req.sessionId, 'inspections', req, (s, token) => s.inspections(req, token));
  }

  async dominatorSunburst(req: WorkerRequest<'dominatorSunburst'>) {
    // sliced: the tab's other calls are answered meanwhile, and a newer request of the same view
    // (its supersedeKey) or a change of the ignore list stops it at the next checkpoint
    const pause = () => new Promise<void>((resolve) => setImmediate(resolve));
    return this.query(req.sessionId, 'dominatorSunburst', req, (s, token) => s.dominatorSunburstSliced(req, { token, pause, ...this.slicing }), req.supersedeKey);
  }

  async stringRows(req: WorkerRequest<'stringRows'>) {
    return this.query(req.sessionId, 'stringRows', req, (s, token) => s.stringRows(req, token));
  }

  async stringInstances(req: WorkerRequest<'stringInstances'>) {
    return this.query(req.sessionId, 'stringInstances', req, (s, token) => s.stringInstances(req, token));
  }

  async retainedByObjects(req: WorkerRequest<'retainedByObjects'>) {
    return this.query(req.sessionId, 'retainedByObjects', req, (s, token) => s.retainedByObjects(req, token));
  }

  async pathsToRoots(req: WorkerRequest<'pathsToRoots'>) {
    return this.query(req.sessionId, 'pathsToRoots', req, async (s, token) => {
      if (PathsView.needsAnalysis(req)) await this.retainersFor(s);
      return s.pathsToRoots(req, token);
    });
  }

  async generations(req: WorkerRequest<'generations'>) {
    return this.ready(req.sessionId).generations(req);
  }

  async gcTimeline(req: WorkerRequest<'gcTimeline'>) {
    const s = this.ready(req.sessionId);
    if (!s.hasGcEvents) return s.gcTimeline();
    return s.gcTimeline(await this.gcEventsOf(req.sessionId));
  }

  /** The trace's GC events, read from its file once (the graph does not keep them). */
  private gcEventsOf(id: SessionId): Promise<GcAnalysis> {
    const slot = this.slots.get(id)!;
    const p = (slot.gcEvents ??= readGcEventsOf(slot.path));
    p.catch(() => {
      if (slot.gcEvents === p) slot.gcEvents = null; // a read error is reported to this call; the next one retries
    });
    return p;
  }

  // typeSummary, retainers, diff and suspectsBaseline read every type or the whole dominator
  // tree: on the query path, so a change of the ignore list while they wait or run (retainers:
  // at its token checks) fails them with `cancelled` instead of answering for numbers no longer shown
  async typeSummary(req: WorkerRequest<'typeSummary'>) {
    return this.query(req.sessionId, 'diff', req, (s) => s.typeSummary());
  }

  async retainers(req: WorkerRequest<'retainers'>) {
    return this.query(req.sessionId, 'retainers', req, (s, token) => s.retainers(req.minBytes, req.maxDepth, token));
  }

  async diff(req: WorkerRequest<'diff'>) {
    return this.query(req.sessionId, 'diff', req, (s) => s.diff(req, req.baselineSessionId, req.baseline));
  }

  // Exports stay off the query path: one the user ordered is a complete record of the numbers
  // shown when asked; cancelling it would leave a partial file and no message (the renderer shows
  // no `cancelled` error).
  async exportCsv({ req, outPath, baseline }: WorkerRequest<'exportCsv'>) {
    const s = await this.settled(req.sessionId, 'exportCsv', req);
    if (req.view === 'paths' && PathsView.needsAnalysis(req)) await this.retainersFor(s);
    const baselineArg = req.view === 'diff' ? { key: req.baselineSessionId, summary: baseline ?? missingBaseline() } : undefined;
    const gcEvents = req.view === 'gc-timeline' && s.hasGcEvents ? await this.gcEventsOf(req.sessionId) : null;
    const { fileName, chunks } = s.exportCsv(req, baselineArg, gcEvents);
    return { ...(await writeCsvFile(chunks, outPath)), fileName };
  }

  async suspectsBaseline(req: WorkerRequest<'suspectsBaseline'>) {
    return this.query(req.sessionId, 'inspections', req, (s) => s.suspectsBaseline());
  }

  async exportReport({ req, outPath, baseline }: WorkerRequest<'exportReport'>) {
    const s = await this.settled(req.sessionId, 'inspections', req);
    const report = s.suspectsReport({ baseline, thresholdPercent: req.thresholdPercent });
    const html = renderSuspectsHtml(report);
    try {
      await writeFile(outPath, html, 'utf8');
    } catch (e) {
      throw mapFsError(e, outPath);
    }
    return { bytes: Buffer.byteLength(html), suspects: report.suspects.length, findings: report.findings.length };
  }

  async setRetained(req: WorkerRequest<'setRetained'>) {
    // a what-if's job also stops once the ignore list changed (query(): its types grid is gone)
    return this.query(req.sessionId, 'setRetained', req, async (s, shown) => {
      const slot = this.slots.get(req.sessionId)!;
      const job = new CancellationSource();
      const jobs = (slot.setRetainedJobs ??= new Set());
      jobs.add(job);
      const sessionId = req.sessionId;
      let last = -Infinity;
      try {
        return await s.setRetained(req.typeIndices, {
          token: eitherToken(job.token, shown),
          progress: (done, total, fraction) => {
            const now = Date.now();
            if (now - last < 100 && done < total) return; // at most ~10 events a second, and the last one
            last = now;
            this.emit({ type: 'event', name: 'set-retained-progress', payload: { sessionId, done, total, fraction } });
          },
          // one macrotask: calls that arrived meanwhile (grid windows, the cancel) are answered first
          pause: () => new Promise<void>((resolve) => setImmediate(resolve)),
        });
      } finally {
        jobs.delete(job);
      }
    });
  }

  async cancelSetRetained(req: WorkerRequest<'cancelSetRetained'>): Promise<void> {
    for (const job of this.slots.get(req.sessionId)?.setRetainedJobs ?? []) job.cancel('set retained calculation cancelled');
  }

  async stats(): Promise<{ sessions: number; heapUsed: number; arrayBuffers: number; resident: Record<string, number> }> {
    const m = process.memoryUsage();
    // what the sessions keep, per structure (SessionAnalysisState.residentBytes), summed over them
    const resident: Record<string, number> = {};
    for (const slot of this.slots.values()) {
      for (const [k, v] of Object.entries(slot.session?.residentBytes() ?? {})) resident[k] = (resident[k] ?? 0) + v;
    }
    return { sessions: this.slots.size, heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers, resident };
  }

  /**
   * Before a call that reads the retainer index: when the analysis came without it (the
   * low-memory plan, analysis-runner.ts), it is built once in a child while this worker keeps
   * answering the tab's other calls. A failed build is left to the first read, which builds it
   * here or fails that call with its coded error. Inline hosts (no child script) skip this.
   */
  private async retainersFor(s: SnapshotSession): Promise<void> {
    const a = s.pendingRetainers();
    if (!a || !this.ctx.data.analysis) return;
    let build = this.retainerBuilds.get(a);
    if (!build) {
      build = buildRetainersInChild(s.graph, this.ctx.data).then(
        (r) => s.attachRetainers(a, r),
        () => undefined,
      );
      this.retainerBuilds.set(a, build);
    }
    await build;
  }

  private ready(id: SessionId): SnapshotSession {
    return readySession(this.slots, id);
  }

  /** The session, after its analysis settled when `method` needs it. */
  private async settled(id: SessionId, method: string, req: unknown): Promise<SnapshotSession> {
    const s = this.ready(id);
    if (SnapshotSession.needsAnalysis(method, req)) {
      const slot = this.slots.get(id)!;
      await slot.analysisSettled;
      if (slot.whatIf) await slot.whatIf.settled;
      return this.ready(id); // closed while waiting → session/not-found
    }
    return s;
  }

  /**
   * A query that may take long (issue 16): answered by the session the tab shows when it arrives,
   * after that session's analysis settled when `method` needs it, and after one macrotask, so
   * calls already queued behind it (a Restore, a newer request of the same view) go first. It
   * fails with `cancelled` once the ignore list changes or a request with the same
   * `supersedeKey` arrives (query-tokens.ts); `fn` gets the token for its long loops. A what-if's
   * query also stops when main raised Restore on the session's shared flag: a synchronous
   * stretch (inspections, paths to roots) would otherwise hold the Restore message until it ends.
   */
  private async query<T>(id: SessionId, method: string, req: unknown, fn: (s: SnapshotSession, token: CancellationToken) => T | Promise<T>, supersedeKey?: string): Promise<T> {
    const s = this.ready(id);
    const slot = this.slots.get(id)!;
    const whatIf = slot.whatIf ?? null;
    // a what-if's query also stops when main raised a Restore, even while it runs synchronously
    const restores = whatIf ? restoreCount(slot.cancelFlag) : -1;
    const shown = () => this.slots.get(id) === slot && (slot.whatIf?.w.session ?? slot.session) === s && (restores < 0 || restoreCount(slot.cancelFlag) === restores);
    const q = this.queries.begin(id, supersedeKey, shown);
    try {
      if (SnapshotSession.needsAnalysis(method, req)) {
        await slot.analysisSettled;
        if (whatIf) await whatIf.settled;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.ready(id); // closed while waiting → session/not-found
      q.token.throwIfCancelled();
      return await fn(s, q.token);
    } finally {
      q.end();
    }
  }
}

/** One pass over the trace file for its GC events (the graph does not keep them). */
async function readGcEventsOf(path: string): Promise<GcAnalysis> {
  const source = await FileByteSource.open(path);
  try {
    return await readGcTimeline(source);
  } finally {
    await source.close();
  }
}

function missingBaseline(): never {
  throw new AppError('usage/bad-argument', 'a diff export needs the baseline summary');
}

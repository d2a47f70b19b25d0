import { stat, writeFile } from 'node:fs/promises';
import '../../shared/formats/all-readers.js';
import '../dump-reader/register-dump-reader.js';
import { readSnapshot } from '../../shared/formats/read-snapshot.js';
import { readGcTimeline, type GcTimeline as GcAnalysis } from '../../shared/analysis/gc-timeline.js';
import { renderSuspectsHtml } from '../../shared/analysis/suspects/render-html.js';
import { AppError, toErrorDto } from '../../shared/errors.js';
import type { CapturePhase, CodedMessage, FileEntry, SessionId, SnapshotSummary } from '../../shared/ipc/contract.js';
import { timelineOnlyGraph } from '../../shared/session/timeline-only-graph.js';
import { SnapshotSession } from '../../shared/session/snapshot-session.js';
import { createWhatIf, whatIfSummary, type WhatIf } from '../../shared/session/what-if.js';
import { CancellationSource, type CancellationToken } from '../../shared/util/cancellation.js';
import { throttledProgress } from '../../shared/util/progress.js';
import { collectHeapSnapshot } from '../diagnostics/heap-collector.js';
import { FileByteSource, mapFsError } from '../files/file-byte-source.js';
import { memoryBudget } from '../files/memory-budget.js';
import { collectGarbage } from './collect-garbage.js';
import { writeGcdumpFile } from '../files/write-gcdump-file.js';
import { discardAnalysisChildren, prepareAnalysisChildren, spawnAnalysisChildren, startAnalysis, type AnalysisRun } from './analysis-runner.js';
import { debugJam } from './debug-jam.js';
import { eitherToken, QueryTokens } from './query-tokens.js';
import { shareGraph } from './share-graph.js';
import { restoreCount, tokenWithFlag } from './shared-cancel.js';
import { childStretchReader } from './stretch-reader.js';
import { writeCsvFile } from './write-csv-file.js';
import type { SnapshotWorkerData, WorkerEvent, WorkerMethods, WorkerRequest, WorkerValue } from './worker-protocol.js';

/**
 * The sessions one snapshot worker holds, and the worker-side implementation of every worker
 * method. No worker_threads plumbing here (snapshot.worker.ts wires it to the port), so tests can
 * drive a host in-process.
 *
 * A session slot goes: loading (parse, cancellable through its token) → parsed (queries answered;
 * the analysis runs in a child worker) → analysed. Calls that need the analysis
 * (SnapshotSession.needsAnalysis) await `analysisSettled` first; it never rejects, so a failed or
 * cancelled analysis surfaces as that query's coded error, not as a hang.
 */
interface Slot {
  id: SessionId;
  path: string;
  /** GC events of a trace, read from the file on the first gcTimeline call. */
  gcEvents: Promise<GcAnalysis> | null;
  loadToken: CancellationSource;
  /** What the parse (or capture) checks: loadToken, or main's shared flag (shared-cancel.ts). */
  parseToken: CancellationToken;
  /** Main's shared flag, if it sent one: its Restore count stops the what-if's queries (query()). */
  cancelFlag?: SharedArrayBuffer;
  session: SnapshotSession | null;
  analysis: AnalysisRun | null;
  analysisSettled: Promise<void>;
  /** Running and queued setRetained calls, so cancelSetRetained and close can stop them. */
  setRetainedJobs?: Set<CancellationSource>;
  /** "What if" (issue 16): while set, its session answers every query instead of `session`. */
  whatIf?: WhatIfSlot | null;
}

/** A what-if session and its analysis run (the same life cycle as the original's). */
interface WhatIfSlot {
  w: WhatIf;
  run: AnalysisRun | null;
  settled: Promise<void>;
}

export type AsyncWorkerMethods = { [M in keyof WorkerMethods]: (req: WorkerRequest<M>) => Promise<WorkerValue<M>> };

export class SnapshotHost implements AsyncWorkerMethods {
  private readonly slots = new Map<SessionId, Slot>();
  private readonly queries = new QueryTokens();

  constructor(
    private readonly emit: (e: WorkerEvent) => void,
    private readonly data: Pick<SnapshotWorkerData, 'analysis' | 'analysisLimits' | 'debugJam'>,
    /** Sliced queries (the sunburst): slice length and checkpoint spacing; tests make them small. */
    private readonly slicing: { sliceMs?: number; checkEvery?: number } = {},
  ) {}

  async load(req: WorkerRequest<'load'>): Promise<SnapshotSummary> {
    return this.openFile(this.newSlot(req.sessionId, req.path, req.cancelFlag), req.file, req.select);
  }

  /**
   * Live capture, in this worker rather than in main: worker_threads have sockets too, and the
   * expensive part of a capture is decoding the heap-walk events and assembling the graph (seconds
   * of CPU for a large heap). Done in main it would stall every IPC call and event of every other
   * tab for that long; done here it only occupies the worker that will hold the session anyway.
   *
   * The graph is written as a .gcdump to `outPath` (main's capture cache) and the session is then
   * opened from that file like any other, so what the tab shows is exactly what "Save snapshot
   * as…", Recent files and a later reopen give. Re-reading costs a fraction of the capture (the
   * .gcdump parse runs at ~100 MB/s) and frees the trace assembler's memory before the analysis.
   */
  async capture(req: WorkerRequest<'capture'>): Promise<SnapshotSummary> {
    const slot = this.newSlot(req.sessionId, req.outPath, req.cancelFlag);
    const t0 = Date.now();
    const progress = (phase: CapturePhase, bytes: number) =>
      this.emit({ type: 'event', name: 'capture-progress', payload: { sessionId: req.sessionId, pid: req.pid, phase, bytes, elapsedMs: Date.now() - t0 } });
    let file: FileEntry;
    try {
      const token = slot.parseToken;
      const r = await collectHeapSnapshot({ pid: req.pid, timeoutSec: req.timeoutSec, token, onPhase: (phase, bytes) => progress(phase as CapturePhase, bytes) });
      progress('saving', r.traceBytes);
      await writeGcdumpFile(req.outPath, r.graph, { token });
      const st = await stat(req.outPath);
      file = { ...req.file, size: st.size, modifiedMs: Math.round(st.mtimeMs), exists: true };
    } catch (e) {
      this.slots.delete(req.sessionId);
      throw e;
    }
    return this.openFile(slot, file);
  }

  private newSlot(id: SessionId, path: string, cancelFlag: SharedArrayBuffer | undefined): Slot {
    if (this.slots.has(id)) throw new AppError('bug', `session ${id} is already open in this worker`);
    const loadToken = new CancellationSource();
    const parseToken = tokenWithFlag(loadToken, cancelFlag);
    const slot: Slot = { id, path, gcEvents: null, loadToken, parseToken, cancelFlag, session: null, analysis: null, analysisSettled: Promise.resolve() };
    this.slots.set(id, slot);
    return slot;
  }

  private async openFile(slot: Slot, file: FileEntry, select?: string): Promise<SnapshotSummary> {
    const sessionId = slot.id;
    const emitProgress = (stage: 'parse' | 'analysis') =>
      throttledProgress((phase, done, total) => this.emit({ type: 'event', name: 'load-progress', payload: { sessionId, stage, phase, done, total } }), 100);
    // started now, so their start-up overlaps the parse
    let children = spawnAnalysisChildren(this.data);
    let run: AnalysisRun | null = null;
    try {
      const t0 = performance.now();
      if (this.data.debugJam) debugJam(slot.path, slot.parseToken);
      const source = await FileByteSource.open(slot.path);
      let graph;
      const notes: CodedMessage[] = [];
      try {
        const sizeHint = (nodes: number, edges: number) => prepareAnalysisChildren(children, nodes, edges);
        graph = await readSnapshot(source, { token: slot.parseToken, progress: emitProgress('parse'), select, stretchReader: childStretchReader(slot.path, this.data), sharedMemory: true, sizeHint, memoryBudget: () => memoryBudget(process.env, 'app') });
      } catch (e) {
        if (!(e instanceof AppError && e.code === 'format/no-heap-dump')) throw e;
        graph = timelineOnlyGraph(); // GC events only: the timeline still works
        notes.push({ code: 'no-heap-dump', message: `${e.message}; only the GC timeline is available` });
      } finally {
        await source.close();
      }
      slot.parseToken.throwIfCancelled();
      const parseMs = Math.round(performance.now() - t0);
      const shared = shareGraph(graph);
      // The analysis children get the graph before the session's own tables are built (the type
      // statistics are a pass over every node): they need none of them, and the dominators are
      // the critical path of the load.
      run = startAnalysis(shared, emitProgress('analysis'), this.data, children);
      // The reader's scratch (a .gcdump's node offsets, the builder's 8 bytes per node of pool
      // starts and counts) is garbage now, but this worker allocates little from here on, so V8
      // would keep it resident through the analysis, which is the peak: one full GC of a small
      // JS heap frees it first (test/perf/app-memory.bench.ts).
      collectGarbage();
      children = null;
      const session = new SnapshotSession(shared, { sessionId, file, parseMs, notes }, slot.parseToken);
      slot.session = session;
      this.beginAnalysis(slot, session, run);
      return session.summary();
    } catch (e) {
      discardAnalysisChildren(children);
      if (run) {
        run.done.catch(() => undefined); // no session takes its result: its cancellation is no failure to report
        run.cancel();
      }
      this.slots.delete(sessionId);
      throw e;
    }
  }

  /** Attach a started analysis to its session: the session takes its result, and the tab hears of it. */
  private beginAnalysis(slot: Slot, session: SnapshotSession, run: AnalysisRun): void {
    session.markAnalysisRunning();
    slot.analysis = run;
    slot.analysisSettled = run.done.then(
      ({ analysis, ms }) => session.attachAnalysis(analysis, Math.round(ms)),
      (e: unknown) => session.failAnalysis(toErrorDto(e)),
    ).then(() => {
      slot.analysis = null;
      if (this.slots.get(slot.id) === slot) {
        this.emit({ type: 'event', name: 'summary-updated', payload: { sessionId: slot.id, summary: session.summary() } });
      }
    });
  }

  async cancelLoad(req: WorkerRequest<'cancelLoad'>): Promise<void> {
    const slot = this.slots.get(req.sessionId);
    if (!slot) return;
    if (!slot.session) slot.loadToken.cancel('loading cancelled');
    else if (slot.whatIf?.run) slot.whatIf.run.cancel();
    else slot.analysis?.cancel();
  }

  /**
   * "What if" (issue 16): replace the ignore list. The previous what-if (its run cancelled) is
   * dropped; an empty list goes back to the original session, whose analysis was never touched.
   * The mask and the graph without the ignored references are made here (one O(N + E) pass, where
   * a bad rule fails this call with its coded error), the analysis in fresh children like a load's.
   */
  async setIgnored(req: WorkerRequest<'setIgnored'>): Promise<SnapshotSummary> {
    this.ready(req.sessionId);
    const slot = this.slots.get(req.sessionId)!;
    await slot.analysisSettled;
    const base = slot.session;
    if (this.slots.get(req.sessionId) !== slot || !base) throw new AppError('session/not-found', `no open session ${req.sessionId}`);
    if (!base.analysisDone) throw new AppError('usage/bad-argument', 'references can be ignored once the dominator analysis of this snapshot is done');
    const t0 = performance.now();
    const entry: WhatIfSlot | null = req.rules.length > 0 ? { w: createWhatIf(base, req.rules, slot.loadToken.token, true), run: null, settled: Promise.resolve() } : null;
    const prepMs = performance.now() - t0;
    slot.whatIf?.run?.cancel();
    slot.whatIf = entry;
    if (entry) this.runWhatIf(slot, entry, prepMs);
    const summary = this.summaryOf(slot);
    if (!entry) this.emit({ type: 'event', name: 'summary-updated', payload: { sessionId: slot.id, summary } });
    return summary;
  }

  private runWhatIf(slot: Slot, entry: WhatIfSlot, prepMs: number): void {
    const session = entry.w.session;
    const sessionId = slot.id;
    const progress = throttledProgress((phase, done, total) => this.emit({ type: 'event', name: 'load-progress', payload: { sessionId, stage: 'analysis', phase, done, total } }), 100);
    session.markAnalysisRunning();
    const run = startAnalysis(session.graph, progress, this.data, null);
    entry.run = run;
    entry.settled = run.done
      .then(
        ({ analysis, ms }) => session.attachAnalysis(analysis, Math.round(prepMs + ms)),
        (e: unknown) => session.failAnalysis(toErrorDto(e)),
      )
      .then(() => {
        entry.run = null;
        if (this.slots.get(slot.id) === slot && slot.whatIf === entry) {
          this.emit({ type: 'event', name: 'summary-updated', payload: { sessionId: slot.id, summary: this.summaryOf(slot) } });
        }
      });
  }

  /** The summary of what the tab shows: the what-if's while one is set. */
  private summaryOf(slot: Slot): SnapshotSummary {
    const base = slot.session!;
    return slot.whatIf ? whatIfSummary(slot.whatIf.w, base) : base.summary();
  }

  /**
   * Compute again (issue 14): the analysis of a parsed session whose analysis was cancelled or
   * failed starts over in fresh children; a no-op while it runs or once it is done. Waits for the
   * previous run's settlement first, so its clean-up cannot clear the new run.
   */
  async reanalyze(req: WorkerRequest<'reanalyze'>): Promise<SnapshotSummary> {
    this.ready(req.sessionId);
    const whatIf = this.slots.get(req.sessionId)!.whatIf;
    if (whatIf) {
      // a what-if's recompute cancelled or failed: run it again, as for the original below
      await whatIf.settled;
      const slot = this.slots.get(req.sessionId)!;
      const state = whatIf.w.session.state;
      if (slot.whatIf === whatIf && (state === 'cancelled' || state === 'failed')) this.runWhatIf(slot, whatIf, 0);
      return this.summaryOf(slot);
    }
    await this.slots.get(req.sessionId)!.analysisSettled;
    const session = this.ready(req.sessionId);
    const slot = this.slots.get(req.sessionId)!;
    if (session.state === 'cancelled' || session.state === 'failed') {
      const sessionId = slot.id;
      const progress = throttledProgress((phase, done, total) => this.emit({ type: 'event', name: 'load-progress', payload: { sessionId, stage: 'analysis', phase, done, total } }), 100);
      this.beginAnalysis(slot, session, startAnalysis(session.graph, progress, this.data, null));
    }
    return session.summary();
  }

  async close(req: WorkerRequest<'close'>): Promise<void> {
    const slot = this.slots.get(req.sessionId);
    if (!slot) return;
    this.slots.delete(req.sessionId);
    slot.loadToken.cancel('session closed');
    slot.analysis?.cancel();
    slot.whatIf?.run?.cancel();
    slot.whatIf = null;
    for (const job of slot.setRetainedJobs ?? []) job.cancel('session closed');
    slot.session = null; // the only reference to the graph: GC frees it (and its shared buffers once the child is gone)
  }

  async summary(req: WorkerRequest<'summary'>) {
    this.ready(req.sessionId);
    return this.summaryOf(this.slots.get(req.sessionId)!);
  }

  async typeRows(req: WorkerRequest<'typeRows'>) {
    return this.ready(req.sessionId).typeRows(req);
  }

  async objectRows(req: WorkerRequest<'objectRows'>) {
    return this.ready(req.sessionId).objectRows(req);
  }

  async objectInfo(req: WorkerRequest<'objectInfo'>) {
    return this.ready(req.sessionId).objectInfo(req);
  }

  async references(req: WorkerRequest<'references'>) {
    return (await this.settled(req.sessionId, 'references', req)).references(req);
  }

  async objectAtAddress(req: WorkerRequest<'objectAtAddress'>) {
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
    return this.query(req.sessionId, 'pathsToRoots', req, (s, token) => s.pathsToRoots(req, token));
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

  async stats(): Promise<{ sessions: number; heapUsed: number; arrayBuffers: number }> {
    const m = process.memoryUsage();
    return { sessions: this.slots.size, heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers };
  }

  private ready(id: SessionId): SnapshotSession {
    const slot = this.slots.get(id);
    if (!slot) throw new AppError('session/not-found', `no open session ${id}`);
    if (!slot.session) throw new AppError('usage/bad-argument', `session ${id} is still loading`);
    return slot.whatIf?.w.session ?? slot.session;
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

import { analyzeGraph, type DominanceAnalysis, type HeapAnalysis } from '../analysis/analyze.js';
import { buildRetainers, type Retainers } from '../analysis/retainers.js';
import type { TypeSummary } from '../analysis/type-summary.js';
import { AppError, CancelledError, toErrorDto, type AppErrorDto } from '../errors.js';
import type { AnalysisState, PathsToRootsReq, ReferencesReq, SessionExportReq } from '../ipc/contract.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { PathsView } from './paths-view.js';

/**
 * The analysis (dominators, retained sizes, retainers) of one snapshot's session and its state:
 * pending until it runs here (`runAnalysis`) or another thread hands it over (`attachAnalysis`),
 * then done, cancelled or failed. Which queries have to wait for it is `needsAnalysis`; the
 * queries themselves are in SnapshotSession (snapshot-session.ts), which extends this class.
 */
export class SessionAnalysisState {
  protected analysis: HeapAnalysis | null = null;
  protected analysisState: AnalysisState = 'pending';
  protected analysisError: AppErrorDto | null = null;
  protected analysisMs: number | null = null;
  /** The retainer index of an analysis attached without one, once a query built it (attachAnalysis). */
  private lazyRetainers: Retainers | null = null;
  /** The per-type-name summary for diffs: computed from the analysis, so a new analysis drops it. */
  protected summaryCache: TypeSummary | null = null;

  constructor(readonly graph: HeapGraph) {}

  /** Whether a call must wait for the analysis (the host queues it until `analysisDone`). */
  static needsAnalysis(method: string, req: unknown): boolean {
    switch (method) {
      case 'dominatorChildren':
      case 'dominatorPath':
      case 'dominatorTypeGroups':
      case 'dominatorTypeInstances':
      case 'retainedBy':
      case 'retainedByObjects':
      case 'inspections':
      case 'dominatorSunburst':
      case 'stringRows':
      case 'stringInstances':
      case 'diff':
      case 'setRetained':
      case 'retainers':
        return true;
      case 'references':
        return (req as ReferencesReq).direction === 'incoming';
      case 'pathsToRoots':
        return PathsView.needsAnalysis(req as PathsToRootsReq);
      case 'exportCsv': {
        // An export is a complete record: it waits for retained sizes rather than writing empty columns.
        const r = req as SessionExportReq;
        if (r.view === 'paths') return PathsView.needsAnalysis(r);
        return r.view !== 'generations' && r.view !== 'gc-timeline';
      }
      default:
        return false;
    }
  }

  get analysisDone(): boolean {
    return this.analysisState === 'done';
  }

  get state(): AnalysisState {
    return this.analysisState;
  }

  /** Run the whole analysis here, synchronously (tests, CLI-like use, a browser worker). */
  runAnalysis(opts: { token?: CancellationToken; progress?: ProgressSink; now?: () => number } = {}): void {
    const now = opts.now ?? (() => Date.now());
    const t0 = now();
    this.analysisState = 'running';
    try {
      const a = analyzeGraph(this.graph, { token: opts.token, progress: opts.progress });
      this.attachAnalysis(a, now() - t0);
    } catch (e) {
      this.failAnalysis(toErrorDto(e));
      throw e;
    }
  }

  markAnalysisRunning(): void {
    this.analysisState = 'running';
    this.analysisError = null; // computed again after a cancel or a failure: the old error is history
  }

  /**
   * Attach an analysis computed elsewhere (another worker, with the graph's buffers shared). One
   * without the retainer index (the app's low-memory plan, analysis-runner.ts) gets it on first
   * use: the first incoming-references, object-info or paths query builds it here (4 bytes per
   * node + 4 per reference, one O(N + E) pass on this thread), so it is not in the load's peak.
   */
  attachAnalysis(a: HeapAnalysis | DominanceAnalysis, ms: number): void {
    if (a.idom.length !== this.graph.nodeCount) throw new AppError('bug', 'analysis does not belong to this graph');
    this.lazyRetainers = null;
    this.analysis = 'retainers' in a && a.retainers ? a : this.withLazyRetainers(a);
    this.analysisState = 'done';
    this.analysisError = null;
    this.analysisMs = ms;
    this.summaryCache = null;
  }

  /**
   * The analysis, when it came without its retainer index and no query has built it yet: a host
   * with child workers builds it there (snapshot-host.ts retainersFor) and hands it over with
   * attachRetainers, so this thread keeps answering meanwhile; without, the first read builds it.
   */
  pendingRetainers(): HeapAnalysis | null {
    const a = this.analysis;
    return a !== null && this.lazyRetainers === null && Object.getOwnPropertyDescriptor(a, 'retainers')?.get ? a : null;
  }

  /** The index built elsewhere for `a`; ignored when another analysis was attached meanwhile. */
  attachRetainers(a: HeapAnalysis, r: Retainers): void {
    if (this.analysis === a && r.firstRetainer.length === this.graph.nodeCount + 1) this.lazyRetainers ??= r;
  }

  /**
   * The bytes this session keeps per structure (the graph's columns, each analysis column, the
   * retainer index once built), each buffer counted once, at its full length (a column living in
   * a bigger dead buffer keeps all of it): test/perf/app-memory.bench.ts prints it.
   */
  residentBytes(): Record<string, number> {
    const out: Record<string, number> = {};
    const seen = new Set<ArrayBufferLike>();
    const add = (name: string, x: unknown) => {
      if (!ArrayBuffer.isView(x) || seen.has(x.buffer)) return;
      seen.add(x.buffer);
      out[name] = (out[name] ?? 0) + x.buffer.byteLength;
    };
    const g = this.graph;
    for (const k of ['nodeType', 'selfSize', 'firstEdge', 'address', 'nodeFlags', 'generation', 'edgeTarget', 'edgeFieldName', 'nodeStringValue'] as const) add(`graph.${k}`, g[k]);
    const a = this.analysis;
    if (a) {
      for (const k of ['idom', 'retainedSize', 'reachable', 'treePosition', 'treeChildStart', 'domChildren'] as const) add(`analysis.${k}`, a[k]);
      for (const k of ['typeRetained', 'typeReachableCount', 'typeReachableShallow', 'typeUnreachableCount', 'typeUnreachableShallow'] as const) add('analysis.types', a[k]);
      // never through the lazy getter: asking must not build the index
      const r = Object.getOwnPropertyDescriptor(a, 'retainers')?.get ? this.lazyRetainers : a.retainers;
      if (r) {
        add('retainers.firstRetainer', r.firstRetainer);
        add('retainers.retainerNode', r.retainerNode);
      }
    }
    return out;
  }

  failAnalysis(error: AppErrorDto): void {
    this.analysis = null;
    this.analysisState = error.code === 'cancelled' ? 'cancelled' : 'failed';
    this.analysisError = error;
  }


  /**
   * The analysis with a `retainers` built on first read. Not enumerable, so nothing that copies or
   * lists the fields (a spread, a structured clone) builds it by accident.
   */
  private withLazyRetainers(a: DominanceAnalysis): HeapAnalysis {
    const { retainers: _none, ...fields } = a as DominanceAnalysis & { retainers?: null };
    return Object.defineProperty(fields, 'retainers', {
      get: () => (this.lazyRetainers ??= buildRetainers(this.graph)),
      enumerable: false,
    }) as HeapAnalysis;
  }

  protected requireAnalysis(): HeapAnalysis {
    if (this.analysis) return this.analysis;
    switch (this.analysisState) {
      case 'cancelled':
        throw new CancelledError('the dominator analysis of this snapshot was cancelled');
      case 'failed':
        throw new AppError(this.analysisError?.code ?? 'bug', `the dominator analysis failed: ${this.analysisError?.message ?? 'unknown error'}`);
      default:
        throw new AppError('usage/bad-argument', 'the dominator analysis has not finished yet');
    }
  }
}

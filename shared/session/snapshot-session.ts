import { childRange } from '../analysis/dominator-tree.js';
import type { HeapAnalysis } from '../analysis/analyze.js';
import { computeTypeStats, type TypeStats } from '../analysis/type-stats.js';
import { summarizeTypes, type TypeSummary } from '../analysis/type-summary.js';
import { defaultRetainerMinBytes, retainerSignatures, type RetainerSnapshot } from '../analysis/dominator-signatures.js';
import { AppError } from '../errors.js';
import type {
  AddressLookup,
  CodedMessage,
  DiffReq,
  DiffWindow,
  DominatorChildrenReq,
  DominatorPath,
  DominatorRow,
  SessionExportReq,
  FileEntry,
  Generations,
  GenerationsReq,
  GcTimeline,
  ObjectInfo,
  ObjectRow,
  ObjectRowsReq,
  PathsToRoots,
  PathsToRootsReq,
  ReferenceRow,
  ReferencesReq,
  RowWindow,
  SessionId,
  SetRetainedResult,
  SnapshotSummary,
  TypeRow,
  TypeRowsReq,
} from '../ipc/contract.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { hasStringValues } from '../graph/string-values.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import {
  arraySource,
  csvChunks,
  DIFF_CSV,
  DOMINATORS_CSV,
  GC_TIMELINE_CSV,
  GENERATIONS_CSV,
  OBJECTS_CSV,
  OBJECTS_WITH_VALUES_CSV,
  PATH_BRANCHES_CSV,
  PATH_STEPS_CSV,
  pathStepRows,
  STRINGS_CSV,
  TYPES_CSV,
} from './csv-export.js';
import { DiffView } from './diff-view.js';
import { checkNode, DominatorView } from './dominator-view.js';
import { ObjectInspectorView } from './object-inspector-view.js';
import { ObjectView } from './object-view.js';
import { PathsView } from './paths-view.js';
import { buildGenerations, buildSummary, generationBreakdown } from './summary-view.js';
import { TypeView } from './type-view.js';
import { SetRetainedView, type SetRetainedRun } from './set-retained-view.js';
import { SessionAnalysisState } from './session-analysis-state.js';
import { isPseudo } from '../analysis/paths-to-roots.js';
import type { GenerationBreakdown } from '../analysis/generation-breakdown.js';
import type { GcTimeline as GcAnalysis } from '../analysis/gc-timeline.js';
import { gcEventDto, gcTimelineDto } from './gc-timeline-view.js';
import { clipWindow } from './row-order.js';
import { GroupedDominatorView } from './grouped-dominator-view.js';
import { retainedBy, retainedByObjects } from './retained-by-view.js';
import { InspectionsView } from './inspections-view.js';
import { StringsView } from './strings-view.js';
import type { StringInstancesReq, StringRow, StringRowsReq } from '../ipc/dtos-strings.js';
import type { Inspections, InspectionsReq } from '../ipc/dtos-inspections.js';
import type { DominatorSunburst, DominatorSunburstReq } from '../ipc/dtos-sunburst.js';
import { sunburstOf, sunburstOfSliced } from './sunburst-view.js';
import type { SunburstRun } from '../analysis/dominator-sunburst.js';
import { SunburstCache } from './sunburst-cache.js';
import { buildSuspectsReport, suspectsBaselineOf, type SuspectsBaseline, type SuspectsReport } from '../analysis/suspects/suspects-report.js';
import type { DominatorTypeGroupRow, DominatorTypeGroupsReq, DominatorTypeInstancesReq, RetainedBy, RetainedByObjectRow, RetainedByObjectsReq, RetainedByReq } from '../ipc/contract.js';

/**
 * One opened snapshot: its HeapGraph plus the analyses computed from it, answering the contract's
 * queries as small windows.
 *
 * Pure (no Node, no DOM): the same class runs in a worker_threads worker (the app), in Vitest and
 * in a browser Web Worker. Life cycle, so the first grid rows never wait for dominators:
 *   1. constructed right after parsing: per-type counts and shallow sizes (one O(N) pass);
 *   2. `typeRows`, `objectRows`, `generations`, object details, outgoing references, go to
 *      address and type path trees work at once;
 *   3. the analysis (dominators, retained sizes, retainers) is attached later, by `runAnalysis`
 *      here or by `attachAnalysis` when another thread computed it; queries that need it
 *      (`needsAnalysis`) are held back by the host until then (session-analysis-state.ts).
 * Everything else (instance buckets, sort orders, the BFS for paths, generation tables, the type
 * summary for diffs) is computed on first use and cached.
 */
export class SnapshotSession extends SessionAnalysisState {
  readonly stats: TypeStats;
  private readonly types: TypeView;
  private readonly objects: ObjectView;
  private readonly dominators: DominatorView;
  private readonly pathsView: PathsView;
  private readonly grouped: GroupedDominatorView;
  private readonly inspector: ObjectInspectorView;
  private readonly diffView = new DiffView();
  private readonly setRetainedView: SetRetainedView;
  private genCache: GenerationBreakdown | null = null;
  /** The last "Retained by" row expanded (key: analysis, type, dominator type): windows are slices of it. */
  private retainedByCache: { key: string; analysis: HeapAnalysis; rows: ReturnType<typeof retainedByObjects> } | null = null;
  private readonly inspectionsView: InspectionsView;
  private readonly sunburstCache = new SunburstCache();
  private readonly stringsView: StringsView;

  constructor(
    graph: HeapGraph,
    readonly info: { sessionId: SessionId; file: FileEntry; parseMs: number; notes?: CodedMessage[] },
    token: CancellationToken = NEVER_CANCELLED,
  ) {
    super(graph);
    this.stats = computeTypeStats(graph, token);
    this.setRetainedView = new SetRetainedView(graph);
    this.types = new TypeView(graph, this.stats, (t) => this.setRetainedView.value(t));
    this.objects = new ObjectView(graph);
    this.dominators = new DominatorView(graph, (n) => this.objects.hex(n), this.stats.objectSize);
    this.pathsView = new PathsView(graph);
    this.grouped = new GroupedDominatorView(graph, (a, n) => this.dominators.row(a, n), this.stats.objectSize);
    this.inspector = new ObjectInspectorView(graph, (n) => this.objects.hex(n));
    this.inspectionsView = new InspectionsView(graph);
    this.stringsView = new StringsView(graph);
  }

  summary(): SnapshotSummary {
    return buildSummary(this.graph, this.stats, {
      ...this.info,
      analysis: { state: this.analysisState, error: this.analysisError, ms: this.analysisMs, result: this.analysis },
    });
  }

  typeRows(req: Omit<TypeRowsReq, 'sessionId'>): RowWindow<TypeRow> {
    return this.types.window(req, this.analysis);
  }

  objectRows(req: Omit<ObjectRowsReq, 'sessionId'>): RowWindow<ObjectRow> {
    return this.objects.window(req, this.analysis);
  }

  objectInfo(req: { node: number }): ObjectInfo {
    return this.inspector.info(this.analysis, req.node);
  }

  references(req: Omit<ReferencesReq, 'sessionId'>): RowWindow<ReferenceRow> {
    return this.inspector.references(this.analysis, req.node, req.direction, req.start, req.end);
  }

  /** Go to address: the object at (or containing) `address`, null when there is none. */
  objectAtAddress(req: { address: string }, token: CancellationToken = NEVER_CANCELLED): AddressLookup | null {
    return this.inspector.atAddress(this.analysis, req.address, token);
  }

  dominatorChildren(req: Omit<DominatorChildrenReq, 'sessionId'>): RowWindow<DominatorRow> {
    return this.dominators.children(this.requireAnalysis(), req.node, req.start, req.end);
  }

  dominatorPath(req: { node: number }): DominatorPath {
    return this.dominators.path(this.requireAnalysis(), req.node);
  }

  /** The dominator tree grouped by type: one row per type (grouped-dominator-view.ts). */
  dominatorTypeGroups(req: Omit<DominatorTypeGroupsReq, 'sessionId'>, token: CancellationToken = NEVER_CANCELLED): RowWindow<DominatorTypeGroupRow> {
    return this.grouped.groupRows(this.requireAnalysis(), req.start, req.end, token);
  }

  /** A type group's outermost instances, largest retained first (expand them with dominatorChildren). */
  dominatorTypeInstances(req: Omit<DominatorTypeInstancesReq, 'sessionId'>, token: CancellationToken = NEVER_CANCELLED): RowWindow<DominatorRow> {
    return this.grouped.instances(this.requireAnalysis(), req.typeIndex, req.start, req.end, token);
  }

  /** A type's instances grouped by their immediate dominator's type (retained-by-view.ts). */
  retainedBy(req: Omit<RetainedByReq, 'sessionId'>, token: CancellationToken = NEVER_CANCELLED): RetainedBy {
    const a = this.requireAnalysis();
    if (!Number.isInteger(req.typeIndex) || req.typeIndex < 0 || req.typeIndex >= this.graph.types.count) {
      throw new AppError('usage/bad-argument', `no type with index ${req.typeIndex}`);
    }
    return retainedBy(this.graph, a, req.typeIndex, this.objects.instances(req.typeIndex, token), this.stats.objectSize, token);
  }

  /** Known leak patterns (the Insights view; the CLI's `inspect`), top N per inspection. */
  inspections(req: Omit<InspectionsReq, 'sessionId'>, token: CancellationToken = NEVER_CANCELLED): Inspections {
    return this.inspectionsView.inspections(this.requireAnalysis(), req, token);
  }

  /** The dominator tree's top rings below a center, aggregated for the Sunburst view (sunburst-view.ts). */
  dominatorSunburst(req: Omit<DominatorSunburstReq, 'sessionId'>, token: CancellationToken = NEVER_CANCELLED): DominatorSunburst {
    const a = this.requireAnalysis();
    return this.sunburstCache.get(a, req, () => sunburstOf(this.graph, a, req, (n) => this.objects.hex(n), token));
  }

  /** The same, in slices with `run.pause()` between them (the worker: other calls are answered meanwhile). */
  dominatorSunburstSliced(req: Omit<DominatorSunburstReq, 'sessionId'>, run: SunburstRun): Promise<DominatorSunburst> {
    const a = this.requireAnalysis();
    return this.sunburstCache.getAsync(a, req, () => sunburstOfSliced(this.graph, a, req, (n) => this.objects.hex(n), run));
  }

  /** The leak-suspects report of this snapshot (shared/analysis/suspects; the CLI's `suspects`). */
  suspectsReport(opts: { baseline?: SuspectsBaseline | null; thresholdPercent?: number }, token: CancellationToken = NEVER_CANCELLED): SuspectsReport {
    return buildSuspectsReport(this.graph, this.requireAnalysis(), { fileName: this.info.file.name, baseline: opts.baseline, thresholdPercent: opts.thresholdPercent, token });
  }

  /** This snapshot as the baseline of another one's report (small: per type and static field). */
  suspectsBaseline(): SuspectsBaseline {
    return suspectsBaselineOf(this.graph, this.requireAnalysis(), this.info.file.name);
  }

  /** Duplicate strings of a process dump (strings-view.ts); strings/needs-dump for other formats. */
  stringRows(req: Omit<StringRowsReq, 'sessionId'>, token: CancellationToken = NEVER_CANCELLED): RowWindow<StringRow> {
    return this.stringsView.window(this.requireAnalysis(), req, token);
  }

  /** The reachable string objects holding one value, in address order, as instance rows. */
  stringInstances(req: Omit<StringInstancesReq, 'sessionId'>, token: CancellationToken = NEVER_CANCELLED): RowWindow<ObjectRow> {
    const a = this.requireAnalysis();
    return this.stringsView.instanceWindow(a, req, (n) => this.objects.row(n, a), token);
  }

  /** The dominator objects behind one "Retained by" row, most retained first. */
  retainedByObjects(req: Omit<RetainedByObjectsReq, 'sessionId'>, token: CancellationToken = NEVER_CANCELLED): RowWindow<RetainedByObjectRow> {
    const a = this.requireAnalysis();
    const g = this.graph;
    if (!Number.isInteger(req.typeIndex) || req.typeIndex < 0 || req.typeIndex >= g.types.count) {
      throw new AppError('usage/bad-argument', `no type with index ${req.typeIndex}`);
    }
    const key = `${req.typeIndex}|${req.dominatorTypeIndex}`;
    let c = this.retainedByCache;
    if (!c || c.key !== key || c.analysis !== a) {
      c = { key, analysis: a, rows: retainedByObjects(g, a, req.dominatorTypeIndex, this.objects.instances(req.typeIndex, token), token) };
      this.retainedByCache = c;
    }
    const { nodes, count, bytes } = c.rows;
    const total = this.stats.objectSize;
    const w = clipWindow(req.start, req.end, nodes.length);
    const rows: RetainedByObjectRow[] = [];
    for (let i = w.start; i < w.end; i++) {
      const d = nodes[i];
      rows.push({ node: d, type: g.types.names[g.nodeType[d]], address: this.objects.hex(d), pseudo: isPseudo(g, d), count: count[i], retainedSize: bytes[i], retainedPercent: total > 0 ? (bytes[i] / total) * 100 : 0 });
    }
    return { start: w.start, end: w.end, total: nodes.length, rows };
  }

  pathsToRoots(req: Omit<PathsToRootsReq, 'sessionId'>, token: CancellationToken = NEVER_CANCELLED): PathsToRoots {
    return this.pathsView.paths(req, PathsView.needsAnalysis(req) ? this.requireAnalysis() : this.analysis, token);
  }

  generations(req: Omit<GenerationsReq, 'sessionId'>): Generations {
    this.genCache ??= generationBreakdown(this.graph);
    return buildGenerations(this.graph, this.genCache, Math.max(0, Math.min(req.topTypes ?? 20, 1000)));
  }

  /**
   * Set retained sizes of `typeIndices` (bytes freed when every instance goes), computed in slices
   * with `run.pause()` between them and kept for the type rows (set-retained-view.ts).
   */
  setRetained(typeIndices: readonly number[], run: SetRetainedRun): Promise<SetRetainedResult> {
    return this.setRetainedView.compute(this.requireAnalysis(), typeIndices, run);
  }

  /** Per-type-name summary: what another worker needs to diff against this session. */
  typeSummary(): TypeSummary {
    return (this.summaryCache ??= summarizeTypes(this.graph, this.requireAnalysis(), this.info.file.name));
  }

  /**
   * The big retainers of this snapshot under their cross-snapshot signatures (a dominator-level
   * trend, dominator-signatures.ts): `minBytes` null = the default for this snapshot's reachable bytes.
   */
  retainers(minBytes: number | null, maxDepth: number, token: CancellationToken = NEVER_CANCELLED): RetainerSnapshot {
    const a = this.requireAnalysis();
    return retainerSignatures(this.graph, a, this.info.file.name, { minBytes: minBytes ?? defaultRetainerMinBytes(a.reachableSize), maxDepth, token });
  }

  /** `baselineKey` identifies the baseline (its session id): the diff is cached per baseline. */
  diff(req: Omit<DiffReq, 'sessionId' | 'baselineSessionId'>, baselineKey: string, baseline: TypeSummary): DiffWindow {
    return this.diffView.window(baselineKey, baseline, this.typeSummary(), req);
  }

  /** Whether the GC timeline needs the trace's events (read by the host from the file). */
  get hasGcEvents(): boolean {
    return this.graph.metadata.format === 'nettrace';
  }

  /** The GC timeline; `events` are the trace's GCs as read by the host (null: not read / not a trace). */
  gcTimeline(events: GcAnalysis | null = null): GcTimeline {
    return gcTimelineDto(this.graph.metadata.format, events);
  }

  /**
   * The CSV text of ALL rows of a view, in chunks. `baseline` is required for the diff view, the
   * trace's GC events (read by the host) for the GC timeline. Returns the chunk iterator and a
   * suggested file name.
   */
  exportCsv(
    req: SessionExportReq,
    baseline?: { key: string; summary: TypeSummary },
    gcEvents?: GcAnalysis | null,
  ): { fileName: string; chunks: Generator<string, number> } {
    const stem = this.info.file.name.replace(/\.[^.]+$/, '');
    switch (req.view) {
      case 'types': {
        const order = this.types.order(req.sort, req.filter, this.analysis);
        const a = this.analysis;
        return { fileName: `${stem}-types.csv`, chunks: csvChunks(TYPES_CSV, { total: order.length, row: (i) => this.types.row(order[i], a) }) };
      }
      case 'objects': {
        const order = this.objects.order(req.typeIndex, req.sort, req.filter, req.generation, this.analysis, req.valueId);
        const a = this.analysis;
        const typeName = this.graph.types.names[req.typeIndex].replace(/[^\w.-]+/g, '_');
        return { fileName: `${stem}-${typeName}-objects.csv`, chunks: csvChunks(hasStringValues(this.graph) ? OBJECTS_WITH_VALUES_CSV : OBJECTS_CSV, { total: order.length, row: (i) => this.objects.row(order[i], a) }) };
      }
      case 'dominators': {
        const a = this.requireAnalysis();
        const parent = req.node ?? this.graph.rootIndex;
        checkNode(this.graph, parent);
        const { start: begin, end } = childRange(a, parent);
        return { fileName: `${stem}-dominators.csv`, chunks: csvChunks(DOMINATORS_CSV, { total: end - begin, row: (i) => this.dominators.row(a, a.domChildren[begin + i]) }) };
      }
      case 'diff': {
        if (!baseline) throw new AppError('usage/bad-argument', 'a diff export needs its baseline');
        const rows = this.diffView.allRows(baseline.key, baseline.summary, this.typeSummary(), req);
        return { fileName: `${stem}-diff.csv`, chunks: csvChunks(DIFF_CSV, arraySource(rows)) };
      }
      case 'generations':
        return { fileName: `${stem}-generations.csv`, chunks: csvChunks(GENERATIONS_CSV, arraySource(this.generations({ topTypes: 0 }).rows)) };
      case 'gc-timeline': {
        if (!this.hasGcEvents) throw new AppError('usage/bad-argument', this.gcTimeline().reason ?? 'no GC events in this snapshot');
        if (!gcEvents) throw new AppError('usage/bad-argument', 'the GC events of this trace have not been read');
        return { fileName: `${stem}-gc-timeline.csv`, chunks: csvChunks(GC_TIMELINE_CSV, arraySource(gcEvents.gcs.map(gcEventDto))) };
      }
      case 'strings': {
        const rows = this.stringsView.allRows(this.requireAnalysis(), req);
        return { fileName: `${stem}-strings.csv`, chunks: csvChunks(STRINGS_CSV, rows) };
      }
      case 'paths': {
        const p = this.pathsToRoots({ target: req.target, maxPaths: req.maxPaths });
        if (p.kind === 'object') {
          return { fileName: `${stem}-paths-${p.node}.csv`, chunks: csvChunks(PATH_STEPS_CSV, arraySource(pathStepRows(p.paths))) };
        }
        return { fileName: `${stem}-paths-${p.type.replace(/[^\w.-]+/g, '_')}.csv`, chunks: csvChunks(PATH_BRANCHES_CSV, arraySource(p.nodes)) };
      }
    }
  }

}

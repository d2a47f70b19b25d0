import type { HeapGraph } from '../../graph/heap-graph.js';
import { formatAddress } from '../../graph/heap-graph.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { NEVER_CANCELLED } from '../../util/cancellation.js';
import type { DominanceAnalysis } from '../analyze.js';
import { generationBreakdown, type GenerationRow } from '../generation-breakdown.js';
import { baselineOf, runInspections, type Finding, type InspectionBaseline, type LargeHeapShare, type UnavailableInspection } from '../inspections/index.js';
import { describePath, shortestPath, shortestPathTree, type PathStep } from '../paths-to-roots.js';
import { computeTypeStats } from '../type-stats.js';
import { accumulationPoint, BIG_DROP_PERCENT } from './accumulation-point.js';
import { biggestRetainers } from './biggest-retainers.js';

/**
 * The leak-suspects report (MAT's "Leak Suspects", on exact dominators): one JSON model, built
 * here from one analysed snapshot (and optionally a baseline reduced by `suspectsBaselineOf`),
 * rendered to Markdown and HTML by render-markdown.ts / render-html.ts. The CLI (`heapscope
 * suspects`), the app's Export report and the MCP server all call `buildSuspectsReport`.
 *
 * Deterministic: every figure comes from the file; nothing depends on the clock, the machine or
 * the order of a Map, so the same file always gives the same bytes.
 *
 * Cost: one type-stats pass, one generation pass, the inspections (a few O(nodes) passes), and,
 * when there are suspects, one BFS for the shortest paths (12 bytes per node while it runs).
 */
export const REPORT_VERSION = 1;
export const DEFAULT_THRESHOLD_PERCENT = 10;
export const DEFAULT_MAX_SUSPECTS = 20;
export const DEFAULT_FINDINGS_PER_KIND = 5;
/** Paths longer than this keep their first PATH_HEAD and last MAX_PATH_STEPS − PATH_HEAD steps. */
export const MAX_PATH_STEPS = 40;
export const PATH_HEAD = 4;

/** What a baseline snapshot contributes: small (types and fields), so its graph can go first. */
export interface SuspectsBaseline {
  label: string;
  objects: number;
  reachableObjects: number;
  reachableBytes: number;
  inspection: InspectionBaseline;
}

export function suspectsBaselineOf(g: HeapGraph, a: DominanceAnalysis, label: string): SuspectsBaseline {
  return { label, objects: computeTypeStats(g).objectCount, reachableObjects: a.reachableObjectCount, reachableBytes: a.reachableSize, inspection: baselineOf(g, a, label) };
}

export interface SuspectsOptions {
  /** File name shown in the report (no directory, so reports do not leak paths). */
  fileName: string;
  /** Suspects retain at least this percentage of the reachable bytes (0 < p ≤ 100; default 10). */
  thresholdPercent?: number;
  baseline?: SuspectsBaseline | null;
  maxSuspects?: number;
  /** Findings kept per inspection kind, largest first (default 5). */
  findingsPerKind?: number;
  token?: CancellationToken;
}

export interface ReportObject {
  node: number;
  type: string;
  address: string;
  shallowSize: number;
  retainedSize: number;
  /** retainedSize / reachable bytes × 100, rounded to 2 decimals. */
  percentOfReachable: number;
}

export interface ReportAccumulationPoint extends ReportObject {
  /** Dominator-tree steps below the suspect (0: the suspect is its own accumulation point). */
  depth: number;
  childCount: number;
  /** Most frequent type among the objects it immediately dominates (null without any). */
  elementType: string | null;
  elementCount: number;
  elementRetained: number;
}

export interface ReportPath {
  /** Edges from the root to the suspect. */
  length: number;
  rootCategory: string | null;
  rootDetail: string | null;
  /** Root first, suspect last; a long path keeps its ends (see `elidedSteps`). */
  steps: PathStep[];
  /** Steps left out after the first PATH_HEAD ones (0 for a path of at most MAX_PATH_STEPS steps). */
  elidedSteps: number;
}

export interface Suspect extends ReportObject {
  rank: number;
  accumulationPoint: ReportAccumulationPoint;
  /** Shortest chain of strong references from the root (paths-to-roots.ts). */
  path: ReportPath;
}

export interface ReportSummary {
  format: string;
  formatVersion: string | null;
  creationTool: string | null;
  processName: string | null;
  timeCollected: string | null;
  /** Heap objects (pseudo-nodes and undefined nodes not counted) and Σ their shallow sizes. */
  objects: number;
  objectBytes: number;
  reachableObjects: number;
  /** Bytes reachable from the root over strong references = retained size of the root. */
  reachableBytes: number;
  unreachableObjects: number;
  unreachableBytes: number;
  /** Types with at least one heap object. */
  types: number;
  references: number;
}

export interface ReportGrowth {
  baseline: string;
  baselineObjects: number;
  baselineReachableBytes: number;
  objectsDelta: number;
  reachableBytesDelta: number;
  /** growth-type, growth-static (inspections/growth.ts) and growth-retainer (growth-retainers.ts) findings, largest growth first. */
  findings: Finding[];
}

export interface SuspectsReport {
  reportVersion: number;
  file: string;
  summary: ReportSummary;
  thresholdPercent: number;
  thresholdBytes: number;
  bigDropPercent: number;
  suspects: Suspect[];
  /** Objects at or above the threshold, listed or not (the list stops at maxSuspects). */
  suspectCount: number;
  /** Σ retained of the listed suspects (never nested, so no byte counted twice). */
  suspectBytes: number;
  findings: Finding[];
  largeHeapShare: LargeHeapShare | null;
  unavailable: UnavailableInspection[];
  generations: { hasGenerationData: boolean; message: string | null; rows: GenerationRow[] | null; largeBySize: { count: number; bytes: number; threshold: number } };
  growth: ReportGrowth | null;
}

export function buildSuspectsReport(g: HeapGraph, a: DominanceAnalysis, opts: SuspectsOptions): SuspectsReport {
  const token = opts.token ?? NEVER_CANCELLED;
  const thresholdPercent = opts.thresholdPercent ?? DEFAULT_THRESHOLD_PERCENT;
  const reachable = a.reachableSize;
  // a suspect must retain something: a 0-byte heap cannot make every object one
  const thresholdBytes = Math.max(1, Math.ceil((thresholdPercent * reachable) / 100));
  const percent = (bytes: number) => (reachable > 0 ? Math.round((bytes / reachable) * 10000) / 100 : 0);
  const obj = (n: number): ReportObject => ({
    node: n,
    type: g.types.names[g.nodeType[n]],
    address: formatAddress(g, n),
    shallowSize: g.selfSize[n],
    retainedSize: a.retainedSize[n],
    percentOfReachable: percent(a.retainedSize[n]),
  });

  const stats = computeTypeStats(g, token);
  let types = 0;
  for (let t = 0; t < stats.count.length; t++) if (stats.count[t] > 0) types++;
  const m = g.metadata;
  const summary: ReportSummary = {
    format: m.format,
    formatVersion: m.formatVersion,
    creationTool: m.creationTool,
    processName: m.processName,
    timeCollected: m.timeCollected,
    objects: stats.objectCount,
    objectBytes: stats.objectSize,
    reachableObjects: a.reachableObjectCount,
    reachableBytes: reachable,
    unreachableObjects: a.unreachableObjectCount,
    unreachableBytes: a.unreachableObjectSize,
    types,
    references: g.edgeCount,
  };

  const big = biggestRetainers(g, a, thresholdBytes, opts.maxSuspects ?? DEFAULT_MAX_SUSPECTS, token);
  const spt = big.nodes.length > 0 ? shortestPathTree(g, { token }) : null;
  const suspects = big.nodes.map((n, i): Suspect => {
    const p = accumulationPoint(g, a, n, BIG_DROP_PERCENT, token);
    return {
      rank: i + 1,
      ...obj(n),
      accumulationPoint: {
        ...obj(p.node),
        depth: p.depth,
        childCount: p.childCount,
        elementType: p.elementType < 0 ? null : g.types.names[p.elementType],
        elementCount: p.elementCount,
        elementRetained: p.elementRetained,
      },
      path: reportPath(g, shortestPath(spt!, n)!),
    };
  });

  const r = runInspections(g, a, { token, top: opts.findingsPerKind ?? DEFAULT_FINDINGS_PER_KIND, baseline: opts.baseline?.inspection ?? null });
  const isGrowth = (f: Finding) => f.kind === 'growth-type' || f.kind === 'growth-static' || f.kind === 'growth-retainer';
  const b = opts.baseline ?? null;
  const gens = generationBreakdown(g, token);
  return {
    reportVersion: REPORT_VERSION,
    file: opts.fileName,
    summary,
    thresholdPercent,
    thresholdBytes,
    bigDropPercent: BIG_DROP_PERCENT,
    suspects,
    suspectCount: big.total,
    suspectBytes: suspects.reduce((s, x) => s + x.retainedSize, 0),
    findings: r.findings.filter((f) => !isGrowth(f)),
    largeHeapShare: r.largeHeapShare,
    unavailable: r.unavailable,
    generations: { hasGenerationData: gens.hasGenerationData, message: gens.message, rows: gens.generations, largeBySize: gens.largeBySize },
    growth: b
      ? {
          baseline: b.label,
          baselineObjects: b.objects,
          baselineReachableBytes: b.reachableBytes,
          objectsDelta: summary.objects - b.objects,
          reachableBytesDelta: reachable - b.reachableBytes,
          findings: r.findings.filter(isGrowth),
        }
      : null,
  };
}

function reportPath(g: HeapGraph, nodes: Uint32Array): ReportPath {
  const d = describePath(g, nodes);
  const elided = d.steps.length > MAX_PATH_STEPS ? d.steps.length - MAX_PATH_STEPS : 0;
  const steps = elided > 0 ? [...d.steps.slice(0, PATH_HEAD), ...d.steps.slice(PATH_HEAD + elided)] : d.steps;
  return { length: d.length, rootCategory: d.rootCategory, rootDetail: d.rootDetail, steps, elidedSteps: elided };
}

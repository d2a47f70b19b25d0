import { analyzeDominance, type DominanceAnalysis } from '../../shared/analysis/analyze.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { summarizeTypes, type TypeSummary } from '../../shared/analysis/type-summary.js';
import { flag, type FlagSpec, type ParsedArgs } from './args.js';
import { loadSnapshot, ttyProgress, type LoadedSnapshot, type SnapshotSelect } from './load.js';
import { OUTPUT_FORMATS, type OutputFormat, type Writer } from './output.js';

/**
 * Shared plumbing of the analysis commands (dominators, paths, diff, trend): open a file, run the
 * dominator analysis with a terminal-only progress line, and the common --format flag. No command
 * here needs the retainer index (paths builds its own), so it is never built.
 */
export interface AnalyzedSnapshot extends LoadedSnapshot {
  analysis: DominanceAnalysis;
}

/** `transform`: the graph to analyse instead of the file's (the what-if flags, ignore-flags.ts). */
export async function loadAnalyzed(path: string, stderr: Writer, select: SnapshotSelect = {}, transform?: (g: HeapGraph) => HeapGraph): Promise<AnalyzedSnapshot> {
  const file = await loadSnapshot(path, stderr, select);
  const loaded = transform ? { ...file, graph: transform(file.graph) } : file;
  const line = select.progress ? { sink: select.progress, clear() {} } : ttyProgress(stderr, loaded.name);
  try {
    return { ...loaded, analysis: analyzeDominance(loaded.graph, { progress: line.sink, token: select.token }) };
  } finally {
    line.clear();
  }
}

/**
 * One snapshot reduced to its per-type summary. The graph and analysis are dropped on return, so
 * a diff or trend over several big files holds one graph at a time.
 */
export async function loadSummary(path: string, stderr: Writer, select: SnapshotSelect = {}): Promise<TypeSummary> {
  const s = await loadAnalyzed(path, stderr, select);
  return summarizeTypes(s.graph, s.analysis, s.name);
}

export const FORMAT_FLAG: FlagSpec = { value: true, choices: OUTPUT_FORMATS };

export function formatOf(args: ParsedArgs): OutputFormat {
  return (flag(args, 'format') ?? 'table') as OutputFormat;
}

/** part / whole × 100, rounded to 2 decimals (0 when whole is 0). */
export function percentOf(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 10000) / 100 : 0;
}

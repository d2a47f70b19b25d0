import type { HeapGraph } from '../graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';

/**
 * A compact per-type summary of one snapshot: what crosses between workers (and into files) for
 * diffs and trends, instead of the graphs.
 *
 * Object identity is not stable between dumps, so a summary is keyed by type NAME: type indices
 * that share a name (the same class from two modules, or a type table with repeats) are merged
 * into one row by summing. Retained sizes of merged rows are summed as well, which double-counts
 * when an instance of one dominates an instance of the other; that case is rare and the summary
 * says nothing finer than the name anyway.
 *
 * Size: one row per type name with at least one node (thousands, never per object). Plain arrays
 * and numbers, so it survives structured clone and JSON unchanged.
 */
export interface TypeSummaryRow {
  name: string;
  /** Module path of the first type with this name that has one, else null. */
  module: string | null;
  /** Heap objects of the type, unreachable ones included (pseudo and undefined nodes excluded, as in `report`). */
  count: number;
  /** Σ self size of those nodes. */
  shallow: number;
  /** The analysis' retained size for the type (reachable instances only). */
  retained: number;
}

export interface TypeSummary {
  /** What the user calls this snapshot (usually the file name). */
  label: string;
  processName: string | null;
  processId: number;
  timeCollected: string | null;
  /** Σ count, Σ shallow over every row (heap objects only). */
  totalCount: number;
  totalShallow: number;
  /** Bytes reachable from the root (the root's retained size); the "*" row of diffs. */
  totalRetained: number;
  /** Sorted by name (code-unit order) for stable output and merge-style comparisons. */
  types: TypeSummaryRow[];
}

/** The parts of a HeapAnalysis a summary needs (HeapAnalysis satisfies it). */
export interface RetainedByType {
  readonly typeRetained: Float64Array;
  readonly reachableSize: number;
}

export function summarizeTypes(g: HeapGraph, analysis: RetainedByType, label: string, token: CancellationToken = NEVER_CANCELLED): TypeSummary {
  const tc = g.types.count;
  const count = new Float64Array(tc);
  const shallow = new Float64Array(tc);
  const { nodeType, selfSize, nodeFlags } = g;
  for (let n = 0; n < g.nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    if (nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
    const t = nodeType[n];
    count[t]++;
    shallow[t] += selfSize[n];
  }
  const byName = new Map<string, TypeSummaryRow>();
  let totalCount = 0;
  let totalShallow = 0;
  for (let t = 0; t < tc; t++) {
    if (count[t] === 0) continue;
    totalCount += count[t];
    totalShallow += shallow[t];
    const name = g.types.names[t];
    const row = byName.get(name);
    if (row) {
      row.count += count[t];
      row.shallow += shallow[t];
      row.retained += analysis.typeRetained[t];
      row.module ??= g.types.modules[t];
    } else {
      byName.set(name, { name, module: g.types.modules[t], count: count[t], shallow: shallow[t], retained: analysis.typeRetained[t] });
    }
  }
  const types = [...byName.values()].sort((a, b) => compareNames(a.name, b.name));
  const m = g.metadata;
  return {
    label,
    processName: m.processName,
    processId: m.processId,
    timeCollected: m.timeCollected,
    totalCount,
    totalShallow,
    totalRetained: analysis.reachableSize,
    types,
  };
}

/** Code-unit order: locale-independent, so summaries sort the same on every machine. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Row lookup by name (a Map over the rows: types are few). */
export function rowsByName(s: TypeSummary): Map<string, TypeSummaryRow> {
  return new Map(s.types.map((r) => [r.name, r]));
}

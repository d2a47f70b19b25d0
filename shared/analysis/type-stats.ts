import type { HeapGraph } from '../graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../graph/heap-graph.js';
import { isSampled } from '../graph/metadata.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';

export { snapshotWarnings, type SnapshotWarning, type SnapshotWarningCode } from './snapshot-warnings.js';
export { rootCategories, type RootCategory, type RootSummary, type RootCount } from './root-categories.js';

/**
 * Per-type object counts and shallow sizes: the "type table" of a snapshot.
 *
 * Only real heap objects count. Pseudo-nodes (the root, "[static vars]", a "[static var X.f]"
 * holder) and UNDEFINED nodes (referenced but never described) are tallied separately and never
 * appear in `count`, so "objects" here is smaller than the file's node count (dotnet-gcdump's own
 * `report` prints the node count as "GC Heap objects"; we do not).
 *
 * Sampled dumps (PerfView's ClrMD HeapDump above 250,000 objects, gcdump spec §5.6) are scaled
 * the way PerfView's MemoryGraphStackSource does it: with `countMultipliersByType`, every node of
 * type t counts as m[t] objects and m[t]·size bytes. A file that carries only the average
 * multipliers (no per-type array) gets count × averageCountMultiplier and size ×
 * averageSizeMultiplier per type; PerfView itself would not scale such a file at all.
 *
 * Cost: one pass over the nodes; memory 4 + 8 (+ 16 when sampled) bytes per type.
 */
export interface TypeStats {
  /** Heap objects per type index (pseudo and undefined nodes excluded). */
  readonly count: Uint32Array;
  /** Σ selfSize per type index (a double: sums pass 2^32). */
  readonly shallowSize: Float64Array;
  /** Whether the dump was sampled; when true the scaled columns are the estimate of the real heap. */
  readonly sampled: boolean;
  /** count × multiplier per type; null when not sampled. */
  readonly scaledCount: Float64Array | null;
  /** shallowSize × multiplier per type; null when not sampled. */
  readonly scaledShallowSize: Float64Array | null;
  /** Heap objects in the graph (= Σ count). */
  readonly objectCount: number;
  /** Σ selfSize of heap objects (equals graph.totalSize unless a pseudo-node has a size). */
  readonly objectSize: number;
  /** Estimated objects / bytes of the original heap (= objectCount / objectSize when not sampled). */
  readonly scaledObjectCount: number;
  readonly scaledObjectSize: number;
  /** Pseudo-nodes (root, categories, static-var holders) that are not undefined. */
  readonly pseudoNodeCount: number;
  /** Nodes referenced but never described. */
  readonly undefinedNodeCount: number;
}

export function computeTypeStats(g: HeapGraph, token: CancellationToken = NEVER_CANCELLED): TypeStats {
  const typeCount = g.types.count;
  const count = new Uint32Array(typeCount);
  const shallowSize = new Float64Array(typeCount);
  const { nodeCount, nodeType, selfSize, nodeFlags } = g;
  let pseudoNodeCount = 0;
  let undefinedNodeCount = 0;
  for (let i = 0; i < nodeCount; i++) {
    if ((i & 0xffff) === 0) token.throwIfCancelled();
    const f = nodeFlags[i];
    if (f & (NODE_PSEUDO | NODE_UNDEFINED)) {
      if (f & NODE_UNDEFINED) undefinedNodeCount++;
      else pseudoNodeCount++;
      continue;
    }
    const t = nodeType[i];
    count[t]++;
    shallowSize[t] += selfSize[i];
  }
  let objectCount = 0;
  let objectSize = 0;
  for (let t = 0; t < typeCount; t++) {
    objectCount += count[t];
    objectSize += shallowSize[t];
  }

  const m = g.metadata;
  const sampled = isSampled(m);
  let scaledCount: Float64Array | null = null;
  let scaledShallowSize: Float64Array | null = null;
  let scaledObjectCount = objectCount;
  let scaledObjectSize = objectSize;
  if (sampled) {
    scaledCount = new Float64Array(typeCount);
    scaledShallowSize = new Float64Array(typeCount);
    const perType = m.countMultipliersByType;
    scaledObjectCount = 0;
    scaledObjectSize = 0;
    for (let t = 0; t < typeCount; t++) {
      // PerfView indexes the multipliers by the sampled graph's type index; a type past the end
      // of the array (a malformed file) is left unscaled rather than guessed.
      const cm = perType ? (t < perType.length ? perType[t] : 1) : m.averageCountMultiplier;
      const sm = perType ? cm : m.averageSizeMultiplier;
      scaledCount[t] = count[t] * cm;
      scaledShallowSize[t] = shallowSize[t] * sm;
      scaledObjectCount += scaledCount[t];
      scaledObjectSize += scaledShallowSize[t];
    }
  }
  return {
    count,
    shallowSize,
    sampled,
    scaledCount,
    scaledShallowSize,
    objectCount,
    objectSize,
    scaledObjectCount,
    scaledObjectSize,
    pseudoNodeCount,
    undefinedNodeCount,
  };
}

/** One row of the type table (only types with at least one heap object get a row). */
export interface TypeRow {
  typeIndex: number;
  name: string;
  /** Module path as stored in the snapshot, or null. */
  module: string | null;
  count: number;
  shallowSize: number;
  /** Null when the dump was not sampled. */
  scaledCount: number | null;
  scaledShallowSize: number | null;
}

/** Rows for every type with objects, in type-index order (callers sort). */
export function typeRows(g: HeapGraph, stats: TypeStats): TypeRow[] {
  const rows: TypeRow[] = [];
  const { names, modules } = g.types;
  for (let t = 0; t < stats.count.length; t++) {
    if (stats.count[t] === 0) continue;
    rows.push({
      typeIndex: t,
      name: names[t],
      module: modules[t],
      count: stats.count[t],
      shallowSize: stats.shallowSize[t],
      scaledCount: stats.scaledCount ? stats.scaledCount[t] : null,
      scaledShallowSize: stats.scaledShallowSize ? stats.scaledShallowSize[t] : null,
    });
  }
  return rows;
}

/** The file-name part of a module path ("C:\\x\\System.Private.CoreLib.dll" → "System.Private.CoreLib.dll"). */
export function moduleFileName(module: string | null): string | null {
  if (module === null) return null;
  const cut = Math.max(module.lastIndexOf('/'), module.lastIndexOf('\\'));
  return cut >= 0 ? module.slice(cut + 1) : module;
}

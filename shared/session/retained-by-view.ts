import type { HeapAnalysis } from '../analysis/analyze.js';
import { isPseudo } from '../analysis/paths-to-roots.js';
import { AppError } from '../errors.js';
import type { RetainedBy, RetainedByRow } from '../ipc/contract.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';

/**
 * "Retained by" for one type (MAT's "immediate dominators", dotMemory's "group by dominators"),
 * issue 14: the type's reachable instances grouped by the type of their immediate dominator, with
 * the instance count and Σ retained size of the instances in each group. A pseudo-node dominator
 * (`[static vars]`, `[local vars]`, a root category) has its own name as its type, so objects held
 * only by statics show up as retained by `[static vars]`.
 *
 * `instances` are the type's heap objects as the Instances view lists them (ObjectView's bucket:
 * pseudo and undefined nodes excluded). Cost: O(instances) plus two Float64Arrays and one
 * Uint8Array per type (not per node); no sort but of the few resulting rows.
 */
export function retainedBy(
  g: HeapGraph,
  a: HeapAnalysis,
  typeIndex: number,
  instances: Uint32Array,
  totalSize: number,
  token: CancellationToken = NEVER_CANCELLED,
): RetainedBy {
  if (!Number.isInteger(typeIndex) || typeIndex < 0 || typeIndex >= g.types.count) {
    throw new AppError('usage/bad-argument', `no type with index ${typeIndex}`);
  }
  const tc = g.types.count;
  const count = new Float64Array(tc);
  const bytes = new Float64Array(tc);
  const pseudo = new Uint8Array(tc);
  const { idom, reachable, retainedSize } = a;
  const nodeType = g.nodeType;
  let reachableCount = 0;
  let unreachableCount = 0;
  for (let i = 0; i < instances.length; i++) {
    if ((i & 0xffff) === 0) token.throwIfCancelled();
    const x = instances[i];
    if (reachable[x] === 0) {
      unreachableCount++;
      continue;
    }
    const d = idom[x];
    if (d === NONE) continue; // the graph's root node: dominated by nothing
    reachableCount++;
    const dt = nodeType[d];
    if (count[dt] === 0 && isPseudo(g, d)) pseudo[dt] = 1;
    count[dt]++;
    bytes[dt] += retainedSize[x];
  }
  const rows: RetainedByRow[] = [];
  for (let t = 0; t < tc; t++) {
    if (count[t] === 0) continue;
    rows.push({
      typeIndex: t,
      type: g.types.names[t],
      pseudo: pseudo[t] === 1,
      self: t === typeIndex,
      count: count[t],
      retainedSize: bytes[t],
      retainedPercent: totalSize > 0 ? (bytes[t] / totalSize) * 100 : 0,
    });
  }
  rows.sort((x, y) => y.retainedSize - x.retainedSize || y.count - x.count || x.typeIndex - y.typeIndex);
  return { typeIndex, type: g.types.names[typeIndex], reachableCount, unreachableCount, typeRetainedSize: a.typeRetained[typeIndex], rows };
}

/**
 * The dominator objects of one "Retained by" row: for each object of type `dominatorType` that
 * immediately dominates instances of the asked type, how many and their Σ retained size; sorted
 * by that sum desc, ties by more instances, then ascending ordinal. The instances' dominators
 * are collected into typed arrays and sorted by ordinal (runs of one dominator are then summed),
 * so no Map keyed by node. Cost O(k log k) for the k matching instances; memory about 40 bytes each.
 */
export function retainedByObjects(
  g: HeapGraph,
  a: HeapAnalysis,
  dominatorType: number,
  instances: Uint32Array,
  token: CancellationToken = NEVER_CANCELLED,
): { nodes: Uint32Array; count: Float64Array; bytes: Float64Array } {
  if (!Number.isInteger(dominatorType) || dominatorType < 0 || dominatorType >= g.types.count) {
    throw new AppError('usage/bad-argument', `no type with index ${dominatorType}`);
  }
  const { idom, reachable, retainedSize } = a;
  const nodeType = g.nodeType;
  let k = 0;
  const doms = new Uint32Array(instances.length);
  const sizes = new Float64Array(instances.length);
  for (let i = 0; i < instances.length; i++) {
    if ((i & 0xffff) === 0) token.throwIfCancelled();
    const x = instances[i];
    if (reachable[x] === 0) continue;
    const d = idom[x];
    if (d === NONE || nodeType[d] !== dominatorType) continue;
    doms[k] = d;
    sizes[k++] = retainedSize[x];
  }
  const idx = new Uint32Array(k);
  for (let i = 0; i < k; i++) idx[i] = i;
  idx.sort((x, y) => doms[x] - doms[y]);
  let m = 0;
  const nodes = new Uint32Array(k);
  const count = new Float64Array(k);
  const bytes = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    const d = doms[idx[i]];
    if (m === 0 || nodes[m - 1] !== d) {
      nodes[m] = d;
      m++;
    }
    count[m - 1]++;
    bytes[m - 1] += sizes[idx[i]];
  }
  // order: Σ bytes desc, then count desc, then ordinal asc (nodes[] ascends, so position order is ordinal order)
  const pos = new Uint32Array(m);
  for (let i = 0; i < m; i++) pos[i] = i;
  pos.sort((x, y) => bytes[y] - bytes[x] || count[y] - count[x] || x - y);
  const outNodes = new Uint32Array(m);
  const outCount = new Float64Array(m);
  const outBytes = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    outNodes[i] = nodes[pos[i]];
    outCount[i] = count[pos[i]];
    outBytes[i] = bytes[pos[i]];
  }
  return { nodes: outNodes, count: outCount, bytes: outBytes };
}

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

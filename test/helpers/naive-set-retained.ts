import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { NODE_WEAK_EDGES } from '../../shared/graph/heap-graph.js';

/**
 * A type's set retained size by its definition, as an oracle: remove every instance of the type,
 * walk again from the root, and subtract what is still reached from what was reached before.
 * Plain arrays and a queue; no code shared with shared/analysis. References out of a
 * NODE_WEAK_EDGES node keep nothing alive (the dominator analysis' rule).
 */
export function naiveReachableWithout(g: HeapGraph, removedType: number): Uint8Array {
  const seen = new Uint8Array(g.nodeCount);
  if (g.nodeType[g.rootIndex] === removedType) return seen;
  const queue: number[] = [g.rootIndex];
  seen[g.rootIndex] = 1;
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head];
    if (g.nodeFlags[v] & NODE_WEAK_EDGES) continue;
    for (let e = g.firstEdge[v]; e < g.firstEdge[v + 1]; e++) {
      const w = g.edgeTarget[e];
      if (seen[w] === 0 && g.nodeType[w] !== removedType) {
        seen[w] = 1;
        queue.push(w);
      }
    }
  }
  return seen;
}

/** Bytes reachable now minus bytes reachable once every instance of `t` is gone (`before`: reachable now, if at hand). */
export function naiveSetRetained(g: HeapGraph, t: number, before = naiveReachableWithout(g, -1)): number {
  const after = naiveReachableWithout(g, t);
  let freed = 0;
  for (let v = 0; v < g.nodeCount; v++) if (before[v] === 1 && after[v] === 0) freed += g.selfSize[v];
  return freed;
}

import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { NODE_WEAK_EDGES, NONE } from '../../shared/graph/heap-graph.js';

/**
 * Dominators by their definition, as an oracle for the fast code (O(N·(N + E)), small graphs only).
 *
 * d dominates v ⟺ v is reachable from the root, and removing d makes v unreachable (through
 * references not out of a NODE_WEAK_EDGES node). Everything here is written from that definition
 * with plain arrays and shares no code with shared/analysis.
 */
export interface NaiveAnalysis {
  reachable: boolean[];
  /** NONE for the root and unreachable nodes. */
  idom: Uint32Array;
  /** dominated[d] = nodes strictly dominated by d. */
  dominated: number[][];
  /** self + Σ self of strictly dominated nodes; own size for unreachable nodes. */
  retained: number[];
  /** Per type: Σ self over the union of {x} ∪ dominated[x] for reachable instances x. */
  typeRetained: number[];
}

/** Nodes reachable from the root when `removed` is deleted (removed = -1: delete nothing). */
export function naiveReachable(g: HeapGraph, removed = -1): boolean[] {
  const seen: boolean[] = new Array<boolean>(g.nodeCount).fill(false);
  if (g.rootIndex === removed) return seen;
  const queue = [g.rootIndex];
  seen[g.rootIndex] = true;
  while (queue.length > 0) {
    const v = queue.pop()!;
    if (g.nodeFlags[v] & NODE_WEAK_EDGES) continue;
    for (let e = g.firstEdge[v]; e < g.firstEdge[v + 1]; e++) {
      const t = g.edgeTarget[e];
      if (t !== removed && !seen[t]) {
        seen[t] = true;
        queue.push(t);
      }
    }
  }
  return seen;
}

export function naiveAnalysis(g: HeapGraph): NaiveAnalysis {
  const n = g.nodeCount;
  const reachable = naiveReachable(g);
  const dominated: number[][] = [];
  const strictDominators: number[][] = Array.from({ length: n }, () => []);
  for (let d = 0; d < n; d++) {
    dominated.push([]);
    if (!reachable[d]) continue;
    const without = naiveReachable(g, d);
    for (let v = 0; v < n; v++) {
      if (v !== d && reachable[v] && !without[v]) {
        dominated[d].push(v);
        strictDominators[v].push(d);
      }
    }
  }
  // The immediate dominator is the strict dominator that all the others dominate: the deepest one.
  const idom = new Uint32Array(n).fill(NONE);
  for (let v = 0; v < n; v++) {
    let best = -1;
    for (const d of strictDominators[v]) if (best < 0 || strictDominators[d].length > strictDominators[best].length) best = d;
    if (best >= 0) idom[v] = best;
  }
  const retained: number[] = [];
  for (let v = 0; v < n; v++) {
    let sum = g.selfSize[v];
    for (const u of dominated[v]) sum += g.selfSize[u];
    retained.push(sum);
  }
  const typeRetained: number[] = new Array<number>(g.types.count).fill(0);
  for (let t = 0; t < g.types.count; t++) {
    const freed = new Array<boolean>(n).fill(false);
    for (let x = 0; x < n; x++) {
      if (g.nodeType[x] !== t || !reachable[x]) continue;
      freed[x] = true;
      for (const u of dominated[x]) freed[u] = true;
    }
    for (let v = 0; v < n; v++) if (freed[v]) typeRetained[t] += g.selfSize[v];
  }
  return { reachable, idom, dominated, retained, typeRetained };
}

import type { HeapGraph } from '../graph/heap-graph.js';
import { NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';

/**
 * Where a type's set retained walk has to look (set-retained.ts), from the dominator tree.
 *
 * Let c be the nearest common dominator of the type's reachable instances. Everything that
 * removing the instances frees lies in c's dominator subtree (a root path to a freed object
 * passes an instance, and c dominates every instance), and c itself stays reachable when c is not
 * an instance (the first c on any root path comes before every instance on it). So:
 *   - c is an instance: the whole subtree goes, and the figure is retainedSize[c] with no walk;
 *   - otherwise the figure is retainedSize[c] minus what c still reaches without entering an
 *     instance, and that walk can stay inside c's subtree: a path from c that leaves the subtree
 *     comes back only through c (the node it left to is reachable without c).
 * On real .NET heaps c is an instance for most types and the subtrees of the others are small (a
 * tenth of the reachable nodes or less on the fixtures' MAUI and WPF heaps, summed over all types);
 * types spread over the whole heap have c = the root and cost a full walk.
 */

/** Reachable instances grouped by type: those of t are `nodes[start[t] .. start[t + 1])`, ascending. */
export interface InstancesByType {
  readonly start: Uint32Array;
  readonly nodes: Uint32Array;
}

/** Counting sort of the reachable nodes by type. O(N); memory 4 bytes per reachable node + 4 per type. */
export function groupReachableInstances(g: HeapGraph, reachable: Uint8Array, token: CancellationToken = NEVER_CANCELLED): InstancesByType {
  const n = g.nodeCount;
  const nodeType = g.nodeType;
  const start = new Uint32Array(g.types.count + 1);
  let r = 0;
  for (let v = 0; v < n; v++) {
    if ((v & 0xffff) === 0) token.throwIfCancelled();
    if (reachable[v] === 0) continue;
    start[nodeType[v] + 1]++;
    r++;
  }
  for (let t = 0; t < g.types.count; t++) start[t + 1] += start[t];
  const fill = start.slice(0, g.types.count);
  const nodes = new Uint32Array(r);
  for (let v = 0; v < n; v++) {
    if ((v & 0xffff) === 0) token.throwIfCancelled();
    if (reachable[v] !== 0) nodes[fill[nodeType[v]]++] = v;
  }
  return { start, nodes };
}

/** The reachable instances of one type, by one pass over the nodes (when no grouping is at hand). */
export function reachableInstancesOf(g: HeapGraph, reachable: Uint8Array, t: number): Uint32Array {
  const out: number[] = [];
  for (let v = 0; v < g.nodeCount; v++) if (g.nodeType[v] === t && reachable[v] !== 0) out.push(v);
  return Uint32Array.from(out);
}

/**
 * The nearest common dominator of `instances` (reachable nodes, at least one). The ancestors of
 * the current answer are kept marked in `marks` (1 bit per node, all zero on entry, left dirty);
 * each further instance climbs its idom chain to the first marked node, which becomes the answer
 * when it lies above it. Gives up and answers the root after `budget` climbing steps: a long chain
 * of nested instances could otherwise cost depth × instances, and the root is always a correct
 * (if slower) answer.
 */
export function commonDominator(idom: Uint32Array, root: number, instances: Uint32Array, marks: Uint32Array, budget: number): number {
  let c = instances[0];
  let steps = 0;
  for (let u = c; u !== NONE; u = idom[u]) {
    marks[u >>> 5] |= 1 << (u & 31);
    if (++steps > budget) return root;
  }
  for (let i = 1; i < instances.length && c !== root; i++) {
    let u = instances[i];
    while ((marks[u >>> 5] & (1 << (u & 31))) === 0) {
      u = idom[u];
      if (++steps > budget) return root;
    }
    // u is on c's chain; when above c, the chain below u is no longer the answer's
    for (let w = c; w !== u; w = idom[w]) {
      marks[w >>> 5] &= ~(1 << (w & 31));
      if (++steps > budget) return root; // (u is on c's chain, so this ends at u; the budget bounds it regardless)
    }
    c = u;
  }
  return c;
}

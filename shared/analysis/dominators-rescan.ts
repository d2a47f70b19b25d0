import type { HeapGraph } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { countsOutEdges } from './counted-edges.js';

/**
 * The later predecessors (cross and back references) for the semidominator pass, found again
 * from the finished DFS numbering instead of being stored while the DFS runs.
 *
 * Why: the DFS's pair buckets (dominators-dfs.ts) hold 8 bytes per later predecessor while the
 * DFS runs, and grouping them into `pred` (4 bytes each) needs both at once: 12 bytes per pair
 * on top of the DFS's 20 per node, the peak of `heapscope report` (15 bytes per node on the
 * synthetic benchmark heap, 12.6M pairs for 10M objects). Here the only memory is `pred` itself.
 * The cost is two more passes over the counted references of reachable nodes, in ordinal
 * order: the edge rows are read sequentially and each target's preorder number at random, but
 * the reads do not depend on each other (unlike the DFS's chain), so their misses overlap.
 *
 * Which references qualify is the DFS's own rule: a counted reference v → u (v, u preorder
 * numbers) out of a reachable node is a later predecessor exactly when u < v. The DFS scans
 * every counted reference of every reachable node once, and classifies it by comparing the two
 * numbers when it scans it; a later predecessor u < v compares the same afterwards, since u was
 * numbered before v was entered. Forward and tree references (u > v) were already folded into
 * `semi` by the DFS. So the pairs are the same multiset as the buckets' (the order inside a run
 * differs, which the pass does not depend on: semi is a minimum).
 *
 * Layout of the result, for `semidominatorsForNca` with `marked`: runs by ascending u, the first
 * entry of each run has bit 31 set (RUN_START), and `semi[u]` has bit 31 set when u has a run.
 * Both values are preorder numbers, below 2^31 (graph-limits.ts caps nodes at 2^31 − 1), so the
 * bit is free. So no per-vertex array of run starts is needed: the pass walks `pred` backwards
 * and each run ends at its marked entry.
 *
 * `rec` is the DFS's node records (`stride` words per node, the preorder number first, 0 = not
 * reached); their second word is scratch here (a count, then a cursor): the first edge is read
 * from the graph's own column. Memory: `pred`, 4 bytes per later predecessor; nothing else.
 */
export const RUN_START = 0x80000000;

export function laterPredecessorsByRescan(
  g: HeapGraph,
  rec: Uint32Array,
  stride: number,
  vertex: Uint32Array,
  semi: Uint32Array,
  reachableCount: number,
  token: CancellationToken,
): Uint32Array {
  const n = g.nodeCount;
  for (let t = 0; t < n; t++) {
    if ((t & 0xffff) === 0) token.throwIfCancelled();
    rec[stride * t + 1] = 0;
  }
  const pairCount = countLaterPredecessors(g, rec, stride, token);
  const withSpare = new Uint32Array(pairCount + 1); // one spare word: fillLaterPredecessors
  const pred = withSpare.subarray(0, pairCount);
  // Run starts by ascending u, left in rec as each node's fill cursor with RUN_START set: the
  // fill's first write to a run carries the mark and clears it from the cursor.
  let sum = 0;
  for (let u = 1; u <= reachableCount; u++) {
    if ((u & 0xffff) === 0) token.throwIfCancelled();
    const at = stride * vertex[u] + 1;
    const k = rec[at];
    if (k === 0) continue;
    rec[at] = sum | RUN_START;
    semi[u] |= RUN_START;
    sum += k;
  }
  fillLaterPredecessors(g, rec, stride, withSpare, token);
  return pred;
}

/** The first pass: per target, how many later predecessors it has (in rec's second word); returns the total. */
function countLaterPredecessors(g: HeapGraph, rec: Uint32Array, stride: number, token: CancellationToken): number {
  const { nodeCount: n, firstEdge, edgeTarget, nodeFlags } = g;
  let pairs = 0;
  for (let src = 0; src < n; src++) {
    if ((src & 0xffff) === 0) token.throwIfCancelled();
    const v = rec[stride * src];
    if (v === 0 || !countsOutEdges(nodeFlags, src)) continue;
    for (let k = firstEdge[src], end = firstEdge[src + 1]; k < end; k++) {
      const at = stride * edgeTarget[k];
      // branch-free: about half the references qualify, at random, so a branch mispredicts often
      const later = (rec[at] - v) >>> 31;
      rec[at + 1] += later;
      pairs += later;
    }
  }
  return pairs;
}

/**
 * The second pass: the same references, each source written at its target's cursor. A cursor
 * with RUN_START set is its run's first slot: the write carries the mark, and the cursor moves
 * on without it. So each write is a plain store (a read-modify-write of `pred` would add a
 * second random load per pair to the cursor's).
 */
function fillLaterPredecessors(g: HeapGraph, rec: Uint32Array, stride: number, pred: Uint32Array, token: CancellationToken): void {
  const { nodeCount: n, firstEdge, edgeTarget, nodeFlags } = g;
  const spare = pred.length - 1;
  for (let src = 0; src < n; src++) {
    if ((src & 0xffff) === 0) token.throwIfCancelled();
    const v = rec[stride * src];
    if (v === 0 || !countsOutEdges(nodeFlags, src)) continue;
    for (let k = firstEdge[src], end = firstEdge[src + 1]; k < end; k++) {
      const at = stride * edgeTarget[k];
      // branch-free as above: a reference that does not qualify writes the spare last word and
      // leaves the cursor (and its mark) as it was
      const later = (rec[at] - v) >>> 31;
      const c = rec[at + 1];
      const slot = c & ~RUN_START;
      pred[later === 1 ? slot : spare] = v | (c & RUN_START);
      rec[at + 1] = later === 1 ? slot + 1 : c;
    }
  }
}

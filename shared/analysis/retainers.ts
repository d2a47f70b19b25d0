import type { HeapGraph } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';

/**
 * The reverse of the reference graph, in CSR form: who points at `n` is
 * `retainerNode[firstRetainer[n] .. firstRetainer[n + 1])`.
 *
 * Every reference is kept, weak ones and those from unreachable objects included (the UI shows
 * them as "referenced by"); passes that only want live references filter with
 * `countsOutEdges` (counted-edges.ts). A node referenced twice by the same object appears twice.
 * Within a node's run the retainers are in ascending ordinal order (a property of the counting
 * sort), which makes the output deterministic.
 */
export interface Retainers {
  /** Length nodeCount + 1. */
  readonly firstRetainer: Uint32Array;
  /** Length edgeCount: source ordinals. */
  readonly retainerNode: Uint32Array;
}

/**
 * Counting sort of the edge array by target: one pass to count in-degrees, one prefix sum, one
 * pass to place each source. O(N + E) time, output 4(N + 1) + 4E bytes and no scratch: the
 * placement cursor is `firstRetainer` itself (filled from the end of each run and left pointing
 * at its start), the way DevTools' `buildRetainers` avoids a second N-sized array.
 */
export function buildRetainers(g: HeapGraph, token: CancellationToken = NEVER_CANCELLED, progress: ProgressSink = NO_PROGRESS): Retainers {
  const n = g.nodeCount;
  const e = g.edgeCount;
  const firstEdge = g.firstEdge;
  const edgeTarget = g.edgeTarget;
  const firstRetainer = new Uint32Array(n + 1);
  const retainerNode = new Uint32Array(e);
  progress('retainers', 0, n);
  token.throwIfCancelled();

  for (let i = 0; i < e; i++) {
    if ((i & 0xffff) === 0) token.throwIfCancelled();
    firstRetainer[edgeTarget[i]]++;
  }
  // Prefix sums as run ENDS: firstRetainer[t] = number of edges with target ≤ t.
  let sum = 0;
  for (let t = 0; t < n; t++) {
    sum += firstRetainer[t];
    firstRetainer[t] = sum;
  }
  firstRetainer[n] = sum;
  // Sources in descending order, each written just below its target's cursor: runs come out in
  // ascending source order and every cursor ends on its run's start.
  for (let src = n - 1; src >= 0; src--) {
    if ((src & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('retainers', n - src, n);
    }
    const begin = firstEdge[src];
    for (let k = firstEdge[src + 1]; k > begin; ) {
      k--;
      retainerNode[--firstRetainer[edgeTarget[k]]] = src;
    }
  }
  progress('retainers', n, n);
  return { firstRetainer, retainerNode };
}

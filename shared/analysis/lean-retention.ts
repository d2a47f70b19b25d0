import type { HeapGraph } from '../graph/heap-graph.js';
import { NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import type { OrderTree } from './dominator-tree.js';
import { buildOrderTree } from './dominator-tree.js';
import type { HelperThread } from './helper-thread.js';
import type { Dominators, LaterPredecessors } from './dominators.js';
import { computeDominatorPositions } from './dominators.js';
import { retainedByNodeInto } from './retained-sizes.js';
import type { TypeRetained } from './type-retained.js';
import { computeTypeRetained } from './type-retained.js';

/**
 * `heapscope report`'s analysis (analyzeTypeRetention without shared or prepared memory) in as
 * little memory as it can: every array after the dominators lives in a buffer the dominators
 * left dead, so nothing waits for V8 to free garbage (it frees a dead ArrayBuffer only when it
 * next collects, and a 10M-object run measured 17 bytes per node of dead scratch still resident
 * when the next phase allocated). Same arithmetic, same numbers as analyzeDominance (tested).
 *
 * Buffers, per node, on the compact DFS layout (V vertex 4, P parent 4, S semi 4, F forest 8,
 * Q pred 4 per later predecessor; dominators.ts):
 *   - `order` is V, `orderIdom` P (computeDominatorPositions: no `idom`, no `reachable` yet);
 *   - the per-node retained sizes go straight to F (retainedByNodeInto: no per-position
 *     column, which the per-type pass then reads through `order`);
 *   - the position tree: its run starts to S, its children to Q when Q is big enough;
 *   - the per-type pass's gathered types to P (`orderIdom` is dead once the tree exists);
 *     `reachable` is the one new column (1 byte per node);
 *   - `idom` from the tree, to P again.
 * So the peak past the dominators is V + P + S + F + max(Q, 4R) + 1 ≈ 25 bytes per node (26
 * on the synthetic benchmark heap, where Q is 5), about the dominators' own.
 */
export interface LeanResult {
  dom: Pick<Dominators, 'idom' | 'reachable' | 'order'>;
  retainedSize: Float64Array;
  /** One entry: the root's retained size (what retentionResult reads of it); empty with no nodes. */
  orderRetained: Float64Array;
  types: TypeRetained;
  /**
   * The position tree (`firstOrderChild` in S, `orderChild` in Q or its own array), for a caller
   * that builds the sorted dominator tree next (analyze.ts leanDominanceAnalysis); `order`'s
   * buffer (V) holds n + 1 words.
   */
  tree: OrderTree;
}

export function leanTypeRetention(g: HeapGraph, token: CancellationToken, progress: ProgressSink, later: LaterPredecessors = 'buckets', helper: HelperThread | null = null): LeanResult {
  const n = g.nodeCount;
  const pos = computeDominatorPositions(g, token, progress, 'auto', 'auto', false, null, later, helper);
  progress('dominators', 2 * n, 2 * n);
  const { order, orderIdom } = pos;
  const spare = pos.spare!; // never null without a DominatorScratch
  const r = order.length;
  const retainedSize = retainedByNodeInto(spare.forest.buffer as ArrayBuffer, g.selfSize, pos, token, progress);
  const rootRetained = r > 0 ? Float64Array.of(retainedSize[order[0]]) : EMPTY_F64;
  const tree = buildOrderTree(pos, token, false, spare.semi.buffer as ArrayBuffer, spare.pred.buffer as ArrayBuffer);
  const reachable = new Uint8Array(n);
  for (let j = 0; j < r; j++) {
    if ((j & 0xffff) === 0) token.throwIfCancelled();
    reachable[order[j]] = 1;
  }
  const types = computeTypeRetained(g, { order, reachable }, tree, retainedSize, token, progress, orderIdom.buffer as ArrayBuffer, true);
  const idom = idomFromTree(n, order, tree, new Uint32Array(orderIdom.buffer, 0, n), token);
  return { dom: { idom, reachable, order }, retainedSize, orderRetained: rootRetained, types, tree };
}

/** idom per node from the position tree (NONE for the root and unreachable nodes), into `into` (n words, overwritten). */
function idomFromTree(n: number, order: Uint32Array, tree: OrderTree, into: Uint32Array, token: CancellationToken): Uint32Array {
  const idom = into.subarray(0, n).fill(NONE);
  const { firstOrderChild, orderChild } = tree;
  for (let p = 0; p < order.length; p++) {
    if ((p & 0xffff) === 0) token.throwIfCancelled();
    const parent = order[p];
    for (let c = firstOrderChild[p], end = firstOrderChild[p + 1]; c < end; c++) idom[order[orderChild[c]]] = parent;
  }
  return idom;
}

const EMPTY_F64 = new Float64Array(0);

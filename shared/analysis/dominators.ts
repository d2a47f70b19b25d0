import type { HeapGraph } from '../graph/heap-graph.js';
import { MAX_TYPED_ARRAY_LENGTH } from '../graph/graph-limits.js';
import { NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';
import { newUint32Array, newUint8Array } from '../util/typed-arrays.js';
import { groupLaterPredecessors, numberByDfs, numberByDfsInline, type DfsNumbering } from './dominators-dfs.js';
import { nearestCommonAncestors } from './dominators-nca.js';
import { laterPredecessorsByRescan, RESCAN_PAD } from './dominators-rescan.js';
import type { HelperThread } from './helper-thread.js';
import { startPageTouch, stopPageTouch } from './page-touch.js';
import { semidominatorsForNca, semidominatorsWithBuckets, startSemidominatorPrefetch, stopSemidominatorPrefetch } from './dominators-semi.js';

/**
 * Immediate dominators of the reference graph, from `g.rootIndex`, over counted edges only.
 *
 * Algorithm: semidominators as in Lengauer & Tarjan, "A fast algorithm for finding dominators
 * in a flowgraph", ACM TOPLAS 1(1), 1979 ("simple" variant: path compression without balanced
 * linking), then immediate dominators by SEMI-NCA (Georgiadis, Tarjan & Werneck, "Finding
 * dominators in practice", JGAA 10(1), 2006): idom(w) is the nearest common ancestor of
 * parent(w) and semi(w) in the dominator tree built so far. The textbook climb to that ancestor
 * is quadratic on a long list whose tail is also held from elsewhere (the synthetic benchmark
 * heap has such lists: it cost 90M steps there and forced a full Lengauer–Tarjan rerun), so the
 * climb uses jump pointers and takes O(log depth) steps whatever the shape (dominators-nca.ts).
 * LT's own last step (semidominator buckets) stays available as `algorithm: 'lengauer-tarjan'`,
 * as a cross-check for the tests. Every step is iterative (explicit DFS stack, path compression
 * by pointer reversal), so a 10M-long reference chain cannot overflow the call stack.
 *
 * Unreachable policy: only nodes the root reaches through counted edges take part. The DFS walks
 * counted references only (`countsOutEdges`) and classifies each one it scans, so it alone
 * defines the flowgraph: a reference out of an unreachable node (a dead clique pointing into the
 * live heap) or a weak one is never seen, and dead objects cannot create a false second path into
 * live ones. Unreachable nodes and the root get idom NONE; analyze.ts says what their retained
 * sizes mean.
 *
 * Cost: O(E log N) time, bound by memory latency on big heaps: at 10M objects every array is
 * larger than the CPU cache and the DFS and the path compression chase pointers (1M objects run
 * 15–20 times faster than 10M, not 10). So all hot state lives in DFS-preorder numbering, where
 * related vertices sit close together; the fields one step reads share one small record; and the
 * loops load upcoming records early (dominators-dfs.ts, dominators-semi.ts say what each layout
 * measured). On the synthetic 10M-object, 25M-reference heap: DFS ~1.9 s, grouping 0.2 s,
 * semidominators ~1.5 s, NCA 0.15 s, the rest 0.3 s of CPU (noisy, shared machine).
 * Memory: outputs `idom` (4N), `reachable` (N), `order` and `orderIdom` (4R each, R = reachable
 * nodes). Scratch, dropped on return: 8 bytes per node of records (16 for 'lengauer-tarjan',
 * which also takes 4 more for bucket heads, and 16 for the inline DFS records of sparse heaps), `semi` 4, and per later predecessor (cross or
 * back reference) 8 bytes while the DFS runs and 4 after: about 12N + 12E bytes at worst,
 * 12N + 5E on the synthetic benchmark heap (12.6M later predecessors for 25M references).
 * With `later` = 'rescan' the per-predecessor cost is 4 bytes, never 12 at once, for two more
 * passes over the references (dominators-rescan.ts); `heapscope report` runs that way.
 */
export interface Dominators {
  /** idom[n] = immediate dominator of n; NONE for the root and for unreachable nodes. */
  readonly idom: Uint32Array;
  /** 1 when n is reachable from the root through counted edges. */
  readonly reachable: Uint8Array;
  /**
   * The reachable nodes in DFS preorder; order[0] is the root. A node's idom is an ancestor in
   * the DFS tree, so it always comes earlier: this is a parents-before-children order for the
   * dominator tree, and later passes work in these positions for locality.
   */
  readonly order: Uint32Array;
  /** orderIdom[j] = position in `order` of the idom of order[j] (< j); NONE for j = 0. */
  readonly orderIdom: Uint32Array;
  /** Which last step produced the result. */
  readonly algorithm: 'semi-nca' | 'lengauer-tarjan';
}

/** 'auto' is SEMI-NCA (it has no bad shape left); 'lengauer-tarjan' is the cross-check. */
export type DominatorAlgorithm = 'auto' | 'semi-nca' | 'lengauer-tarjan';

/**
 * The DFS's node records (dominators-dfs.ts): 'inline' (two targets in each record) when
 * references are at most twice the nodes, else 'compact'; tests force each.
 */
export type DfsLayout = 'auto' | 'compact' | 'inline';

/**
 * How the semidominator pass gets the later predecessors (cross and back references):
 * 'buckets' stores them while the DFS runs and groups them after (dominators-dfs.ts; 12 bytes
 * per pair at its peak, fast); 'rescan' finds them again in two passes over the references
 * after the DFS (dominators-rescan.ts; 4 bytes per pair, one list, but those passes cost about
 * as much CPU as the DFS itself). SEMI-NCA only: 'lengauer-tarjan' always uses the buckets.
 */
export type LaterPredecessors = 'buckets' | 'rescan';

/**
 * computeDominators' biggest scratch arrays, allocated and touched ahead of time, so their pages
 * are committed before the analysis needs them: the app prepares them in the analysis worker
 * while the parse finishes (ReadOptions.sizeHint). On the 2-core reference VM a first touch of a
 * page costs ~2–5 µs, and these are ~33 bytes per node (165 MB at 5M objects). Single use: the
 * DFS needs `forest` zeroed. Ignored when too small for the graph.
 */
export interface DominatorScratch {
  /** Graphs of up to this many nodes fit. */
  readonly nodes: number;
  /** nodes + 1 words each; `vertex` and `parent` become `order` and `orderIdom`. */
  readonly vertex: Uint32Array;
  readonly parent: Uint32Array;
  readonly semi: Uint32Array;
  /** Zero; 4(nodes + 1) words when references ≤ 2 × nodes (inline DFS records), else 2(nodes + 1). */
  readonly forest: Uint32Array;
  /** The outputs `idom` (filled with NONE) and `reachable` (zero, shared like `vertex`), `nodes` long. */
  readonly idom: Uint32Array;
  readonly reachable: Uint8Array;
}

/** Allocate and touch a DominatorScratch for a graph of about `nodes` nodes and `edges` references (`sharedMemory` as for computeDominators). */
export function prepareDominatorScratch(nodes: number, edges: number, sharedMemory = false): DominatorScratch {
  const vertex = newUint32Array(nodes + 1, sharedMemory).fill(0);
  const parent = newUint32Array(nodes + 1, sharedMemory).fill(0);
  const semi = new Uint32Array(nodes + 1).fill(0);
  const forest = new Uint32Array((inlineFits(nodes, edges) ? 4 : 2) * (nodes + 1)).fill(0);
  const idom = new Uint32Array(nodes).fill(NONE);
  const reachable = newUint8Array(nodes, sharedMemory).fill(0);
  return { nodes, vertex, parent, semi, forest, idom, reachable };
}

/**
 * Whether the inline DFS records (4 words per node, for sparse heaps) are the layout: they also
 * must fit one typed array (2^32 elements, graph-limits.ts), which 2^30 nodes or more do not;
 * the compact records (2 words per node) always do.
 */
export function inlineFits(nodes: number, edges: number): boolean {
  return edges <= 2 * nodes && 4 * (nodes + 1) <= MAX_TYPED_ARRAY_LENGTH;
}

/** The dominator tree over DFS positions only: Dominators without the per-node columns. */
export interface DominatorPositions {
  readonly order: Uint32Array;
  readonly orderIdom: Uint32Array;
  readonly algorithm: 'semi-nca' | 'lengauer-tarjan';
  /**
   * The scratch, garbage on return and never shared, for a caller that would rather reuse it
   * than commit new memory while V8 has not yet freed it: `semi` (n + 1 words), `forest`
   * (2 or 4 words per node + 1) and `pred` (one word per later predecessor). Null when the
   * scratch came from a DominatorScratch.
   */
  readonly spare: { readonly semi: Uint32Array; readonly forest: Uint32Array; readonly pred: Uint32Array } | null;
}

export function computeDominators(
  g: HeapGraph,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
  algorithm: DominatorAlgorithm = 'auto',
  layout: DfsLayout = 'auto',
  sharedMemory = false,
  scratch: DominatorScratch | null = null,
  later: LaterPredecessors = 'buckets',
): Dominators {
  const n = g.nodeCount;
  const work = 2 * n;
  const pos = computeDominatorPositions(g, token, progress, algorithm, layout, sharedMemory, scratch, later);
  const { order, orderIdom } = pos;
  const reachableCount = order.length;
  // Back from positions to node ordinals.
  token.throwIfCancelled();
  const ready = pos.spare === null && scratch !== null;
  // `idom` in the memory of `semi` (dead by now) rather than a fresh array beside it
  const idom = ready ? scratch.idom.subarray(0, n) : pos.spare !== null ? pos.spare.semi.subarray(0, n).fill(NONE) : new Uint32Array(n).fill(NONE);
  const reachable = ready ? scratch.reachable.subarray(0, n) : newUint8Array(n, sharedMemory);
  if (reachableCount > 0) reachable[order[0]] = 1;
  for (let j = 1; j < reachableCount; j++) {
    const node = order[j];
    idom[node] = order[orderIdom[j]];
    reachable[node] = 1;
  }
  progress('dominators', work, work);
  return { idom, reachable, order, orderIdom, algorithm: pos.algorithm };
}

/**
 * computeDominators minus its two node columns (`idom`, `reachable`), which a caller can derive
 * later from `order` and `orderIdom` when that keeps them out of its peak (analyze.ts
 * leanRetention). Ends the 'dominators' phase at 2n of 2n work only through computeDominators.
 */
export function computeDominatorPositions(
  g: HeapGraph,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
  algorithm: DominatorAlgorithm = 'auto',
  layout: DfsLayout = 'auto',
  sharedMemory = false,
  scratch: DominatorScratch | null = null,
  later: LaterPredecessors = 'buckets',
  helper: HelperThread | null = null,
): DominatorPositions {
  const n = g.nodeCount;
  const work = 2 * n;
  progress('dominators', 0, work);
  token.throwIfCancelled();

  const useBuckets = algorithm === 'lengauer-tarjan';
  const stride = useBuckets ? 4 : 2;
  // `order`, `orderIdom` and `reachable` are views of these: with `sharedMemory` they are born in
  // SharedArrayBuffers, so another thread can read them without a copy (analysis.worker.ts).
  const inline = layout === 'inline' || (layout === 'auto' && inlineFits(n, g.edgeCount));
  const forestWords = (inline ? 4 : stride) * (n + 1);
  const ready = scratch !== null && scratch.nodes >= n && scratch.forest.length >= forestWords && (scratch.vertex.buffer instanceof SharedArrayBuffer) === sharedMemory;
  const rescan = later === 'rescan' && !useBuckets;
  // a rescan helper (another thread) reads the DFS records, and needs its dummy record past them;
  // it also commits the DFS's fresh scratch pages first (below), so those are shared too
  const helped = rescan && helper !== null && !ready;
  const vertex = ready ? scratch.vertex.subarray(0, n + 1) : newUint32Array(n + 1, sharedMemory || helped); // preorder → node
  const parent = ready ? scratch.parent.subarray(0, n + 1) : newUint32Array(n + 1, sharedMemory || helped); // DFS parent, then dom[v]
  const semi = ready ? scratch.semi.subarray(0, n + 1) : newUint32Array(n + 1, helped);
  // One scratch array, three lives: the DFS's node records (2 words per node), then the forest
  // of LT's LINK/EVAL (`stride` words per preorder vertex, see dominators-semi.ts), then the
  // jump pointers of the NCA step (2 words per vertex).
  const forest = ready ? scratch.forest.subarray(0, forestWords) : newUint32Array(forestWords + (helped ? RESCAN_PAD : 0), helped);
  // With the rescan the DFS reports its numbering at half scale (0 to n/2 of the 2n work) and
  // the rescan the rest of the first half: on big heaps the two take about as long.
  const dfsProgress: ProgressSink = rescan ? (phase, done, total) => progress(phase, Math.floor(done / 2), total) : progress;
  // The helper, idle during the DFS, commits the pages the DFS will write (page-touch.ts): the
  // records from their end (the DFS fills them from the front first, quickly), then the columns
  // it writes in preorder, at its slower pace, from the front.
  const touch = helped ? startPageTouch(helper!, [{ array: forest, backward: true }, ...[vertex, parent, semi].map((array) => ({ array, backward: false }))]) : null;
  let dfs: DfsNumbering;
  try {
    dfs = (inline ? numberByDfsInline : numberByDfs)(g, forest, vertex, parent, semi, token, dfsProgress, work, !rescan);
  } finally {
    if (touch !== null) stopPageTouch(helper!, touch);
  }
  const reachableCount = dfs.count;
  let pred: Uint32Array;
  if (!rescan) {
    for (let w = 1; w <= reachableCount; w++) forest[stride * w] = parent[w];
    pred = groupLaterPredecessors(dfs, forest, stride, token);
    dfs.pairs = EMPTY; // 8 bytes per later predecessor: garbage from here on
  } else {
    const half = Math.floor(n / 2);
    const rescanProgress = (f: number) => progress('dominators', half + Math.floor((n - half) * f), work);
    pred = laterPredecessorsByRescan(g, forest, inline ? 4 : 2, vertex, semi, reachableCount, token, helped ? helper : null, rescanProgress);
    for (let w = 1; w <= reachableCount; w++) forest[stride * w] = parent[w];
  }
  progress('dominators', n, work);
  const dom = parent;
  if (useBuckets) {
    const bucketHead = new Uint32Array(reachableCount + 1);
    semidominatorsWithBuckets(pred, forest, semi, bucketHead, dom, reachableCount, token, progress, n, work);
    // LT step 4: explicit dominators in preorder.
    for (let i = 2; i <= reachableCount; i++) {
      if (dom[i] !== semi[i]) dom[i] = dom[dom[i]];
    }
  } else {
    // the helper thread, idle otherwise, loads the pass's records ahead of it (dominators-semi.ts)
    const control = helped ? startSemidominatorPrefetch(helper!, pred, forest) : null;
    try {
      semidominatorsForNca(pred, forest, semi, reachableCount, token, progress, n, work, rescan, control);
    } finally {
      if (control !== null) stopSemidominatorPrefetch(helper!, control);
    }
    nearestCommonAncestors(dom, semi, forest, reachableCount, token);
  }
  // To 0-based positions in place: orderIdom[j] = dom[j + 1] - 1.
  for (let i = 2; i <= reachableCount; i++) dom[i]--;
  dom[1] = NONE;
  return {
    order: vertex.subarray(1, reachableCount + 1),
    orderIdom: dom.subarray(1, reachableCount + 1),
    algorithm: useBuckets ? 'lengauer-tarjan' : 'semi-nca',
    spare: ready ? null : { semi, forest, pred },
  };
}

const EMPTY = new Uint32Array(0);

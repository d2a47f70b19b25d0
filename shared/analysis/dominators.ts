import type { HeapGraph } from '../graph/heap-graph.js';
import { NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';
import { countsOutEdges } from './counted-edges.js';
import { nearestCommonAncestors } from './dominators-nca.js';

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
 * related vertices sit close together; the fields one step reads share one 16-byte record (never
 * split across cache lines); and the loops issue the loads of upcoming records early (a load
 * whose value is only folded into a "sink" makes the CPU fetch the line while it works on the
 * current item: measured 25–35% off the semidominator pass, 10% off the DFS).
 * Memory: outputs `idom` (4N), `reachable` (N), `order` and `orderIdom` (4R each, R = reachable
 * nodes). Scratch, dropped on return: the 16-byte records (per node during the DFS, per vertex
 * after), semi and a count/bucket column (4 + 4), 8 bytes per cross/back reference while the
 * DFS runs and 4 after: about 24N + 8E bytes at worst, 24N + 4E on the synthetic benchmark heap.
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

/** Words per record in `forest` (see computeDominators). */
const R = 4;
/** How many later predecessors ahead the semidominator pass requests their records. */
const LOOKAHEAD = 16;

export function computeDominators(
  g: HeapGraph,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
  algorithm: DominatorAlgorithm = 'auto',
): Dominators {
  const n = g.nodeCount;
  const work = 2 * n;
  progress('dominators', 0, work);
  token.throwIfCancelled();

  const vertex = new Uint32Array(n + 1); // preorder → node
  const parent = new Uint32Array(n + 1); // DFS parent, then dom[v]
  // Records of R words. During the DFS one per NODE: [preorder number, first counted edge, edge
  // end, -], so discovering a node costs one random cache line instead of three. After it one
  // per preorder VERTEX, the forest of LT's LINK/EVAL: [ancestor (the DFS parent until v is
  // processed), label, semi[label] (cached: comparisons need no second lookup), -]. Last, the
  // dominator tree for the NCA step (dominators-nca.ts).
  const forest = new Uint32Array(R * (n + 1));
  const semi = new Uint32Array(n + 1);
  const firstEdge = g.firstEdge;
  const flags = g.nodeFlags;
  for (let v = 0; v < n; v++) {
    if ((v & 0xffff) === 0) token.throwIfCancelled();
    const end = firstEdge[v + 1];
    forest[R * v + 1] = countsOutEdges(flags, v) ? firstEdge[v] : end;
    forest[R * v + 2] = end;
  }

  const dfs = numberByDfs(g, forest, vertex, parent, semi, token, progress, work);
  const reachableCount = dfs.count;
  for (let w = 1; w <= reachableCount; w++) forest[R * w] = parent[w];
  const counts = new Uint32Array(reachableCount + 1); // then LT's bucket heads
  const pred = groupLaterPredecessors(dfs, forest, counts, reachableCount, token);
  dfs.pairs = EMPTY; // 8 bytes per cross/back reference, garbage from here on
  progress('dominators', n, work);
  const useBuckets = algorithm === 'lengauer-tarjan';
  semidominators(pred, forest, semi, counts, parent, reachableCount, useBuckets, token, progress, n, work);
  const dom = parent;
  if (useBuckets) {
    // LT step 4: explicit dominators in preorder.
    for (let i = 2; i <= reachableCount; i++) {
      if (dom[i] !== semi[i]) dom[i] = dom[dom[i]];
    }
  } else {
    nearestCommonAncestors(dom, semi, forest, reachableCount, token);
  }
  // Back from preorder numbers to node ordinals.
  token.throwIfCancelled();
  const idom = new Uint32Array(n).fill(NONE);
  const reachable = new Uint8Array(n);
  reachable[vertex[1]] = 1;
  for (let i = 2; i <= reachableCount; i++) {
    const node = vertex[i];
    idom[node] = vertex[dom[i]];
    reachable[node] = 1;
  }
  // To 0-based positions in place: orderIdom[j] = dom[j + 1] - 1.
  for (let i = 2; i <= reachableCount; i++) dom[i]--;
  dom[1] = NONE;
  progress('dominators', work, work);
  return {
    idom,
    reachable,
    order: vertex.subarray(1, reachableCount + 1),
    orderIdom: dom.subarray(1, reachableCount + 1),
    algorithm: useBuckets ? 'lengauer-tarjan' : 'semi-nca',
  };
}

const EMPTY = new Uint32Array(0);

interface DfsResult {
  count: number;
  /** (u, v) pairs: v is a later predecessor of u. */
  pairs: Uint32Array;
  pairCount: number;
}

/**
 * Iterative DFS from the root over counted references. Numbers the nodes in preorder (from 1)
 * into their records (`rec[R t]`; `rec[R t + 1 .. R t + 2]` is the node's counted edge range,
 * empty for weak nodes), fills vertex (the inverse) and parent, and classifies every counted
 * reference v → u it scans, once, while u's number is at hand anyway:
 *   - tree edge (u new): semi[u] starts at v, its parent;
 *   - forward edge (u > v, a descendant): semi[u] = min(semi[u], v), as EVAL(v) = v then;
 *   - cross or back edge (u < v): v is a "later" predecessor of u that needs EVAL; the pair
 *     (u, v) is appended to `pairs`.
 * So the flowgraph is exactly what this DFS walks: references out of weak or unreachable nodes
 * are never scanned, and no other pass decides which references count. The stack keeps each
 * frame's edge cursor and end, so resuming a frame touches no node data. When a node is entered,
 * the records of all its targets are requested at once (the loads overlap), instead of one
 * dependent miss per target as the scan reaches it.
 */
function numberByDfs(
  g: HeapGraph,
  rec: Uint32Array,
  vertex: Uint32Array,
  parent: Uint32Array,
  semi: Uint32Array,
  token: CancellationToken,
  progress: ProgressSink,
  work: number,
): DfsResult {
  const edgeTarget = g.edgeTarget;
  const root = g.rootIndex;
  // Sized for the worst case; pages never written are never committed by the OS.
  const pairs = new Uint32Array(2 * g.edgeCount);
  // Frames of [vertex, edge cursor, edge end]; grows on demand (a 10M-long chain needs 120 MB).
  let stack = new Uint32Array(3 * 4096);
  let pairCount = 0;
  let count = 1;
  let sink = 0;
  rec[R * root] = 1;
  vertex[1] = root;
  semi[1] = 1;
  let sp = 0;
  stack[0] = 1;
  stack[1] = rec[R * root + 1];
  stack[2] = rec[R * root + 2];
  while (sp >= 0) {
    const v = stack[sp];
    const end = stack[sp + 2];
    let k = stack[sp + 1];
    let next = -1;
    while (k < end) {
      const t = edgeTarget[k++];
      const u = rec[R * t];
      if (u === 0) {
        next = t;
        break;
      }
      if (u > v) {
        if (v < semi[u]) semi[u] = v;
      } else if (u < v) {
        pairs[pairCount++] = u;
        pairs[pairCount++] = v;
      }
    }
    if (next < 0) {
      sp -= 3;
      continue;
    }
    stack[sp + 1] = k;
    const w = ++count;
    rec[R * next] = w;
    vertex[w] = next;
    parent[w] = v;
    semi[w] = v;
    sp += 3;
    if (sp === stack.length) {
      const grown = new Uint32Array(2 * stack.length);
      grown.set(stack);
      stack = grown;
    }
    const first = rec[R * next + 1];
    const last = rec[R * next + 2];
    stack[sp] = w;
    stack[sp + 1] = first;
    stack[sp + 2] = last;
    for (let q = first; q < last; q++) sink ^= rec[R * edgeTarget[q] + 1];
    if ((w & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('dominators', w, work);
    }
  }
  semi[0] = sink; // semi[0] is no vertex; the store only keeps the early loads alive
  return { count, pairs, pairCount: pairCount >>> 1 };
}

/**
 * Counting sort of the (u, v) later-predecessor pairs by u, into runs the main loop reads in
 * descending u: pred[start(u) .. start(u + 1)). u's label slot holds start(u) until the main
 * loop reaches u and resets it to u (no label is read before its vertex is processed), which
 * saves an N-sized offsets array; `counts` is zero again on return.
 * Memory: 4 bytes per later predecessor (the pairs, 8 bytes each, are dropped).
 */
function groupLaterPredecessors(dfs: DfsResult, forest: Uint32Array, counts: Uint32Array, reachableCount: number, token: CancellationToken): Uint32Array {
  const { pairs, pairCount } = dfs;
  for (let i = 0; i < pairCount; i++) counts[pairs[2 * i]]++;
  let sum = 0;
  for (let u = 1; u <= reachableCount; u++) {
    const c = counts[u];
    forest[R * u + 1] = sum;
    counts[u] = sum;
    sum += c;
  }
  const pred = new Uint32Array(pairCount);
  for (let i = 0; i < pairCount; i++) {
    if ((i & 0xffff) === 0) token.throwIfCancelled();
    pred[counts[pairs[2 * i]]++] = pairs[2 * i + 1];
  }
  counts.fill(0);
  return pred;
}

/**
 * LT steps 2 and 3: semidominators in reverse preorder, and, for 'lengauer-tarjan' only, each
 * vertex's implicit dominator from its parent's bucket (written into bucketNext, which thereby
 * becomes `dom`; for SEMI-NCA bucketNext keeps the DFS parents).
 *
 * "w is linked into the forest" ⟺ w > threshold, because vertices are linked exactly in the
 * order they are processed; so there is no separate LINK step and no "ancestor = 0" sentinel,
 * and w's ancestor slot still holds its DFS parent until w is processed.
 *
 * `pred` is read backwards, run by run; `LOOKAHEAD` entries further down, each predecessor's
 * record is requested early, since almost every one is a cache miss on a big heap.
 */
function semidominators(
  pred: Uint32Array,
  forest: Uint32Array,
  semi: Uint32Array,
  bucketHead: Uint32Array,
  bucketNext: Uint32Array,
  reachableCount: number,
  useBuckets: boolean,
  token: CancellationToken,
  progress: ProgressSink,
  n: number,
  work: number,
): void {
  let runEnd = pred.length;
  let requested = runEnd;
  let sink = 0;
  for (let w = reachableCount; w >= 2; w--) {
    if ((w & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('dominators', n + reachableCount - w, work);
    }
    const runStart = forest[R * w + 1];
    const parent = forest[R * w];
    const ahead = runStart > LOOKAHEAD ? runStart - LOOKAHEAD : 0;
    while (requested > ahead) sink ^= forest[R * pred[--requested]];
    let s = semi[w];
    for (let r = runStart; r < runEnd; r++) {
      const v = pred[r];
      compress(v, w, forest);
      const candidate = forest[R * v + 2];
      if (candidate < s) s = candidate;
    }
    runEnd = runStart;
    semi[w] = s;
    forest[R * w + 1] = w;
    forest[R * w + 2] = s;
    if (!useBuckets) continue;
    bucketNext[w] = bucketHead[s];
    bucketHead[s] = w;
    // link(parent, w) happened implicitly: from here on the threshold is w - 1. Every v in the
    // bucket has semi[v] = parent, so dom[v] = parent unless EVAL finds a smaller semi below it.
    for (let v = bucketHead[parent]; v !== 0; ) {
      const after = bucketNext[v];
      compress(v, w - 1, forest);
      bucketNext[v] = forest[R * v + 2] < parent ? forest[R * v + 1] : parent;
      v = after;
    }
    bucketHead[parent] = 0;
  }
  semi[0] = sink; // as in numberByDfs
}

/**
 * LT's EVAL for a linked vertex v (v > threshold), minus the final lookup: compresses the forest
 * path above v so that afterwards v's label slot holds the vertex of minimum semi on the path
 * (the forest root excluded) and the next slot holds that semi. The path is walked twice, by
 * reversing its ancestor links on the way up and pointing them at the forest root on the way
 * down, which replaces the recursion without a stack array. On the benchmark heap a third of the
 * calls return at once and the rest walk 3.7 records on average.
 */
function compress(v: number, threshold: number, forest: Uint32Array): void {
  if (forest[R * v] <= threshold) return;
  let below = 0;
  let x = v;
  for (;;) {
    const up = forest[R * x];
    if (up <= threshold) break;
    forest[R * x] = below;
    below = x;
    x = up;
  }
  const forestRoot = forest[R * x];
  let above = x;
  let cur = below;
  while (cur !== 0) {
    const down = forest[R * cur];
    if (forest[R * above + 2] < forest[R * cur + 2]) {
      forest[R * cur + 1] = forest[R * above + 1];
      forest[R * cur + 2] = forest[R * above + 2];
    }
    forest[R * cur] = forestRoot;
    above = cur;
    cur = down;
  }
}

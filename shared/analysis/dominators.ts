import type { HeapGraph } from '../graph/heap-graph.js';
import { NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';
import { countsOutEdges } from './counted-edges.js';

/**
 * Immediate dominators of the reference graph, from `g.rootIndex`, over counted edges only.
 *
 * Algorithm: semidominators as in Lengauer & Tarjan, "A fast algorithm for finding dominators
 * in a flowgraph", ACM TOPLAS 1(1), 1979 ("simple" variant: path compression without balanced
 * linking), then immediate dominators by SEMI-NCA (Georgiadis, Tarjan & Werneck, "Finding
 * dominators in practice", JGAA 10(1), 2006), which replaces LT's second EVAL per vertex with a
 * short climb up the dominator tree and measured ~30% faster here. SEMI-NCA's climb is quadratic
 * in the worst case, so it runs under a linear step budget; past it, everything is redone with
 * LT's semidominator buckets (intrusive linked lists), whose bound is O(E log N) whatever the
 * shape. Every step is iterative (explicit DFS stack, path compression by pointer reversal), so a
 * 10M-long reference chain cannot overflow the call stack.
 *
 * Unreachable policy: only nodes the root reaches through counted edges take part. The DFS walks
 * counted references only (`countsOutEdges`) and classifies each one it scans, so it alone
 * defines the flowgraph: a reference out of an unreachable node (a dead clique pointing into the
 * live heap) or a weak one is never seen, and dead objects cannot create a false second path into
 * live ones. Unreachable nodes and the root get idom NONE; analyze.ts says what their retained
 * sizes mean.
 *
 * Cost: O(E log N) time, bound by memory latency on big heaps (the DFS and the path compression
 * chase pointers), so all hot state lives in DFS-preorder numbering, where related vertices sit
 * close together, and related fields share cache lines. Memory: outputs `idom` (4N), `reachable`
 * (N), `order` and `orderIdom` (4R each, R = reachable nodes). Scratch, dropped on return: the
 * forest (12 bytes per node; per-node DFS records before that), semi, bucket heads and a DFS
 * stack column (4 + 4 + 4), 8 bytes per cross/back reference while the DFS runs and 4 after:
 * about 24N + 8E bytes at worst, 24N + 3E on the synthetic benchmark heap.
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
  /** Which last step produced the result ('auto' falls back to 'lengauer-tarjan' on bad shapes). */
  readonly algorithm: 'semi-nca' | 'lengauer-tarjan';
}

export type DominatorAlgorithm = 'auto' | 'semi-nca' | 'lengauer-tarjan';

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

  const idom = new Uint32Array(n);
  const vertex = new Uint32Array(n + 1); // preorder → node
  // The forest of LT's LINK/EVAL, interleaved so one path step touches one cache line:
  // forest[3v] = ancestor (the DFS parent until v is processed), forest[3v + 1] = label,
  // forest[3v + 2] = semi[label] (cached: the comparisons then need no second lookup).
  // Before that, during the DFS, it holds one record per NODE: [preorder number, first counted
  // edge, edge end], so discovering a node costs one random cache line instead of three.
  const forest = new Uint32Array(3 * (n + 1));
  const semi = new Uint32Array(n + 1);
  const bucketHead = new Uint32Array(n + 1);
  const bucketNext = new Uint32Array(n + 1); // DFS parent, then dom[v]
  const firstEdge = g.firstEdge;
  const flags = g.nodeFlags;
  for (let v = 0; v < n; v++) {
    if ((v & 0xffff) === 0) token.throwIfCancelled();
    const end = firstEdge[v + 1];
    forest[3 * v + 1] = countsOutEdges(flags, v) ? firstEdge[v] : end;
    forest[3 * v + 2] = end;
  }

  // The DFS stack borrows idom and bucketHead (zeroed again below) plus one array of its own.
  const dfs = numberByDfs(g, forest, vertex, bucketNext, semi, idom, bucketHead, new Uint32Array(n + 1), token, progress, work);
  const reachableCount = dfs.count;
  bucketHead.fill(0);
  for (let w = 1; w <= reachableCount; w++) forest[3 * w] = bucketNext[w];
  const later = groupLaterPredecessors(dfs.pairs, dfs.pairCount, forest, bucketHead, reachableCount, token);
  progress('dominators', n, work);
  const useBuckets = algorithm === 'lengauer-tarjan';
  semidominators(later, forest, semi, bucketHead, bucketNext, reachableCount, useBuckets, token, progress, n, work);
  const dom = bucketNext;
  if (useBuckets) {
    // LT step 4: explicit dominators in preorder.
    for (let i = 2; i <= reachableCount; i++) {
      if (dom[i] !== semi[i]) dom[i] = dom[dom[i]];
    }
  } else {
    const budget = algorithm === 'semi-nca' ? Infinity : 4 * (reachableCount + later.count) + 65536;
    if (!nearestCommonAncestors(dom, semi, reachableCount, budget, token)) {
      return computeDominators(g, token, progress, 'lengauer-tarjan');
    }
  }
  // Back from preorder numbers to node ordinals.
  idom.fill(NONE);
  const reachable = new Uint8Array(n);
  reachable[vertex[1]] = 1;
  token.throwIfCancelled();
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

/**
 * Iterative DFS from the root over counted references. Numbers the nodes in preorder (from 1)
 * into their records (`rec[3t]`; `rec[3t + 1 .. 3t + 2]` is the node's counted edge range,
 * empty for weak nodes), fills vertex (the inverse) and parent, and classifies every counted
 * reference v → u it scans, once, while u's number is at hand anyway:
 *   - tree edge (u new): semi[u] starts at v, its parent;
 *   - forward edge (u > v, a descendant): semi[u] = min(semi[u], v), as EVAL(v) = v then;
 *   - cross or back edge (u < v): v is a "later" predecessor of u that needs EVAL; the pair
 *     (u, v) is appended to `pairs`.
 * So the flowgraph is exactly what this DFS walks: references out of weak or unreachable nodes
 * are never scanned, and no other pass decides which references count. The stack keeps each
 * frame's edge cursor and end, so resuming a frame touches no node data.
 */
function numberByDfs(
  g: HeapGraph,
  rec: Uint32Array,
  vertex: Uint32Array,
  parent: Uint32Array,
  semi: Uint32Array,
  stackVertex: Uint32Array,
  stackCursor: Uint32Array,
  stackEnd: Uint32Array,
  token: CancellationToken,
  progress: ProgressSink,
  work: number,
): { count: number; pairs: Uint32Array; pairCount: number } {
  const edgeTarget = g.edgeTarget;
  const root = g.rootIndex;
  // Sized for the worst case; pages never written are never committed by the OS.
  const pairs = new Uint32Array(2 * g.edgeCount);
  let pairCount = 0;
  let count = 1;
  rec[3 * root] = 1;
  vertex[1] = root;
  semi[1] = 1;
  let sp = 0;
  stackVertex[0] = 1;
  stackCursor[0] = rec[3 * root + 1];
  stackEnd[0] = rec[3 * root + 2];
  while (sp >= 0) {
    const v = stackVertex[sp];
    const end = stackEnd[sp];
    let k = stackCursor[sp];
    let next = -1;
    while (k < end) {
      const t = edgeTarget[k++];
      const u = rec[3 * t];
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
      sp--;
      continue;
    }
    stackCursor[sp] = k;
    const w = ++count;
    rec[3 * next] = w;
    vertex[w] = next;
    parent[w] = v;
    semi[w] = v;
    sp++;
    stackVertex[sp] = w;
    stackCursor[sp] = rec[3 * next + 1];
    stackEnd[sp] = rec[3 * next + 2];
    if ((w & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('dominators', w, work);
    }
  }
  return { count, pairs, pairCount: pairCount >>> 1 };
}

/**
 * Counting sort of the (u, v) later-predecessor pairs by u, into runs the main loop reads in
 * descending u: pred[start(u) .. start(u + 1)). u's label slot holds start(u) until the main
 * loop reaches u and resets it to u (no label is read before its vertex is processed), which
 * saves an N-sized offsets array; `counts` (the bucket heads) is zero again on return.
 * Memory: 4 bytes per later predecessor (the pairs, 8 bytes each, are dropped).
 */
function groupLaterPredecessors(
  pairs: Uint32Array,
  pairCount: number,
  forest: Uint32Array,
  counts: Uint32Array,
  reachableCount: number,
  token: CancellationToken,
): { pred: Uint32Array; count: number } {
  for (let i = 0; i < pairCount; i++) counts[pairs[2 * i]]++;
  let sum = 0;
  for (let u = 1; u <= reachableCount; u++) {
    const c = counts[u];
    forest[3 * u + 1] = sum;
    counts[u] = sum;
    sum += c;
  }
  const pred = new Uint32Array(pairCount);
  for (let i = 0; i < pairCount; i++) {
    if ((i & 0xffff) === 0) token.throwIfCancelled();
    pred[counts[pairs[2 * i]]++] = pairs[2 * i + 1];
  }
  counts.fill(0);
  return { pred, count: pairCount };
}

/**
 * LT steps 2 and 3: semidominators in reverse preorder, and each vertex's implicit dominator
 * from its parent's bucket (written into bucketNext, which thereby becomes `dom`).
 *
 * "w is linked into the forest" ⟺ w > threshold, because vertices are linked exactly in the
 * order they are processed; so there is no separate LINK step and no "ancestor = 0" sentinel,
 * and w's ancestor slot still holds its DFS parent until w is processed.
 */
function semidominators(
  later: { pred: Uint32Array; count: number },
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
  const pred = later.pred;
  let runEnd = later.count;
  for (let w = reachableCount; w >= 2; w--) {
    if ((w & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('dominators', n + reachableCount - w, work);
    }
    const runStart = forest[3 * w + 1];
    const parent = forest[3 * w];
    let s = semi[w];
    for (let r = runStart; r < runEnd; r++) {
      const v = pred[r];
      compress(v, w, forest);
      const candidate = forest[3 * v + 2];
      if (candidate < s) s = candidate;
    }
    runEnd = runStart;
    semi[w] = s;
    forest[3 * w + 1] = w;
    forest[3 * w + 2] = s;
    if (!useBuckets) continue; // SEMI-NCA: bucketNext keeps the DFS parents for the NCA pass
    bucketNext[w] = bucketHead[s];
    bucketHead[s] = w;
    // link(parent, w) happened implicitly: from here on the threshold is w - 1. Every v in the
    // bucket has semi[v] = parent, so dom[v] = parent unless EVAL finds a smaller semi below it.
    for (let v = bucketHead[parent]; v !== 0; ) {
      const after = bucketNext[v];
      compress(v, w - 1, forest);
      bucketNext[v] = forest[3 * v + 2] < parent ? forest[3 * v + 1] : parent;
      v = after;
    }
    bucketHead[parent] = 0;
  }
}

/**
 * SEMI-NCA's last step (Georgiadis, "Linear-Time Algorithms for Dominators and Related
 * Problems", PhD thesis, Princeton 2005): in preorder, idom(w) is the nearest common ancestor
 * of parent(w) and semi(w) in the dominator tree built so far, found by climbing from parent(w)
 * while above semi(w). `dom` holds the DFS parents on entry and the idoms on return. The climb is
 * short in practice but quadratic in the worst case (a long list whose tail holds many objects
 * that something visited later also references), so it stops after `budget` steps and returns
 * false, and the caller redoes the work with Lengauer–Tarjan's buckets, which have no bad case.
 */
function nearestCommonAncestors(dom: Uint32Array, semi: Uint32Array, reachableCount: number, budget: number, token: CancellationToken): boolean {
  let steps = 0;
  for (let w = 2; w <= reachableCount; w++) {
    if ((w & 0xffff) === 0) token.throwIfCancelled();
    const s = semi[w];
    let x = dom[w];
    while (x > s) {
      x = dom[x];
      steps++;
    }
    dom[w] = x;
    if (steps > budget) return false;
  }
  return true;
}

/**
 * LT's EVAL for a linked vertex v (v > threshold), minus the final lookup: compresses the forest
 * path above v so that afterwards v's label slot holds the vertex of minimum semi on the path
 * (the forest root excluded) and the next slot holds that semi. The path is walked twice, by
 * reversing its ancestor links on the way up and pointing them at the forest root on the way
 * down, which replaces the recursion without a stack array.
 */
function compress(v: number, threshold: number, forest: Uint32Array): void {
  if (forest[3 * v] <= threshold) return;
  let below = 0;
  let x = v;
  for (;;) {
    const up = forest[3 * x];
    if (up <= threshold) break;
    forest[3 * x] = below;
    below = x;
    x = up;
  }
  const forestRoot = forest[3 * x];
  let above = x;
  let cur = below;
  while (cur !== 0) {
    const down = forest[3 * cur];
    if (forest[3 * above + 2] < forest[3 * cur + 2]) {
      forest[3 * cur + 1] = forest[3 * above + 1];
      forest[3 * cur + 2] = forest[3 * above + 2];
    }
    forest[3 * cur] = forestRoot;
    above = cur;
    cur = down;
  }
}

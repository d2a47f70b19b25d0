import type { HeapGraph } from '../graph/heap-graph.js';
import { NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';
import { countsOutEdges } from './counted-edges.js';
import type { Retainers } from './retainers.js';

/**
 * Immediate dominators of the reference graph, from `g.rootIndex`, over counted edges only.
 *
 * Algorithm: Lengauer & Tarjan, "A fast algorithm for finding dominators in a flowgraph",
 * ACM TOPLAS 1(1), 1979, the "simple" variant (path compression without balanced linking,
 * O(E log N)), with semidominator buckets as intrusive linked lists. Every step is iterative
 * (explicit DFS stack, path compression by pointer reversal), so a 10M-long reference chain
 * cannot overflow the call stack. SEMI-NCA was rejected on purpose: its NCA step is quadratic
 * on a long list whose tail holds many objects that are also referenced from later in the DFS,
 * a shape real heaps have.
 *
 * Unreachable policy: only nodes the root reaches through counted edges take part. A reference
 * out of an unreachable node (e.g. a dead clique pointing into the live heap) or out of a weak
 * node is ignored by both the DFS and the semidominator scan (one predicate, `countsOutEdges`,
 * decides both), so dead objects can never create a false second path into live ones.
 * Unreachable nodes and the root get idom NONE; analyze.ts says what their retained sizes mean.
 *
 * Cost: O(E log N) time, bound by memory latency on big heaps (the DFS and the path compression
 * chase pointers), so the hot state lives in DFS-preorder numbering, where related vertices sit
 * close together, and the LT forest is interleaved. Memory: outputs `idom` (4N), `reachable`
 * (N), `order` and `orderIdom` (4R each, R = reachable nodes). Scratch, dropped on return: the
 * forest (12 bytes per node), semi and the bucket heads (4 + 4), and 4 bytes per "later"
 * predecessor (cross and back references), so ≈ 20N + 4E bytes at worst. The DFS stack borrows
 * the forest before it is initialised, and the node→preorder map lives in `idom` until the last
 * pass rewrites it.
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
}

export function computeDominators(
  g: HeapGraph,
  retainers: Retainers,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
): Dominators {
  const n = g.nodeCount;
  const flags = g.nodeFlags;
  const work = 2 * n;
  progress('dominators', 0, work);
  token.throwIfCancelled();

  const idom = new Uint32Array(n);
  const dfn = idom; // node → preorder number (0 = none) until the final rewrite
  const vertex = new Uint32Array(n + 1); // preorder → node
  // The forest of LT's LINK/EVAL, interleaved so one path step touches one cache line:
  // forest[3v] = ancestor (the DFS parent until v is processed), forest[3v + 1] = label,
  // forest[3v + 2] = semi[label] (cached: the comparisons then need no second lookup).
  const forest = new Uint32Array(3 * (n + 1));
  const semi = new Uint32Array(n + 1);
  const bucketHead = new Uint32Array(n + 1);
  const bucketNext = new Uint32Array(n + 1); // = dom[v] after v leaves its bucket

  // The DFS stack borrows the three thirds of `forest`, and the parents go to `semi` for now.
  const reachableCount = numberByDfs(
    g,
    dfn,
    vertex,
    semi,
    forest.subarray(0, n + 1),
    forest.subarray(n + 1, 2 * n + 2),
    forest.subarray(2 * n + 2),
    token,
    progress,
    work,
  );
  for (let w = 1; w <= reachableCount; w++) forest[3 * w] = semi[w];
  // From here on dfn[src] ≠ 0 ⟺ src's references count: one lookup per retainer, no second
  // predicate that could drift from the DFS's.
  for (let i = 1; i <= reachableCount; i++) {
    const node = vertex[i];
    if (!countsOutEdges(flags, node)) dfn[node] = 0;
  }
  const later = laterPredecessors(retainers, dfn, vertex, semi, forest, reachableCount, token);
  progress('dominators', n, work);
  semidominators(later, forest, semi, bucketHead, bucketNext, reachableCount, token, progress, n, work);
  const dom = bucketNext;

  // Explicit dominators in preorder, then back from preorder numbers to node ordinals.
  for (let i = 2; i <= reachableCount; i++) {
    if (dom[i] !== semi[i]) dom[i] = dom[dom[i]];
  }
  idom.fill(NONE);
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
  return { idom, reachable, order: vertex.subarray(1, reachableCount + 1), orderIdom: dom.subarray(1, reachableCount + 1) };
}

/**
 * Iterative DFS from the root over counted references: fills dfn (node → preorder number, from
 * 1), vertex (the inverse) and parent (preorder numbers); returns the number of reachable nodes.
 * The stack keeps each frame's edge cursor and end, so resuming a frame touches no node column.
 */
function numberByDfs(
  g: HeapGraph,
  dfn: Uint32Array,
  vertex: Uint32Array,
  parent: Uint32Array,
  stackVertex: Uint32Array,
  stackCursor: Uint32Array,
  stackEnd: Uint32Array,
  token: CancellationToken,
  progress: ProgressSink,
  work: number,
): number {
  const firstEdge = g.firstEdge;
  const edgeTarget = g.edgeTarget;
  const flags = g.nodeFlags;
  const root = g.rootIndex;
  let count = 1;
  dfn[root] = 1;
  vertex[1] = root;
  let sp = 0;
  stackVertex[0] = 1;
  stackEnd[0] = firstEdge[root + 1];
  stackCursor[0] = countsOutEdges(flags, root) ? firstEdge[root] : stackEnd[0];
  while (sp >= 0) {
    const end = stackEnd[sp];
    let k = stackCursor[sp];
    let next = -1;
    while (k < end) {
      const t = edgeTarget[k++];
      if (dfn[t] === 0) {
        next = t;
        break;
      }
    }
    if (next < 0) {
      sp--;
      continue;
    }
    stackCursor[sp] = k;
    const w = ++count;
    dfn[next] = w;
    vertex[w] = next;
    parent[w] = stackVertex[sp];
    sp++;
    stackVertex[sp] = w;
    const nextEnd = firstEdge[next + 1];
    stackEnd[sp] = nextEnd;
    stackCursor[sp] = countsOutEdges(flags, next) ? firstEdge[next] : nextEnd;
    if ((w & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('dominators', w, work);
    }
  }
  return count;
}

/**
 * The predecessors of every vertex, translated to preorder numbers once, in one streaming pass
 * whose loads do not depend on each other (so the CPU overlaps the cache misses), instead of
 * inside the main loop, where they would sit on its dependency chain.
 *
 * A predecessor v < w needs no EVAL (it is not linked yet and semi[v] = v), so only the minimum
 * of those is kept, straight into semi[w] (initialised to w). Only the later ones (v > w: cross
 * and back edges) are stored. w's label slot holds the start of w's run until the main loop
 * reaches w and resets it to w (no label is read before its vertex is processed), which saves an
 * N-sized offsets array. Memory: 4 bytes per later predecessor.
 */
function laterPredecessors(
  retainers: Retainers,
  dfn: Uint32Array,
  vertex: Uint32Array,
  semi: Uint32Array,
  forest: Uint32Array,
  reachableCount: number,
  token: CancellationToken,
): { pred: Uint32Array; count: number } {
  const { firstRetainer, retainerNode } = retainers;
  // Sized for the worst case; pages never written are never committed by the OS.
  const pred = new Uint32Array(retainerNode.length);
  let count = 0;
  for (let w = 1; w <= reachableCount; w++) {
    if ((w & 0xffff) === 0) token.throwIfCancelled();
    const node = vertex[w];
    let s = w;
    forest[3 * w + 1] = count;
    for (let r = firstRetainer[node], rEnd = firstRetainer[node + 1]; r < rEnd; r++) {
      const v = dfn[retainerNode[r]];
      if (v === 0) continue; // unreachable or weak source: not an edge of the flowgraph
      if (v < s) s = v;
      else if (v > w) pred[count++] = v;
    }
    semi[w] = s;
  }
  return { pred, count };
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

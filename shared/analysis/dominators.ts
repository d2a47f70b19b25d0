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
 * cannot overflow the call stack.
 *
 * Unreachable policy: only nodes the root reaches through counted edges take part. An edge
 * whose source is unreachable (e.g. a dead clique pointing into the live heap) or weak is ignored
 * by both the DFS and the semidominator scan (`countsOutEdges` + "source has a DFS number"), so
 * dead objects can never create a false second path into live ones. Unreachable nodes and the
 * root get idom NONE; see analyze.ts for what their retained sizes mean.
 *
 * Memory: outputs `idom` (4N) and `reachable` (N), plus `order` (the reachable nodes in DFS
 * preorder, 4(N+1), which later passes use as a parents-before-children order). Scratch while
 * running: five more Uint32Array(N + 1) — ancestor (which starts out as the DFS parent), semi,
 * label, bucket head, bucket next (which becomes `dom` once a vertex leaves its bucket) — i.e.
 * 20 bytes per node, dropped on return. The DFS stack borrows `semi` and `label` before they are
 * initialised, and the node→preorder map lives in `idom` until the last pass rewrites it.
 *
 * Vertices are numbered 1..R in DFS preorder (0 = "none"); the root is 1.
 */
export interface Dominators {
  /** idom[n] = immediate dominator of n; NONE for the root and for unreachable nodes. */
  readonly idom: Uint32Array;
  /** 1 when n is reachable from the root through counted edges. */
  readonly reachable: Uint8Array;
  /** The reachable nodes in DFS preorder (order[0] is the root): every node after its idom. */
  readonly order: Uint32Array;
}

export function computeDominators(
  g: HeapGraph,
  retainers: Retainers,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
): Dominators {
  const n = g.nodeCount;
  const firstEdge = g.firstEdge;
  const edgeTarget = g.edgeTarget;
  const flags = g.nodeFlags;
  const { firstRetainer, retainerNode } = retainers;
  const work = 2 * n;
  progress('dominators', 0, work);
  token.throwIfCancelled();

  const idom = new Uint32Array(n);
  const dfn = idom; // node → preorder number (0 = not visited) until the final rewrite
  const vertex = new Uint32Array(n + 1); // preorder → node
  const ancestor = new Uint32Array(n + 1); // DFS parent, then the compressed forest link
  const semi = new Uint32Array(n + 1);
  const label = new Uint32Array(n + 1);
  const bucketHead = new Uint32Array(n + 1);
  const bucketNext = new Uint32Array(n + 1); // = dom[v] after v leaves its bucket

  // 1. Iterative DFS numbering; stack slots borrow semi (vertex) and label (edge cursor).
  const stackVertex = semi;
  const stackCursor = label;
  const root = g.rootIndex;
  let count = 1;
  dfn[root] = 1;
  vertex[1] = root;
  let sp = 0;
  stackVertex[0] = 1;
  stackCursor[0] = countsOutEdges(flags, root) ? firstEdge[root] : firstEdge[root + 1];
  while (sp >= 0) {
    const v = stackVertex[sp];
    const end = firstEdge[vertex[v] + 1];
    let k = stackCursor[sp];
    let next = -1;
    while (k < end) {
      const t = edgeTarget[k++];
      if (dfn[t] === 0) {
        next = t;
        break;
      }
    }
    stackCursor[sp] = k;
    if (next < 0) {
      sp--;
      continue;
    }
    const w = ++count;
    dfn[next] = w;
    vertex[w] = next;
    ancestor[w] = v;
    sp++;
    stackVertex[sp] = w;
    stackCursor[sp] = countsOutEdges(flags, next) ? firstEdge[next] : firstEdge[next + 1];
    if ((w & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('dominators', w, work);
    }
  }
  const reachableCount = count;
  for (let i = 1; i <= reachableCount; i++) {
    semi[i] = i;
    label[i] = i;
  }
  progress('dominators', n, work);

  // 2. Semidominators in reverse preorder, then implicit dominators from the parent's bucket.
  // "w is linked into the forest" ⟺ w > threshold, because vertices are linked exactly in the
  // order they are processed; so no separate link step and no "ancestor = 0" sentinel are needed.
  for (let w = reachableCount; w >= 2; w--) {
    if ((w & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('dominators', n + reachableCount - w, work);
    }
    const parent = ancestor[w]; // w is not linked yet, so this is still its DFS parent
    const node = vertex[w];
    let s = semi[w];
    for (let r = firstRetainer[node], rEnd = firstRetainer[node + 1]; r < rEnd; r++) {
      const src = retainerNode[r];
      if (!countsOutEdges(flags, src)) continue;
      const v = dfn[src];
      if (v === 0) continue; // unreachable source: not part of the flowgraph
      const u = v <= w ? v : evalCompress(v, w, ancestor, label, semi);
      if (semi[u] < s) s = semi[u];
    }
    semi[w] = s;
    bucketNext[w] = bucketHead[s];
    bucketHead[s] = w;
    // link(parent, w) happened implicitly: from here on the threshold is w - 1.
    for (let v = bucketHead[parent]; v !== 0; ) {
      const after = bucketNext[v];
      const u = evalCompress(v, w - 1, ancestor, label, semi);
      bucketNext[v] = semi[u] < semi[v] ? u : parent;
      v = after;
    }
    bucketHead[parent] = 0;
  }
  const dom = bucketNext;

  // 3. Explicit dominators in preorder, then back from preorder numbers to node ordinals.
  for (let i = 2; i <= reachableCount; i++) {
    if (dom[i] !== semi[i]) dom[i] = dom[dom[i]];
  }
  const reachable = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (idom[i] !== 0) reachable[i] = 1;
    idom[i] = NONE;
  }
  for (let i = 2; i <= reachableCount; i++) idom[vertex[i]] = vertex[dom[i]];
  progress('dominators', work, work);
  return { idom, reachable, order: vertex.subarray(1, reachableCount + 1) };
}

/**
 * LT's EVAL for a linked vertex v (v > threshold): compress the forest path above v and return
 * the vertex of minimum semi on it (excluding the forest root). The path is walked twice by
 * reversing its `ancestor` links on the way up and restoring them (to the forest root) on the way
 * down, which replaces the recursion without a stack array.
 */
function evalCompress(v: number, threshold: number, ancestor: Uint32Array, label: Uint32Array, semi: Uint32Array): number {
  if (ancestor[v] <= threshold) return label[v];
  let below = 0;
  let x = v;
  while (ancestor[x] > threshold) {
    const up = ancestor[x];
    ancestor[x] = below;
    below = x;
    x = up;
  }
  const forestRoot = ancestor[x];
  let above = x;
  let cur = below;
  while (cur !== 0) {
    const down = ancestor[cur];
    if (semi[label[above]] < semi[label[cur]]) label[cur] = label[above];
    ancestor[cur] = forestRoot;
    above = cur;
    cur = down;
  }
  return label[v];
}

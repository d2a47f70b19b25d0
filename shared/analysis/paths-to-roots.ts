import type { HeapGraph } from '../graph/heap-graph.js';
import { edgeFieldNameOf, formatAddress, NODE_PSEUDO, NODE_UNDEFINED, NONE } from '../graph/heap-graph.js';
import { stringPreviewOf } from '../graph/string-values.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';
import { countsOutEdges } from './counted-edges.js';
import type { Retainers } from './retainers.js';

/**
 * Paths from the root to one object: why is it still alive?
 *
 * Two steps. `shortestPathTree` runs one BFS from `g.rootIndex` over the forward graph and keeps
 * the BFS predecessor and distance of every node (8 bytes per node, O(N + E), computed once per
 * snapshot). `findRetentionPaths` then answers a query for one object: the BFS-predecessor chain
 * is the shortest path; further distinct simple paths come from a bounded best-first search over
 * the retainers (see its comment for the method and the bounds).
 *
 * Edges out of NODE_WEAK_EDGES nodes (weak handles) keep nothing alive, so neither the BFS nor the
 * search ever steps over them (the same `countsOutEdges` rule as the dominators): every returned
 * path is a chain of strong edges.
 */

/** BFS predecessor and distance from the root (NONE for the root's predecessor and for unreachable nodes). */
export interface ShortestPathTree {
  /** Previous node on a shortest strong path from the root; NONE for the root and unreachable nodes. */
  readonly pred: Uint32Array;
  /** Number of edges on that path; NONE when unreachable. */
  readonly dist: Uint32Array;
  /** Nodes reached, the root included. */
  readonly reachedCount: number;
}

export interface AnalysisOptions {
  token?: CancellationToken;
  progress?: ProgressSink;
}

/** One BFS over strong edges from the root. Cost: O(N + E) time, 12 bytes per node (pred, dist, queue). */
export function shortestPathTree(g: HeapGraph, opts: AnalysisOptions = {}): ShortestPathTree {
  const token = opts.token ?? NEVER_CANCELLED;
  const progress = opts.progress ?? NO_PROGRESS;
  const n = g.nodeCount;
  const { firstEdge, edgeTarget, nodeFlags } = g;
  const pred = new Uint32Array(n).fill(NONE);
  const dist = new Uint32Array(n).fill(NONE);
  const queue = new Uint32Array(n);
  let head = 0;
  let tail = 0;
  const root = g.rootIndex;
  dist[root] = 0;
  queue[tail++] = root;
  progress('paths', 0, n);
  while (head < tail) {
    if ((head & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('paths', head, n);
    }
    const u = queue[head++];
    if (!countsOutEdges(nodeFlags, u)) continue;
    const du = dist[u] + 1;
    for (let e = firstEdge[u], end = firstEdge[u + 1]; e < end; e++) {
      const v = edgeTarget[e];
      if (dist[v] !== NONE) continue;
      dist[v] = du;
      pred[v] = u;
      queue[tail++] = v;
    }
  }
  progress('paths', n, n);
  return { pred, dist, reachedCount: tail };
}

/** The BFS path root → … → target as node ordinals, or null when the target is unreachable. */
export function shortestPath(spt: ShortestPathTree, target: number): Uint32Array | null {
  const d = spt.dist[target];
  if (d === NONE) return null;
  const path = new Uint32Array(d + 1);
  let cur = target;
  for (let i = d; i >= 0; i--) {
    path[i] = cur;
    cur = spt.pred[cur];
  }
  return path;
}

export interface PathSearchOptions {
  /** Paths wanted in total, the shortest included (default 3). */
  maxPaths?: number;
  /** Retainers considered per step: the ones closest to the root (default max(16, 4·maxPaths)). */
  fanout?: number;
  /** Partial paths the search may create before it gives up (default 50,000). */
  budget?: number;
  token?: CancellationToken;
}

export interface RetentionPathSearch {
  /** Whether the target is reachable from the root over strong edges at all. */
  reachable: boolean;
  /** Paths root → target as node ordinals, shortest first, pairwise distinct, each a simple chain. */
  paths: Uint32Array[];
  /** True when the budget ran out before maxPaths paths were found (more may exist). */
  truncated: boolean;
  /** Partial paths created (for tests and diagnostics). */
  work: number;
}

/**
 * The shortest path to `target` plus up to maxPaths − 1 further distinct simple paths, by length.
 *
 * Method: best-first (A*) search backwards from the target over `retainers`. A search entry is a
 * partial path target ← … ← r; its priority is (edges so far) + dist[r], where dist is the exact
 * BFS distance root → r. That heuristic is consistent, so complete paths come out in
 * non-decreasing length. Retainers that are weak holders, unreachable, already on the partial path
 * or duplicates (gcdump repeats edges) are skipped, so every result is a distinct simple chain of
 * strong edges. Path 1 is always the BFS-predecessor chain; the search's copy of it is dropped.
 *
 * Bounds, so a hub (one object retained by 100k others) cannot blow up the search:
 * - fanout: per step only the F retainers with the smallest dist are pushed (O(d·F) worst case to
 *   pick them from d retainers, usually O(d)). Longer detours through the other retainers of a hub
 *   are not enumerated; with F ≥ 4·maxPaths this only matters when most of the F are dead ends.
 * - budget: at most B partial paths are ever created (3 Uint32 + 1 Int32 each, ~1 MB for the
 *   default); when it runs out the paths found so far are returned with `truncated: true`.
 * The simple-path check walks the partial path (O(length)) for the ≤ F candidates kept per step.
 * Total cost: O(B · (F + length)) plus the retainer scans, independent of the heap size.
 */
export function findRetentionPaths(
  g: HeapGraph,
  target: number,
  spt: ShortestPathTree,
  retainers: Retainers,
  opts: PathSearchOptions = {},
): RetentionPathSearch {
  const maxPaths = Math.max(1, opts.maxPaths ?? 3);
  const fanout = Math.max(1, opts.fanout ?? Math.max(16, 4 * maxPaths));
  const budget = Math.max(1, opts.budget ?? 50_000);
  const token = opts.token ?? NEVER_CANCELLED;
  const first = shortestPath(spt, target);
  if (!first) return { reachable: false, paths: [], truncated: false, work: 0 };
  const paths: Uint32Array[] = [first];
  if (maxPaths === 1 || target === g.rootIndex) return { reachable: true, paths, truncated: false, work: 0 };

  const { dist } = spt;
  const { firstRetainer, retainerNode } = retainers;
  const flags = g.nodeFlags;
  const root = g.rootIndex;
  // Search entries: node, the entry one step nearer the target (-1 at the target), edges to the target.
  const eNode = new Uint32Array(budget);
  const eNext = new Int32Array(budget);
  const eLen = new Uint32Array(budget);
  const eKey = new Float64Array(budget);
  const heap = new Int32Array(budget);
  let heapSize = 0;
  let entries = 0;
  let truncated = false;

  const push = (node: number, next: number, len: number): boolean => {
    if (entries === budget) {
      truncated = true;
      return false;
    }
    const e = entries++;
    eNode[e] = node;
    eNext[e] = next;
    eLen[e] = len;
    // Ties on length go to the older entry: deterministic, and nearer-to-BFS paths come first.
    eKey[e] = (len + dist[node]) * budget + e;
    let i = heapSize++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (eKey[heap[parent]] <= eKey[e]) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = e;
    return true;
  };
  const pop = (): number => {
    const top = heap[0];
    const last = heap[--heapSize];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= heapSize) break;
      if (c + 1 < heapSize && eKey[heap[c + 1]] < eKey[heap[c]]) c++;
      if (eKey[heap[c]] >= eKey[last]) break;
      heap[i] = heap[c];
      i = c;
    }
    heap[i] = last;
    return top;
  };
  const onPath = (entry: number, node: number): boolean => {
    for (let x = entry; x >= 0; x = eNext[x]) if (eNode[x] === node) return true;
    return false;
  };

  const cand = new Uint32Array(fanout);
  let pops = 0;
  push(target, -1, 0);
  while (heapSize > 0 && paths.length < maxPaths) {
    if ((++pops & 0x3ff) === 0) token.throwIfCancelled();
    const e = pop();
    const r = eNode[e];
    if (r === root) {
      const path = new Uint32Array(eLen[e] + 1);
      let i = 0;
      for (let x = e; x >= 0; x = eNext[x]) path[i++] = eNode[x];
      if (!samePath(path, first)) paths.push(path);
      continue;
    }
    // Keep the `fanout` best retainers by dist in `cand`, sorted ascending (insertion sort: F is small).
    let nc = 0;
    for (let k = firstRetainer[r], end = firstRetainer[r + 1]; k < end; k++) {
      const p = retainerNode[k];
      const dp = dist[p];
      if (dp === NONE || !countsOutEdges(flags, p)) continue;
      if (nc === fanout && dp >= dist[cand[nc - 1]]) continue;
      let dup = false;
      for (let j = 0; j < nc; j++) if (cand[j] === p) dup = true;
      if (dup || onPath(e, p)) continue;
      let j = nc < fanout ? nc++ : nc - 1;
      while (j > 0 && dist[cand[j - 1]] > dp) {
        cand[j] = cand[j - 1];
        j--;
      }
      cand[j] = p;
    }
    const len = eLen[e] + 1;
    for (let j = 0; j < nc; j++) if (!push(cand[j], e, len)) break;
    if (truncated) break;
  }
  return { reachable: true, paths, truncated, work: entries };
}

/**
 * Synthetic node: flagged NODE_PSEUDO, or (for readers that do not flag them) a described node at
 * address 0 with size 0; address 0 alone is not enough, CF heap logs may omit real addresses.
 */
export function isPseudo(g: HeapGraph, node: number): boolean {
  const f = g.nodeFlags[node];
  if (f & NODE_PSEUDO) return true;
  return (f & NODE_UNDEFINED) === 0 && g.selfSize[node] === 0 && g.address[node] === 0n;
}

function samePath(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** One object on a path, ready to print. */
export interface PathStep {
  node: number;
  typeName: string;
  /** 0x-prefixed hex; "0x0" for pseudo-nodes. */
  address: string;
  selfSize: number;
  /** A synthetic node (the root, a root category, a static-variable holder), not a heap object. */
  pseudo: boolean;
  /**
   * Process dumps only: the field of the previous step's object that holds this one (the first
   * such reference when there are several). Absent for array elements, root-category edges and
   * formats without field names.
   */
  field?: string;
  /** Process dumps only: a System.String's value, quoted and cut to 40 chars (graph/string-values.ts stringPreviewOf). */
  preview?: string;
}

export interface RetentionPath {
  /** Edges on the path (steps − 1). */
  length: number;
  /** The node directly under the root this path enters through, e.g. "[static vars]" (null for the root alone). */
  rootCategory: string | null;
  /** The last synthetic node before the first heap object, e.g. "[static var Foo.bar]" (often = rootCategory). */
  rootDetail: string | null;
  /** Root first, target last. */
  steps: PathStep[];
}

/** Name of the field of `from` whose reference reaches `to` (the first one), or null. */
function holdingField(g: HeapGraph, from: number, to: number): string | null {
  for (let e = g.firstEdge[from]; e < g.firstEdge[from + 1]; e++) if (g.edgeTarget[e] === to) return edgeFieldNameOf(g, e);
  return null;
}

/** Names, addresses and root category of a path (allocates per step: paths are short and few). */
export function describePath(g: HeapGraph, path: ArrayLike<number>): RetentionPath {
  const steps: PathStep[] = [];
  for (let i = 0; i < path.length; i++) {
    const node = path[i];
    steps.push({
      node,
      typeName: g.types.names[g.nodeType[node]],
      address: formatAddress(g, node),
      selfSize: g.selfSize[node],
      pseudo: isPseudo(g, node),
    });
    const field = i > 0 && g.edgeFieldName ? holdingField(g, path[i - 1], node) : null;
    if (field !== null) steps[i].field = field;
    const preview = stringPreviewOf(g, node);
    if (preview !== null) steps[i].preview = preview;
  }
  let rootCategory: string | null = null;
  let rootDetail: string | null = null;
  if (steps.length > 1) {
    rootCategory = steps[1].typeName;
    rootDetail = rootCategory;
    for (let i = 2; i < steps.length - 1 && steps[i].pseudo; i++) rootDetail = steps[i].typeName;
  }
  return { length: path.length - 1, rootCategory, rootDetail, steps };
}

import { BugError } from '../errors.js';
import { NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';

/**
 * The dominator tree as CSR: the children of `n` are
 * `domChildren[firstChild[n] .. firstChild[n + 1])`, largest retained size first (ties by
 * ascending ordinal), so the UI's default view is a window into an array, never a sort.
 *
 * `domChildren` holds every node exactly once. The first `firstChild[N]` entries are the tree
 * edges (reachable nodes except the root, grouped by parent); the tail
 * `domChildren[firstChild[N] .. N)` holds the nodes that have no dominator: the root first, then
 * the unreachable nodes by retained (= own) size desc. `forestRoots` returns that tail.
 *
 * Memory: output 4(N + 1) + 4N bytes; scratch two Uint32Array(N) and 40 KiB of digit counts for
 * the sort, dropped on return.
 */
export interface DominatorTree {
  readonly firstChild: Uint32Array;
  readonly domChildren: Uint32Array;
}

export function buildDominatorTree(
  idom: Uint32Array,
  retained: Float64Array,
  rootIndex: number,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
): DominatorTree {
  const n = idom.length;
  progress('tree', 0, 2 * n);
  token.throwIfCancelled();
  const sorted = sortByRetainedDesc(retained, token);
  progress('tree', n, 2 * n);

  const firstChild = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) {
    const p = idom[v];
    if (p !== NONE) firstChild[p]++;
  }
  let edges = 0;
  for (let p = 0; p < n; p++) {
    edges += firstChild[p];
    firstChild[p] = edges; // run end for now; placement below walks it down to the run start
  }
  firstChild[n] = edges;

  // Distribute the globally sorted order into per-parent runs. Walking it backwards and
  // filling each run from its end keeps every run in the global order, i.e. sorted.
  const domChildren = new Uint32Array(n);
  let tail = n;
  for (let i = n - 1; i >= 0; i--) {
    if ((i & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('tree', 2 * n - i, 2 * n);
    }
    const v = sorted[i];
    const p = idom[v];
    if (p !== NONE) domChildren[--firstChild[p]] = v;
    else if (v !== rootIndex) domChildren[--tail] = v;
  }
  if (tail !== edges + 1) throw new BugError('dominator tree: tree edges and forest roots do not add up', { edges, tail, n });
  domChildren[edges] = rootIndex;
  progress('tree', 2 * n, 2 * n);
  return { firstChild, domChildren };
}

/** Children of `node` in positions [start, end) of its sorted child list (clipped; a view, not a copy). */
export function dominatorChildren(tree: DominatorTree, node: number, start: number, end: number): Uint32Array {
  const begin = tree.firstChild[node];
  const count = tree.firstChild[node + 1] - begin;
  const s = Math.max(0, Math.min(start, count));
  const e = Math.max(s, Math.min(end, count));
  return tree.domChildren.subarray(begin + s, begin + e);
}

/** Number of dominator-tree children of `node`. */
export function dominatorChildCount(tree: DominatorTree, node: number): number {
  return tree.firstChild[node + 1] - tree.firstChild[node];
}

/** The nodes without a dominator: the root, then unreachable nodes by size desc (a view). */
export function forestRoots(tree: DominatorTree): Uint32Array {
  return tree.domChildren.subarray(tree.firstChild[tree.firstChild.length - 1]);
}

/**
 * The dominator chain from the top of `node`'s tree down to `node` inclusive: [root, …, node]
 * for a reachable node, [node] for an unreachable one (it has no dominator).
 */
export function dominatorPath(idom: Uint32Array, node: number): Uint32Array {
  let depth = 1;
  for (let v = idom[node]; v !== NONE; v = idom[v]) {
    if (++depth > idom.length) throw new BugError('dominator chain has a cycle', { node });
  }
  const path = new Uint32Array(depth);
  for (let v = node, i = depth - 1; i >= 0; v = idom[v], i--) path[i] = v;
  return path;
}

/**
 * All node ordinals ordered by retained size descending, ties by ascending ordinal.
 *
 * Retained sizes are integers below 2^53, so they sort as unsigned integer keys: a stable LSD
 * radix sort over five 11-bit digits (2,048 buckets keep the scatter cache-friendly and the
 * counts tiny), skipping digits on which every key agrees — the top ones, almost always, so a
 * heap under 8 GiB takes three passes. O(N) per pass instead of O(N log N) comparator calls,
 * which matters when the root alone has millions of children.
 */
function sortByRetainedDesc(retained: Float64Array, token: CancellationToken): Uint32Array {
  const n = retained.length;
  const counts = new Uint32Array(DIGITS * RADIX);
  for (let i = 0; i < n; i++) {
    if ((i & 0xffff) === 0) token.throwIfCancelled();
    const r = retained[i];
    for (let k = 0; k < DIGITS; k++) counts[k * RADIX + RADIX - 1 - digitOf(r, k)]++;
  }
  let src = new Uint32Array(n);
  for (let i = 0; i < n; i++) src[i] = i;
  let dst: Uint32Array | null = null;
  for (let k = 0; k < DIGITS; k++) {
    const base = k * RADIX;
    let sum = 0;
    let trivial = false;
    for (let d = 0; d < RADIX; d++) {
      const c = counts[base + d];
      if (c === n) trivial = true;
      counts[base + d] = sum;
      sum += c;
    }
    if (trivial) continue;
    dst ??= new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      if ((i & 0xffff) === 0) token.throwIfCancelled();
      const v = src[i];
      dst[counts[base + RADIX - 1 - digitOf(retained[v], k)]++] = v;
    }
    const t = src;
    src = dst;
    dst = t;
  }
  return src;
}

const RADIX = 2048;
const DIGITS = 5; // 55 bits ≥ 53

/** Bits [11k, 11k + 11) of the non-negative integer r < 2^53, without leaving int32 arithmetic. */
function digitOf(r: number, k: number): number {
  const lo = r >>> 0;
  const hi = (r - lo) / 4294967296;
  switch (k) {
    case 0:
      return lo & 0x7ff;
    case 1:
      return (lo >>> 11) & 0x7ff;
    case 2:
      return (lo >>> 22) | ((hi & 1) << 10);
    case 3:
      return (hi >>> 1) & 0x7ff;
    default:
      return (hi >>> 12) & 0x7ff;
  }
}

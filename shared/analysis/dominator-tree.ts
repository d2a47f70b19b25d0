import { BugError } from '../errors.js';
import { NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';
import { isShared, newUint32Array } from '../util/typed-arrays.js';
import type { Dominators } from './dominators.js';
import type { HelperThread } from './helper-thread.js';
import { RunSorter } from './run-sorter.js';

/**
 * The dominator tree, children largest retained size first (ties by ascending ordinal), so the
 * UI's default view is a window into an array, never a sort.
 *
 * Layout: the runs of children sit in `domChildren` in the order of their parents' positions in
 * `dom.order` (a DFS preorder), not of the parents' ordinals: the children of the node at
 * position p are `domChildren[treeChildStart[p] .. treeChildStart[p + 1])`, and
 * `treePosition[n]` is n's position (NONE when no root reaches n). `treeChildStart` is the
 * position tree's `firstOrderChild`, so building this writes `domChildren` front to back instead
 * of scattering every run to its parent's ordinal (on the 5M-object CF log: 0.39–0.52 s → 0.20–0.32
 * s for the whole tree). `dominatorChildren` / `dominatorChildCount` / `childRange` hide it.
 *
 * `domChildren` holds every node exactly once. The first R - 1 entries (R = reachable nodes) are
 * the tree edges; the tail holds the nodes that have no dominator: the root first, then the
 * unreachable nodes by retained (= own) size desc. `forestRoots` returns that tail.
 *
 * Memory: treePosition 4N, domChildren 4N, treeChildStart 4(R + 1) (shared with the OrderTree).
 */
export interface DominatorTree {
  readonly treePosition: Uint32Array;
  readonly treeChildStart: Uint32Array;
  readonly domChildren: Uint32Array;
}

/**
 * The same tree over positions of `dom.order` (children in ascending position), for passes that
 * walk the tree: in preorder positions a subtree's data sits close together. Memory 8R bytes.
 */
export interface OrderTree {
  readonly firstOrderChild: Uint32Array;
  readonly orderChild: Uint32Array;
}

/**
 * Counting sort of positions by their idom position. O(R). `sharedMemory`: in SharedArrayBuffers
 * (read by another thread). `storage`: a buffer of at least 8R + 4 bytes to hold both arrays
 * (its contents are overwritten), for a caller that reuses it once the tree is dropped.
 * `childStorage`: with `storage`, a second dead buffer for `orderChild` (4(R − 1) bytes), so
 * `storage` needs only 4(R + 1); each is used only when big enough (lean-retention.ts).
 */
export function buildOrderTree(dom: Pick<Dominators, 'orderIdom'>, token: CancellationToken = NEVER_CANCELLED, sharedMemory = false, storage: ArrayBuffer | null = null, childStorage: ArrayBuffer | null = null): OrderTree {
  const orderIdom = dom.orderIdom;
  const r = orderIdom.length;
  const inStorage = storage !== null && storage.byteLength >= 4 * (childStorage !== null ? r + 1 : 2 * r + 1);
  const firstOrderChild = inStorage ? new Uint32Array(storage, 0, r + 1).fill(0) : newUint32Array(r + 1, sharedMemory);
  for (let j = 1; j < r; j++) firstOrderChild[orderIdom[j]]++;
  let sum = 0;
  for (let p = 0; p < r; p++) {
    sum += firstOrderChild[p];
    firstOrderChild[p] = sum; // run end; the fill below walks it down to the run start
  }
  firstOrderChild[r] = sum;
  const orderChild =
    childStorage !== null
      ? inStorage && childStorage.byteLength >= 4 * sum
        ? new Uint32Array(childStorage, 0, sum)
        : newUint32Array(sum, sharedMemory)
      : inStorage
        ? new Uint32Array(storage, 4 * (r + 1), sum)
        : newUint32Array(sum, sharedMemory);
  for (let j = r - 1; j >= 1; j--) {
    if ((j & 0xffff) === 0) token.throwIfCancelled();
    orderChild[--firstOrderChild[orderIdom[j]]] = j;
  }
  return { firstOrderChild, orderChild };
}

/**
 * The tree with sorted child runs (layout: see DominatorTree). Each run is filled from the position tree and
 * sorted on its own: short runs by insertion sort, long ones (the root often has millions of
 * children) by a stable LSD radix sort on (retained desc, ordinal asc) with the keys moving
 * along, so no pass reads a size column at random. Scratch: 20 bytes per child of the largest
 * run (keys, ping-pong buffers) and 64 KiB of digit counts, dropped on return.
 *
 * `orderRetained` null: the keys are read from `retainedByNode` through `order` (the low-memory
 * path keeps no per-position sizes). `storage` (the low-memory path, lean-dominator-tree.ts):
 * `domChildren` in memory given (n words; it may be `orderChild` itself at the same offsets:
 * each entry is read before it is written), and `treePosition` made from `order` in place
 * (`positionsInOrder`: `order`'s buffer, from byte 0, holds n words, and `order` is garbage after).
 */
export function buildDominatorTree(
  dom: Pick<Dominators, 'order' | 'reachable'>,
  orderTree: OrderTree,
  orderRetained: Float64Array | null,
  selfSize: Uint32Array,
  rootIndex: number,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
  retainedByNode: Float64Array | null = null,
  storage: { domChildren?: Uint32Array | null; positionsInOrder?: boolean; helper?: HelperThread | null } = {},
): DominatorTree {
  const { order, reachable } = dom;
  const { firstOrderChild, orderChild } = orderTree;
  const n = reachable.length;
  const r = order.length;
  progress('tree', 0, r);
  token.throwIfCancelled();
  if (orderRetained === null && retainedByNode === null) throw new BugError('dominator tree: no retained sizes', { n });

  const inOrder = storage.positionsInOrder === true;
  const treePosition = inOrder ? EMPTY : new Uint32Array(n).fill(NONE);
  // Runs this long are put in ordinal order through a bitmap (one pass over n bits), so their
  // sort needs the key's digits only: the ordinal's three passes cost more than the scan.
  const longRun = retainedByNode ? Math.max(4096, n >>> 6) : Infinity;
  // Without per-position sizes (the low-memory path) the long runs and the unreachable run are
  // sorted in place reading each key from retainedByNode (RunSorter.sortByLookup) instead of
  // with carried keys: no scratch per child instead of 20 bytes (the root of the synthetic 10M
  // heap has 5.1M children), for random reads of the keys.
  const lookup = orderRetained === null;
  const domChildren = storage.domChildren ?? newUint32Array(n, lookup && storage.helper != null);
  // The first long run (the root's, on a .NET heap) is sorted by the helper thread, if any,
  // while this one sorts the others and inverts the order: it writes only that run's range of
  // domChildren, which nothing here reads again, and both only read retainedByNode.
  let helper = lookup && storage.helper && isShared(domChildren) && isShared(retainedByNode!) ? storage.helper : null;
  let widest = lookup ? 0 : n - r; // the unreachable run
  let handed = 0; // the length of the run the helper will sort (its entries are part of the phase's work)
  for (let p = 0; p < r; p++) {
    if ((p & 0xffff) === 0) token.throwIfCancelled();
    if (!inOrder) treePosition[order[p]] = p;
    const k = firstOrderChild[p + 1] - firstOrderChild[p];
    if (k > widest && !(lookup && k >= longRun)) widest = k;
    if (handed === 0 && helper !== null && k >= longRun) handed = k;
  }
  const edges = firstOrderChild[r];
  if (edges !== r - 1) throw new BugError('dominator tree: edge count differs from reachable nodes - 1', { edges, r });
  // The phase's work, so that the bar moves through all of it: this thread's positions, the
  // unreachable run's sort and the inversion (the low-memory path's, entry by entry), and the
  // helper's run, which it counts as it places the entries (read here, also while waiting for it).
  const unreachableSort = lookup ? n - r : 0;
  const work = r + unreachableSort + (inOrder ? n : 0) + handed;
  const placed = handed > 0 ? new Int32Array(new SharedArrayBuffer(4)) : null;
  let mine = 0;
  const report = (): void => progress('tree', mine + (placed !== null ? Atomics.load(placed, 0) : 0), work);
  let helped = false;
  const sorter = new RunSorter(widest, lookup);
  const keys = sorter.keys;
  let marks: Int32Array | null = null;
  for (let p = 0; p < r; p++) {
    if ((p & 0xffff) === 0) {
      token.throwIfCancelled();
      mine = p;
      report();
    }
    const from = firstOrderChild[p];
    const k = firstOrderChild[p + 1] - from;
    if (k === 0) continue;
    const base = from; // runs in parent position order: written front to back
    if (k >= longRun) {
      marks ??= new Int32Array((n >>> 5) + 1);
      inOrdinalOrder(order, orderChild, from, k, marks, domChildren, base, lookup ? null : keys, retainedByNode!);
      if (helper !== null) {
        helper.start({ kind: 'sort-run', nodes: domChildren, base, k, keyOf: retainedByNode!, placed });
        helper = null;
        helped = true;
      } else if (lookup) sorter.sortByLookup(domChildren, base, k, retainedByNode!);
      else sorter.sortByKey(domChildren, base, k);
      continue;
    }
    if (orderRetained !== null) {
      for (let i = 0; i < k; i++) {
        const c = orderChild[from + i];
        domChildren[base + i] = order[c];
        keys[i] = orderRetained[c];
      }
    } else {
      for (let i = 0; i < k; i++) {
        const v = order[orderChild[from + i]];
        domChildren[base + i] = v;
        keys[i] = retainedByNode![v];
      }
    }
    sorter.sort(domChildren, base, k);
  }
  domChildren[edges] = rootIndex;
  let tail = edges + 1;
  for (let v = 0; v < n; v++) {
    if (reachable[v] === 0) {
      if (!lookup) keys[tail - edges - 1] = selfSize[v];
      domChildren[tail++] = v;
    }
  }
  // filled in ordinal order; an unreachable node's retained size is its own (analyze.ts)
  mine = r;
  if (lookup) {
    sorter.sortByLookup(domChildren, edges + 1, n - edges - 1, retainedByNode!, (d) => {
      mine = r + d;
      report();
    });
  } else sorter.sortByKey(domChildren, edges + 1, n - edges - 1);
  mine = r + unreachableSort;
  const positions = inOrder
    ? invertOrderInPlace(order, reachable, token, (d) => {
        mine = r + unreachableSort + d;
        report();
      })
    : treePosition;
  mine = work - handed;
  if (helped) storage.helper!.join(report);
  progress('tree', work, work);
  return { treePosition: positions, treeChildStart: firstOrderChild, domChildren };
}

const EMPTY = new Uint32Array(0);
const MARK = 0x80000000;
const NO_REPORT = (_entries: number): void => {};

/**
 * treePosition (n words: position of each node in `order`, NONE when unreachable) in the memory
 * of `order`, which is garbage after: `order`'s buffer must hold n words from byte 0 (`order`
 * itself may start one word in, as the dominators' `vertex` does). `order` is moved to the
 * front, the unreachable nodes appended in ordinal order so that it is a permutation of 0..n-1,
 * and the permutation inverted in place, bit 31 marking the entries done (node
 * ordinals are below 2^31 − 1, graph-limits.ts), by walks along its cycles, several at once
 * (invertCycles). O(n), no memory but the result.
 */
export function invertOrderInPlace(order: Uint32Array, reachable: Uint8Array, token: CancellationToken = NEVER_CANCELLED, report: (entries: number) => void = NO_REPORT): Uint32Array {
  const n = reachable.length;
  const r = order.length;
  const a = new Uint32Array(order.buffer, 0, n);
  // forward copy: order[p] sits at or after a[p], so each entry is read before it is overwritten
  for (let p = 0; p < r; p++) a[p] = order[p];
  let tail = r;
  for (let v = 0; v < n; v++) {
    if ((v & 0xffff) === 0) token.throwIfCancelled();
    if (reachable[v] === 0) a[tail++] = v;
  }
  if (tail !== n) throw new BugError('dominator tree: reachable nodes differ from the order', { n, r, tail });
  invertCycles(a, token, report);
  for (let v = 0; v < n; v++) {
    if ((v & 0xffff) === 0) token.throwIfCancelled();
    const p = (a[v] & ~MARK) >>> 0;
    a[v] = p < r ? p : NONE;
  }
  return a;
}

/** Walks of invertCycles at once. */
const WALKERS = 8;
/** invertCycles' mark of a start not yet reached: bit 31 and an index no node has (ordinals are below 2^31 − 1). */
const START = 0xffffffff;

/**
 * Inverts the permutation `a` of 0..n-1 in place (a[π(j)] = j), setting bit 31 on every entry.
 * One walk per cycle would be a chain of dependent random reads as long as the cycle, and a
 * random permutation's largest cycle holds most entries: each read waits for the one before.
 * So up to WALKERS walks run at once, a step of each in turn, and their reads overlap. Each walk
 * starts at an entry not yet done, keeps that start's successor and marks the start START, then
 * goes forward writing every entry's predecessor into it; the entry it reads as START is a start
 * (its own or another walk's), which gets its predecessor the same way and ends the walk. The walk
 * then starts again at the next entry not done. The starts cut the cycles into pieces that exactly
 * one walk covers. Memory: a few words per walk.
 */
function invertCycles(a: Uint32Array, token: CancellationToken, report: (entries: number) => void): void {
  const n = a.length;
  const prev = new Int32Array(WALKERS);
  const cur = new Int32Array(WALKERS);
  const live = new Uint8Array(WALKERS);
  let scan = 0;
  // a new walk for slot w from the next entry not done (starts are marked too); false at the end
  const launch = (w: number): boolean => {
    while (scan < n && (a[scan] & MARK) !== 0) scan++;
    if (scan >= n) return false;
    const s = scan++;
    prev[w] = s;
    cur[w] = a[s];
    a[s] = START;
    return true;
  };
  let active = 0;
  for (let w = 0; w < WALKERS; w++) {
    if (!launch(w)) break;
    live[w] = 1;
    active++;
  }
  let steps = 0;
  while (active > 0) {
    if ((++steps & 0xffff) === 0) {
      token.throwIfCancelled();
      report(Math.min(n, steps * WALKERS)); // each round inverts one entry per live walk: about this many
    }
    for (let w = 0; w < WALKERS; w++) {
      if (live[w] === 0) continue;
      const c = cur[w];
      const next = a[c];
      a[c] = (prev[w] | MARK) >>> 0;
      if (next !== START) {
        prev[w] = c;
        cur[w] = next;
      } else if (!launch(w)) {
        // c was a start: it has its predecessor now, and this walk ends
        live[w] = 0;
        active--;
      }
    }
  }
}

/** The children order[orderChild[from .. from + k)] into nodes[base ..] in ascending ordinal, their retained sizes into keys (unless null). */
function inOrdinalOrder(order: Uint32Array, orderChild: Uint32Array, from: number, k: number, marks: Int32Array, nodes: Uint32Array, base: number, keys: Float64Array | null, retainedByNode: Float64Array): void {
  let lo = marks.length;
  let hi = 0;
  for (let i = 0; i < k; i++) {
    const v = order[orderChild[from + i]];
    const w = v >>> 5;
    marks[w] |= 1 << (v & 31);
    if (w < lo) lo = w;
    if (w > hi) hi = w;
  }
  let i = 0;
  for (let w = lo; w <= hi; w++) {
    let bits = marks[w];
    if (bits === 0) continue;
    marks[w] = 0;
    while (bits !== 0) {
      const low = bits & -bits;
      const v = (w << 5) | (31 - Math.clz32(low));
      nodes[base + i] = v;
      if (keys !== null) keys[i] = retainedByNode[v];
      i++;
      bits ^= low;
    }
  }
}

/** Where `node`'s children are in `domChildren`: [start, end) (empty for a leaf or an unreachable node). */
export function childRange(tree: DominatorTree, node: number): { start: number; end: number } {
  const p = tree.treePosition[node];
  if (p === NONE) return { start: 0, end: 0 };
  return { start: tree.treeChildStart[p], end: tree.treeChildStart[p + 1] };
}

/** Children of `node` in positions [start, end) of its sorted child list (clipped; a view, not a copy). */
export function dominatorChildren(tree: DominatorTree, node: number, start: number, end: number): Uint32Array {
  const range = childRange(tree, node);
  const count = range.end - range.start;
  const s = Math.max(0, Math.min(start, count));
  const e = Math.max(s, Math.min(end, count));
  return tree.domChildren.subarray(range.start + s, range.start + e);
}

/** Number of dominator-tree children of `node`. */
export function dominatorChildCount(tree: DominatorTree, node: number): number {
  const range = childRange(tree, node);
  return range.end - range.start;
}

/** The nodes without a dominator: the root, then unreachable nodes by size desc (a view). */
export function forestRoots(tree: DominatorTree): Uint32Array {
  return tree.domChildren.subarray(tree.treeChildStart[tree.treeChildStart.length - 1]);
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

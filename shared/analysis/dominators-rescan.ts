import { BugError } from '../errors.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { isShared, newUint32Array } from '../util/typed-arrays.js';
import { countsOutEdges } from './counted-edges.js';
import type { HelperThread } from './helper-thread.js';
import { startPageTouch, stopPageTouch } from './page-touch.js';

/**
 * The later predecessors (cross and back references) for the semidominator pass, found again
 * from the finished DFS numbering instead of being stored while the DFS runs.
 *
 * Why: the DFS's pair buckets (dominators-dfs.ts) hold 8 bytes per later predecessor while the
 * DFS runs, and grouping them into `pred` (4 bytes each) needs both at once: 12 bytes per pair
 * on top of the DFS's 20 per node, the peak of `heapscope report` (15 bytes per node on the
 * synthetic benchmark heap, 12.6M pairs for 10M objects). Here the only memory is `pred` itself.
 * The cost is two more passes over the counted references of reachable nodes, in ordinal
 * order: the edge rows are read sequentially and each target's preorder number at random, but
 * the reads do not depend on each other (unlike the DFS's chain), so their misses overlap.
 *
 * Which references qualify is the DFS's own rule: a counted reference v → u (v, u preorder
 * numbers) out of a reachable node is a later predecessor exactly when u < v. The DFS scans
 * every counted reference of every reachable node once, and classifies it by comparing the two
 * numbers when it scans it; a later predecessor u < v compares the same afterwards, since u was
 * numbered before v was entered. Forward and tree references (u > v) were already folded into
 * `semi` by the DFS. So the pairs are the same multiset as the buckets' (the order inside a run
 * differs, which the pass does not depend on: semi is a minimum).
 *
 * Layout of the result, for `semidominatorsForNca` with `marked`: runs by ascending u, the first
 * entry of each run has bit 31 set (RUN_START), and `semi[u]` has bit 31 set when u has a run.
 * Both values are preorder numbers, below 2^31 (graph-limits.ts caps nodes at 2^31 − 1), so the
 * bit is free. So no per-vertex array of run starts is needed: the pass walks `pred` backwards
 * and each run ends at its marked entry.
 *
 * `rec` is the DFS's node records (`stride` words per node, the preorder number first, 0 = not
 * reached); their second word is scratch here (a count, then a cursor): the first edge is read
 * from the graph's own column. Memory: `pred`, 4 bytes per later predecessor; nothing else.
 */
export const RUN_START = 0x80000000;

/**
 * A second thread (helper-thread.ts) takes half of each pass. The passes split the targets, not
 * the sources: each thread reads every reference in order but follows, counts and fills only
 * those whose target is in its share (blocks of 1,024 ordinals, alternating), so no two threads
 * write the same record or run and nothing needs an atomic operation; the random reads, the
 * passes' cost, are halved, and the sequential reads are done twice.
 *
 * Words past the DFS records (`stride`(n + 1)) and past the pairs that a rescan with a helper
 * needs: each thread's dummy record and spare `pred` word, 16 words (a cache line) apart.
 */
export const RESCAN_PAD = 32;

export function laterPredecessorsByRescan(
  g: HeapGraph,
  rec: Uint32Array,
  stride: number,
  vertex: Uint32Array,
  semi: Uint32Array,
  reachableCount: number,
  token: CancellationToken,
  helper: HelperThread | null = null,
  progress: RescanProgress = NO_REPORT,
): Uint32Array {
  const n = g.nodeCount;
  const split = helper !== null ? 1 : 0;
  if (split === 1 && (rec.length < stride * (n + 1) + RESCAN_PAD || !isShared(rec))) {
    throw new BugError('rescan: a helper needs the DFS records shared, with RESCAN_PAD words to spare', { words: rec.length });
  }
  for (let t = 0; t < n; t++) {
    if ((t & 0xffff) === 0) token.throwIfCancelled();
    rec[stride * t + 1] = 0;
  }
  for (let p = 0; p < 2 * split; p++) {
    // each thread's dummy record: a preorder number no source is below, so nothing qualifies
    rec[stride * (n + 1) + 16 * p] = DUMMY_NUMBER;
    rec[stride * (n + 1) + 16 * p + 1] = 0;
  }
  helper?.start({ kind: 'rescan-count', rec, stride, part: 1 });
  let pairCount = countLaterPredecessors(g, rec, stride, 0, split, token, (src) => progress((COUNT_SHARE * src) / n));
  if (helper !== null) pairCount += helper.join();
  // one spare word per thread (fillLaterPredecessors)
  const withSpare = newUint32Array(pairCount + (split === 1 ? RESCAN_PAD : 1), split === 1);
  const pred = withSpare.subarray(0, pairCount);
  // the helper, idle while this thread finds the run starts, commits the list's fresh pages
  // first (page-touch.ts), so the fill's scattered writes do not each stop on a page fault
  const touch = helper !== null ? startPageTouch(helper, [{ array: withSpare, backward: false }]) : null;
  try {
    runStarts(rec, stride, vertex, semi, reachableCount, token, progress);
  } finally {
    if (touch !== null) stopPageTouch(helper!, touch);
  }
  helper?.start({ kind: 'rescan-fill', rec, stride, part: 1, pred: withSpare, pairCount });
  const filled = COUNT_SHARE + STARTS_SHARE;
  fillLaterPredecessors(g, rec, stride, withSpare, pairCount, 0, split, token, (src) => progress(filled + ((1 - filled) * src) / n));
  helper?.join();
  progress(1);
  return pred;
}

/**
 * Run starts by ascending u, left in rec as each node's fill cursor with RUN_START set: the
 * fill's first write to a run carries the mark and clears it from the cursor.
 */
function runStarts(rec: Uint32Array, stride: number, vertex: Uint32Array, semi: Uint32Array, reachableCount: number, token: CancellationToken, progress: RescanProgress): void {
  let sum = 0;
  for (let u = 1; u <= reachableCount; u++) {
    if ((u & 0xffff) === 0) {
      token.throwIfCancelled();
      progress(COUNT_SHARE + (STARTS_SHARE * u) / reachableCount);
    }
    const at = stride * vertex[u] + 1;
    const k = rec[at];
    if (k === 0) continue;
    rec[at] = sum | RUN_START;
    semi[u] |= RUN_START;
    sum += k;
  }
}

/**
 * How far the rescan is, from 0 to 1 (the caller maps it onto its phase's work). Reported by the
 * calling thread only, every 65,536 nodes of each pass: at 100M objects the rescan takes about as
 * long as the DFS, and without it a progress bar would stand still that long.
 */
export type RescanProgress = (fraction: number) => void;
/** The passes' shares of that fraction, about their shares of the time on big heaps. */
const COUNT_SHARE = 0.3;
const STARTS_SHARE = 0.2;
/** The default of the progress callbacks here (the whole rescan's, and each pass's by source node). */
const NO_REPORT = (_value: number): void => {};

/** A dummy record's preorder number: (DUMMY_NUMBER − v) >>> 31 is 0 for every v < 2^31. */
const DUMMY_NUMBER = 0x7fffffff;

/**
 * Where thread `part` reads target t's record: t's own when t is in its share, else its dummy.
 * With `split` 0 every target is in the share. Branch-free: the shares alternate by blocks of
 * 1,024 ordinals, so a branch on them would mispredict about half the time.
 */
function recordAt(t: number, stride: number, dummy: number, part: number, split: number): number {
  const own = 1 ^ (((t >>> 10) ^ part) & split);
  return dummy + own * (stride * t - dummy);
}

/**
 * Pass 1 for one share of the targets: per target, how many later predecessors it has (in
 * rec's second word); returns the share's total. Exported for the helper thread.
 */
export function countLaterPredecessors(
  g: HeapGraph,
  rec: Uint32Array,
  stride: number,
  part: number,
  split: number,
  token: CancellationToken,
  report: (src: number) => void = NO_REPORT,
): number {
  const { nodeCount: n, firstEdge, edgeTarget, nodeFlags } = g;
  const dummy = stride * (n + 1) + 16 * part;
  let pairs = 0;
  for (let src = 0; src < n; src++) {
    if ((src & 0xffff) === 0) {
      token.throwIfCancelled();
      report(src);
    }
    const v = rec[stride * src];
    if (v === 0 || !countsOutEdges(nodeFlags, src)) continue;
    for (let k = firstEdge[src], end = firstEdge[src + 1]; k < end; k++) {
      const at = recordAt(edgeTarget[k], stride, dummy, part, split);
      // branch-free: about half the references qualify, at random, so a branch mispredicts often
      const later = (rec[at] - v) >>> 31;
      rec[at + 1] += later;
      pairs += later;
    }
  }
  return pairs;
}

/**
 * Pass 2 for one share: the same references, each source written at its target's cursor. A
 * cursor with RUN_START set is its run's first slot: the write carries the mark, and the cursor
 * moves on without it. So each write is a plain store (a read-modify-write of `pred` would add
 * a second random load per pair to the cursor's). `pred` holds `pairCount` pairs and the
 * threads' spare words after them. Exported for the helper thread.
 */
export function fillLaterPredecessors(
  g: HeapGraph,
  rec: Uint32Array,
  stride: number,
  pred: Uint32Array,
  pairCount: number,
  part: number,
  split: number,
  token: CancellationToken,
  report: (src: number) => void = NO_REPORT,
): void {
  const { nodeCount: n, firstEdge, edgeTarget, nodeFlags } = g;
  const dummy = stride * (n + 1) + 16 * part;
  const spare = pairCount + 16 * part;
  for (let src = 0; src < n; src++) {
    if ((src & 0xffff) === 0) {
      token.throwIfCancelled();
      report(src);
    }
    const v = rec[stride * src];
    if (v === 0 || !countsOutEdges(nodeFlags, src)) continue;
    for (let k = firstEdge[src], end = firstEdge[src + 1]; k < end; k++) {
      const at = recordAt(edgeTarget[k], stride, dummy, part, split);
      // branch-free as above: a reference that does not qualify writes the spare word and
      // leaves the cursor (and its mark) as it was
      const later = (rec[at] - v) >>> 31;
      const c = rec[at + 1];
      const slot = c & ~RUN_START;
      pred[later === 1 ? slot : spare] = v | (c & RUN_START);
      rec[at + 1] = later === 1 ? slot + 1 : c;
    }
  }
}

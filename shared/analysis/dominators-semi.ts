import { BugError } from '../errors.js';
import type { CancellationToken } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { isShared } from '../util/typed-arrays.js';
import type { HelperThread } from './helper-thread.js';

/**
 * LT steps 2 (and 3): semidominators in reverse preorder, each later predecessor v of w
 * contributing EVAL(v), the minimum semi on v's forest path, by path compression ("simple"
 * linking). Two versions of one loop:
 *
 *   - `semidominatorsForNca` (the default): SEMI-NCA needs only the minimum semi, never the
 *     vertex that has it, so a forest record is 2 words [ancestor, min semi]: twice as many
 *     records per cache line as LT's 4-word records, measured ~20% faster at 10M objects;
 *   - `semidominatorsWithBuckets` (the Lengauer–Tarjan cross-check): 4-word records [ancestor,
 *     label, semi[label], -] and the semidominator buckets, which need the label vertex.
 *
 * "w is linked into the forest" ⟺ w > threshold, because vertices are linked exactly in the
 * order they are processed; so there is no separate LINK step and no "ancestor = 0" sentinel,
 * and w's ancestor slot still holds its DFS parent until w is processed. Before that, slot 1 of
 * w's record holds the start of w's run in `pred` (groupLaterPredecessors); with `marked`, the
 * runs carry their own boundaries instead (laterPredecessorsByRescan) and that slot is unused.
 *
 * `pred` is read backwards, run by run; `LOOKAHEAD` entries further down, each predecessor's
 * record is loaded early into a sink, since almost every one is a cache miss on a big heap (the
 * CPU fetches the line while it works on the current one: 25–35% off this pass). Closer in,
 * `LOOKAHEAD2` and `LOOKAHEAD3` entries ahead, the records of its forest ancestor and of that
 * one's ancestor are loaded the same way (by then the record before is in cache): the EVAL walk
 * is a chain of dependent misses, and its average length grows with the heap (simple linking:
 * 2.24 records per call at 2M objects, 2.50 at 10M), which made this pass the one whose cost per
 * node grew most with size (test/perf/analysis-scaling.bench.ts). Loads only: a link changed
 * by a compression in between merely wastes that load. Measured on the 10M-object synthetic
 * heap, same process, interleaved: about 15–20% less CPU in this pass; no change at 2M.
 *
 * With a helper thread (`pred` and `forest` in SharedArrayBuffers) the pass can have a look-ahead
 * of its own, much further out, on that thread: startSemidominatorPrefetch gives the `control`
 * words the pass publishes its position in (prefetchForSemidominators below).
 */
const LOOKAHEAD = 16;
/** Bit 31 of a `pred` entry and of `semi[w]` with `marked` (dominators-rescan.ts); values are below 2^31. */
const RUN_START = 0x80000000;
const VALUE = 0x7fffffff;
const LOOKAHEAD2 = 8;
const LOOKAHEAD3 = 4;

/**
 * Starts the helper's look-ahead for semidominatorsForNca over these arrays (both shared), and
 * returns the control words to pass to it; stopSemidominatorPrefetch ends it.
 */
export function startSemidominatorPrefetch(helper: HelperThread, pred: Uint32Array, forest: Uint32Array): Int32Array | null {
  if (!isShared(pred) || !isShared(forest)) return null;
  const control = new Int32Array(new SharedArrayBuffer(64));
  Atomics.store(control, 0, pred.length + 1);
  helper.start({ kind: 'semi-prefetch', pred, forest, control });
  return control;
}

/** Ends the look-ahead (also when the pass threw) and waits for the helper to let go. */
export function stopSemidominatorPrefetch(helper: HelperThread, control: Int32Array): void {
  Atomics.store(control, 0, 0);
  helper.join();
}

/** The default pass; `control` is startSemidominatorPrefetch's, when a helper looks ahead of it. */
export function semidominatorsForNca(
  pred: Uint32Array,
  forest: Uint32Array,
  semi: Uint32Array,
  reachableCount: number,
  token: CancellationToken,
  progress: ProgressSink,
  progressBase: number,
  work: number,
  marked = false,
  control: Int32Array | null = null,
): void {
  let runEnd = pred.length;
  let requested = runEnd;
  let requested2 = runEnd;
  let requested3 = runEnd;
  let sink = 0;
  for (let w = reachableCount; w >= 2; w--) {
    if ((w & PUBLISH_MASK) === 0) {
      if (control !== null) Atomics.store(control, 0, runEnd + 1);
      if ((w & 0xffff) === 0) {
        token.throwIfCancelled();
        progress('dominators', progressBase + reachableCount - w, work);
      }
    }
    let s = semi[w];
    let runStart = runEnd;
    if (!marked) runStart = forest[2 * w + 1];
    else if (s >= RUN_START) {
      s -= RUN_START;
      while (pred[--runStart] < RUN_START);
      // past the front (pred[-1] is undefined): a run without its mark; stop rather than walk
      // negative indices, which would never end
      if (runStart < 0) throw new BugError('semidominators: a later-predecessor run has no start mark', { vertex: w });
    }
    const ahead = runStart > LOOKAHEAD ? runStart - LOOKAHEAD : 0;
    while (requested > ahead) sink ^= forest[2 * (pred[--requested] & VALUE)];
    const ahead2 = runStart > LOOKAHEAD2 ? runStart - LOOKAHEAD2 : 0;
    while (requested2 > ahead2) sink ^= forest[2 * forest[2 * (pred[--requested2] & VALUE)]];
    const ahead3 = runStart > LOOKAHEAD3 ? runStart - LOOKAHEAD3 : 0;
    while (requested3 > ahead3) sink ^= forest[2 * forest[2 * forest[2 * (pred[--requested3] & VALUE)]]];
    for (let r = runStart; r < runEnd; r++) {
      const v = pred[r] & VALUE;
      compressMin(v, w, forest);
      const candidate = forest[2 * v + 1];
      if (candidate < s) s = candidate;
    }
    runEnd = runStart;
    semi[w] = s;
    forest[2 * w + 1] = s;
  }
  semi[0] = sink; // semi[0] is no vertex; the store only keeps the early loads alive
}

/**
 * The helper thread's side of the pass (`semidominatorsForNca` with `control`): the pass's own
 * look-ahead (above) reaches 16 entries; this walks `pred` backwards up to PREFETCH_DISTANCE
 * entries ahead of the pass and loads each predecessor's record and its forest ancestor's, so
 * that most of the pass's misses find their lines already on the chip (and their page-table
 * entries). The pass publishes where it is, plus one, in control[0] every 1,024 vertices; 0 ends
 * the job. Loads only, racing the pass's writes: any word of the forest is a vertex number or 0
 * (a stale or reversed link included), and a value past the forest is read as 0, so at worst a
 * load is wasted. When a whole distance ahead it sleeps in 50 µs naps rather than spin, so a
 * sibling hyperthread does not take the pass's issue slots. Cost: the helper's core while the
 * pass runs; what it saves is in README's performance table (issue 17). The distance: a few
 * thousand entries did best at 10M objects; far more than the caches hold did no better than none.
 */
export function prefetchForSemidominators(pred: Uint32Array, forest: Uint32Array, control: Int32Array): number {
  let pos = pred.length;
  let sink = 0;
  const limit = (forest.length >>> 1) - 1;
  for (;;) {
    const at = Atomics.load(control, 0) - 1;
    if (at < 0) break;
    if (pos > at) pos = at;
    const target = at > PREFETCH_DISTANCE ? at - PREFETCH_DISTANCE : 0;
    if (pos <= target) {
      Atomics.wait(control, 2, 0, 0.05); // word 2 is never notified: a nap
      continue;
    }
    const stop = pos - target > 1024 ? pos - 1024 : target;
    while (pos > stop) {
      const v = pred[--pos] & VALUE;
      const up = forest[2 * (v < limit ? v : 0)];
      sink ^= forest[2 * (up < limit ? up : 0)];
    }
  }
  control[1] = sink; // a store to shared memory keeps the loads from being optimized away
  return 0;
}
const PREFETCH_DISTANCE = 8192;
/** The pass publishes its position every PUBLISH_MASK + 1 vertices. */
const PUBLISH_MASK = 1023;

/**
 * The same with labels, plus LT step 3: each vertex's implicit dominator from its parent's
 * bucket, written into bucketNext, which thereby becomes `dom`.
 */
export function semidominatorsWithBuckets(
  pred: Uint32Array,
  forest: Uint32Array,
  semi: Uint32Array,
  bucketHead: Uint32Array,
  bucketNext: Uint32Array,
  reachableCount: number,
  token: CancellationToken,
  progress: ProgressSink,
  progressBase: number,
  work: number,
): void {
  let runEnd = pred.length;
  for (let w = reachableCount; w >= 2; w--) {
    if ((w & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('dominators', progressBase + reachableCount - w, work);
    }
    const runStart = forest[4 * w + 1];
    const parent = forest[4 * w];
    let s = semi[w];
    for (let r = runStart; r < runEnd; r++) {
      const v = pred[r];
      compressLabel(v, w, forest);
      const candidate = forest[4 * v + 2];
      if (candidate < s) s = candidate;
    }
    runEnd = runStart;
    semi[w] = s;
    forest[4 * w + 1] = w;
    forest[4 * w + 2] = s;
    bucketNext[w] = bucketHead[s];
    bucketHead[s] = w;
    // link(parent, w) happened implicitly: from here on the threshold is w - 1. Every v in the
    // bucket has semi[v] = parent, so dom[v] = parent unless EVAL finds a smaller semi below it.
    for (let v = bucketHead[parent]; v !== 0; ) {
      const after = bucketNext[v];
      compressLabel(v, w - 1, forest);
      bucketNext[v] = forest[4 * v + 2] < parent ? forest[4 * v + 1] : parent;
      v = after;
    }
    bucketHead[parent] = 0;
  }
}

/**
 * LT's EVAL for a linked vertex v (v > threshold), minus the final lookup: compresses the forest
 * path above v so that afterwards v's min slot holds the minimum semi on the path (the forest
 * root excluded). The path is walked twice, by reversing its ancestor links on the way up and
 * pointing them at the forest root on the way down, which replaces the recursion without a stack
 * array. On the benchmark heap a third of the calls return at once and the rest walk 3.7 records
 * on average. (Path halving, one pass, measured no faster.)
 */
function compressMin(v: number, threshold: number, forest: Uint32Array): void {
  if (forest[2 * v] <= threshold) return;
  let below = 0;
  let x = v;
  for (;;) {
    const up = forest[2 * x];
    if (up <= threshold) break;
    forest[2 * x] = below;
    below = x;
    x = up;
  }
  const forestRoot = forest[2 * x];
  let above = x;
  let cur = below;
  while (cur !== 0) {
    const down = forest[2 * cur];
    const min = forest[2 * above + 1];
    if (min < forest[2 * cur + 1]) forest[2 * cur + 1] = min;
    forest[2 * cur] = forestRoot;
    above = cur;
    cur = down;
  }
}

/** compressMin over 4-word records, carrying the label vertex along with its semi. */
function compressLabel(v: number, threshold: number, forest: Uint32Array): void {
  if (forest[4 * v] <= threshold) return;
  let below = 0;
  let x = v;
  for (;;) {
    const up = forest[4 * x];
    if (up <= threshold) break;
    forest[4 * x] = below;
    below = x;
    x = up;
  }
  const forestRoot = forest[4 * x];
  let above = x;
  let cur = below;
  while (cur !== 0) {
    const down = forest[4 * cur];
    if (forest[4 * above + 2] < forest[4 * cur + 2]) {
      forest[4 * cur + 1] = forest[4 * above + 1];
      forest[4 * cur + 2] = forest[4 * above + 2];
    }
    forest[4 * cur] = forestRoot;
    above = cur;
    cur = down;
  }
}

/**
 * Sorting a dominator tree's child runs by (retained size desc, ordinal asc): the radix sorts
 * buildDominatorTree uses (dominator-tree.ts). Kept apart because the sorts are a third of the
 * tree's code and have their own memory trade-offs (carried keys or in-place lookups).
 */

const RADIX = 2048;
const INSERTION_MAX = 32;
/** sortByLookup's segments up to this long are sorted with carried keys (20 bytes each of scratch, once). */
const SMALL = 4096;
/** sortByLookup's `report` interval, in entries placed. */
const REPORT_EVERY = 1 << 16;

/**
 * Sorts a run of node ordinals by (key desc, ordinal asc), where `keys[i]` belongs to the run's
 * i-th node. Keys are integers below 2^53 (sizes), so the radix sort takes them as 55-bit
 * unsigned integers in five 11-bit digits after three 11-bit digits of the ordinal, skipping
 * digits on which the whole run agrees (the top ones, almost always).
 */
export class RunSorter {
  readonly keys: Float64Array;
  private readonly keysB: Float64Array;
  private readonly nodesB: Uint32Array;
  private readonly counts = new Uint32Array(8 * RADIX);
  /** sortByLookup's bucket ends. */
  private readonly ends = new Uint32Array(RADIX);

  /** `lookup`: sortByLookup will be used (its small segments need SMALL entries of each buffer). */
  constructor(capacity: number, lookup = false) {
    const keyed = lookup ? Math.max(capacity, SMALL) : capacity;
    this.keys = new Float64Array(keyed);
    const big = keyed > INSERTION_MAX ? keyed : 0;
    this.keysB = new Float64Array(big);
    this.nodesB = new Uint32Array(big);
  }

  /**
   * sortByKey's order for a run whose keys are `keyOf[node]`, in place: no scratch per node (the
   * low-memory path, where a ping-pong buffer for the root's run, 51M children on the synthetic
   * 100M heap, would be the tree's peak). MSD radix over the composite digits, the key's five then
   * the ordinal's three (the ties' ordinal order is not kept by an in-place permutation, so it is
   * sorted for), each segment permuted in place (American flag sort), digits on which a segment
   * agrees skipped; segments of up to SMALL nodes go to the carried-key sort in this sorter's small
   * buffers. Reads keyOf[node] at random twice per node and level.
   *
   * `report` gets the number of entries in their final place so far, every REPORT_EVERY entries
   * or so and k at the end (a progress bar's; the helper thread's sort of the root's run
   * publishes it to the thread that waits for it: helper-thread.ts).
   */
  sortByLookup(nodes: Uint32Array, base: number, k: number, keyOf: Float64Array, report: ((placed: number) => void) | null = null): void {
    const counts = this.counts;
    const ends = this.ends;
    const stack: number[] = [base, base + k, 7];
    let done = 0;
    let reported = 0;
    while (stack.length > 0) {
      const d = stack.pop()!;
      const hi = stack.pop()!;
      const lo = stack.pop()!;
      const m = hi - lo;
      if (m < 2 || d < 0 || m <= SMALL) {
        done += m;
        if (report !== null && done - reported >= REPORT_EVERY) report((reported = done));
      }
      if (m < 2 || d < 0) continue;
      if (m <= SMALL) {
        // The segment's entries agree on every digit above d, so its sort needs digits 0..d only;
        // below the key's digits (d < 3) all its keys are equal and none is read: one random read
        // per node less, on the ties that most of a big run's segments are (object sizes repeat).
        if (d >= 3) for (let i = 0; i < m; i++) this.keys[i] = keyOf[nodes[lo + i]];
        else this.keys.fill(0, 0, m);
        if (m <= INSERTION_MAX) this.insertion(nodes, lo, m);
        else this.radix(nodes, lo, m, 0, d);
        continue;
      }
      counts.fill(0, 0, RADIX);
      // the ordinal's digits (d < 3) need no key: no random read of keyOf for them
      const keyed = d >= 3;
      for (let i = lo; i < hi; i++) {
        const v = nodes[i];
        counts[digit(v, keyed ? keyOf[v] : 0, d)]++;
      }
      let sum = lo;
      let trivial = false;
      for (let b = 0; b < RADIX; b++) {
        const c = counts[b];
        if (c === m) trivial = true;
        counts[b] = sum; // the bucket's next free slot
        sum += c;
        ends[b] = sum;
      }
      if (trivial) {
        stack.push(lo, hi, d - 1);
        continue;
      }
      for (let b = 0; b < RADIX; b++) {
        while (counts[b] < ends[b]) {
          let v = nodes[counts[b]];
          let db = digit(v, keyed ? keyOf[v] : 0, d);
          while (db !== b) {
            // put v in its bucket, carry on with the one it displaces
            const at = counts[db]++;
            const w = nodes[at];
            nodes[at] = v;
            v = w;
            db = digit(w, keyed ? keyOf[w] : 0, d);
          }
          nodes[counts[b]++] = v;
        }
      }
      for (let b = 0, from = lo; b < RADIX; b++) {
        if (ends[b] - from > 1) stack.push(from, ends[b], d - 1);
        else done += ends[b] - from; // a bucket of one is in its final place
        from = ends[b];
      }
    }
    report?.(done);
  }

  sort(nodes: Uint32Array, base: number, k: number): void {
    if (k < 2) return;
    if (k <= INSERTION_MAX) this.insertion(nodes, base, k);
    else this.radix(nodes, base, k, 0);
  }

  /** The same order for a run already in ascending ordinal order: the radix sort then skips the ordinal's digits (it is stable). */
  sortByKey(nodes: Uint32Array, base: number, k: number): void {
    if (k < 2) return;
    if (k <= INSERTION_MAX) this.insertion(nodes, base, k);
    else this.radix(nodes, base, k, 3);
  }

  private insertion(nodes: Uint32Array, base: number, k: number): void {
    const keys = this.keys;
    for (let i = 1; i < k; i++) {
      const key = keys[i];
      const node = nodes[base + i];
      let j = i - 1;
      while (j >= 0 && (keys[j] < key || (keys[j] === key && nodes[base + j] > node))) {
        keys[j + 1] = keys[j];
        nodes[base + j + 1] = nodes[base + j];
        j--;
      }
      keys[j + 1] = key;
      nodes[base + j + 1] = node;
    }
  }

  /** LSD passes over digits firstDigit..lastDigit (see `digit`); the others must be equal across the run. */
  private radix(nodes: Uint32Array, base: number, k: number, firstDigit: number, lastDigit = 7): void {
    const counts = this.counts;
    counts.fill(0);
    const run = nodes.subarray(base, base + k);
    let srcKeys = this.keys;
    let srcNodes = run;
    let dstKeys = this.keysB;
    let dstNodes = this.nodesB;
    for (let i = 0; i < k; i++) {
      const v = srcNodes[i];
      const key = srcKeys[i];
      for (let d = firstDigit; d <= lastDigit; d++) counts[d * RADIX + digit(v, key, d)]++;
    }
    for (let d = firstDigit; d <= lastDigit; d++) {
      const at = d * RADIX;
      let sum = 0;
      let trivial = false;
      for (let b = 0; b < RADIX; b++) {
        const c = counts[at + b];
        if (c === k) trivial = true;
        counts[at + b] = sum;
        sum += c;
      }
      if (trivial) continue;
      for (let i = 0; i < k; i++) {
        const v = srcNodes[i];
        const key = srcKeys[i];
        const to = counts[at + digit(v, key, d)]++;
        dstKeys[to] = key;
        dstNodes[to] = v;
      }
      [srcKeys, dstKeys] = [dstKeys, srcKeys];
      [srcNodes, dstNodes] = [dstNodes, srcNodes];
    }
    if (srcNodes !== run) run.set(srcNodes.subarray(0, k));
  }
}

/**
 * Digit d of the composite sort key, least significant first: d = 0..2 are the ordinal's
 * (ascending), d = 3..7 the key's, inverted so that larger sizes sort first.
 */
function digit(node: number, key: number, d: number): number {
  switch (d) {
    case 0:
      return node & 0x7ff;
    case 1:
      return (node >>> 11) & 0x7ff;
    case 2:
      return node >>> 22;
  }
  const lo = key >>> 0;
  const hi = (key - lo) / 4294967296;
  let x: number;
  switch (d) {
    case 3:
      x = lo & 0x7ff;
      break;
    case 4:
      x = (lo >>> 11) & 0x7ff;
      break;
    case 5:
      x = (lo >>> 22) | ((hi & 1) << 10);
      break;
    case 6:
      x = (hi >>> 1) & 0x7ff;
      break;
    default:
      x = (hi >>> 12) & 0x7ff;
  }
  return 0x7ff - x;
}

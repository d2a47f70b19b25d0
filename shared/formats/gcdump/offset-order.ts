/**
 * The order in which a .gcdump's node records follow each other in its blob: node indices with a
 * non-zero record offset, sorted by offset (stable: equal offsets, which only a damaged file has,
 * keep index order). node-blob-decoder.ts visits the records in this order when they are not in
 * index order.
 *
 * Two ways, chosen by the number of *runs* (stretches of nodes, in index order, whose offsets
 * increase):
 * - few runs (MAX_MERGED_RUNS; the root's record last makes two): the runs merged pairwise,
 *   ⌈log2 runs⌉ passes that each read and write sequentially; 8 bytes per node;
 * - more (a shuffled file, or the real producers' order where about half the records are out of
 *   place): a radix sort, most significant digit first (radixSort); 12 bytes per node. A least
 *   significant digit sort on two 16-bit digits, as before, scattered over 65,536 buckets per
 *   pass, which misses the TLB on nearly every write once the arrays outgrow the cache.
 */
const MAX_MERGED_RUNS = 64;

type Allocate = (length: number) => Uint32Array;

export function sortNodesByOffset(offsets: Uint32Array, nonZero: number, maxOffset = 0xffffffff, sharedMemory = false): Uint32Array {
  const result: Allocate = (length) => (sharedMemory ? new Uint32Array(new SharedArrayBuffer(4 * length)) : new Uint32Array(length));
  const runs = countRuns(offsets, MAX_MERGED_RUNS + 1);
  if (runs <= MAX_MERGED_RUNS) return mergeRuns(offsets, nonZero, runs, result);
  return radixSort(offsets, nonZero, maxOffset, result);
}

/** The number of runs (see above) among the nodes with a non-zero offset, or `limit` once there are that many. */
export function countRuns(offsets: Uint32Array, limit = Infinity): number {
  let runs = 0;
  let last = 0;
  for (let i = 0; i < offsets.length; i++) {
    const off = offsets[i];
    if (off === 0) continue;
    if (off <= last || runs === 0) {
      if (++runs >= limit) return limit;
    }
    last = off;
  }
  return runs;
}

/** The runs merged pairwise, the result in a buffer from `result`. */
function mergeRuns(offsets: Uint32Array, nonZero: number, runs: number, result: Allocate): Uint32Array {
  // Pass count decides which buffer ends up holding the result: start in the other one.
  let passes = 0;
  for (let r = runs; r > 1; r = Math.ceil(r / 2)) passes++;
  const final = result(nonZero);
  const other = passes > 0 ? new Uint32Array(nonZero) : final;
  let from = passes % 2 === 0 ? final : other;
  let to = from === final ? other : final;
  // run r is from[bounds[r] … bounds[r + 1])
  let bounds: number[] = [];
  let j = 0;
  let last = 0;
  for (let i = 0; i < offsets.length; i++) {
    const off = offsets[i];
    if (off === 0) continue;
    if (off <= last || j === 0) bounds.push(j);
    from[j++] = i;
    last = off;
  }
  bounds.push(nonZero);
  while (bounds.length > 2) {
    const next: number[] = [];
    for (let r = 0; r + 1 < bounds.length; r += 2) {
      const lo = bounds[r];
      const mid = bounds[r + 1];
      const hi = r + 2 < bounds.length ? bounds[r + 2] : mid;
      next.push(lo);
      mergeTwo(offsets, from, lo, mid, hi, to);
    }
    next.push(nonZero);
    bounds = next;
    [from, to] = [to, from];
  }
  return from;
}

/** from[lo … mid) and from[mid … hi), each sorted by offset, into to[lo … hi); ties from the left. */
function mergeTwo(offsets: Uint32Array, from: Uint32Array, lo: number, mid: number, hi: number, to: Uint32Array): void {
  let a = lo;
  let b = mid;
  let d = lo;
  if (a < mid && b < hi) {
    let offA = offsets[from[a]];
    let offB = offsets[from[b]];
    for (;;) {
      if (offB < offA) {
        to[d++] = from[b++];
        if (b === hi) break;
        offB = offsets[from[b]];
      } else {
        to[d++] = from[a++];
        if (a === mid) break;
        offA = offsets[from[a]];
      }
    }
  }
  while (a < mid) to[d++] = from[a++];
  while (b < hi) to[d++] = from[b++];
}

/** Entries of the largest bucket radixSort sorts in scratch of its own (8 bytes each). */
const BUCKET_SCRATCH = 1 << 20;

/**
 * Stable radix sort: the top 8 bits of the offset first (one scatter over at most 256 buckets,
 * which the TLB and the write buffers follow), then each bucket on the rest of its bits, two
 * digits of at most 12 bits, in scratch that stays in the cache (a bucket of a 100M-node file is
 * ~400k entries). The keys are carried, so no pass reads the offsets at random. A bucket larger
 * than `scratchLimit` (only a file whose records crowd into one part of the blob) is sorted
 * through the result arrays and reads its keys from the offsets for its second digit.
 */
export function radixSort(offsets: Uint32Array, nonZero: number, maxOffset: number, result: Allocate, scratchLimit = BUCKET_SCRATCH): Uint32Array {
  const n = offsets.length;
  const bits = Math.max(1, 32 - Math.clz32(maxOffset));
  const topBits = Math.min(8, bits);
  const shift = bits - topBits;
  const buckets = 1 << topBits;
  const at = new Uint32Array(buckets + 1); // bucket b is [at[b], at[b + 1]) after the prefix sums
  for (let i = 0; i < n; i++) {
    const off = offsets[i];
    if (off !== 0) at[(off >>> shift) + 1]++;
  }
  for (let b = 1; b <= buckets; b++) at[b] += at[b - 1];
  const next = at.slice(0, buckets);
  const key = new Uint32Array(nonZero);
  const idx = new Uint32Array(nonZero);
  for (let i = 0; i < n; i++) {
    const off = offsets[i];
    if (off === 0) continue;
    const k = next[off >>> shift]++;
    key[k] = off;
    idx[k] = i;
  }
  const out = result(nonZero);
  const lowBits = Math.ceil(shift / 2);
  const lowMask = (1 << lowBits) - 1;
  const highMask = (1 << (shift - lowBits)) - 1;
  const low = new Uint32Array(lowMask + 1);
  const high = new Uint32Array(highMask + 1);
  let largest = 0;
  for (let b = 0; b < buckets; b++) largest = Math.max(largest, at[b + 1] - at[b]);
  const scratch = Math.min(largest, scratchLimit);
  const key2 = new Uint32Array(scratch);
  const idx2 = new Uint32Array(scratch);
  for (let b = 0; b < buckets; b++) {
    const lo = at[b];
    const hi = at[b + 1];
    if (hi - lo <= 1) {
      if (hi > lo) out[lo] = idx[lo];
      continue;
    }
    low.fill(0);
    high.fill(0);
    for (let j = lo; j < hi; j++) {
      const k = key[j];
      low[k & lowMask]++;
      high[(k >>> lowBits) & highMask]++;
    }
    prefixSums(low);
    prefixSums(high);
    if (hi - lo <= scratch) {
      for (let j = lo; j < hi; j++) {
        const k = key[j];
        const d = low[k & lowMask]++;
        key2[d] = k;
        idx2[d] = idx[j];
      }
      for (let d = 0; d < hi - lo; d++) out[lo + high[(key2[d] >>> lowBits) & highMask]++] = idx2[d];
    } else {
      for (let j = lo; j < hi; j++) out[lo + low[key[j] & lowMask]++] = idx[j];
      for (let j = lo; j < hi; j++) {
        const node = out[j];
        idx[lo + high[(offsets[node] >>> lowBits) & highMask]++] = node;
      }
      out.set(idx.subarray(lo, hi), lo);
    }
  }
  return out;
}

function prefixSums(counts: Uint32Array): void {
  let sum = 0;
  for (let d = 0; d < counts.length; d++) {
    const c = counts[d];
    counts[d] = sum;
    sum += c;
  }
}

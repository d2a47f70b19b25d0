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
 * - more (a shuffled file, or the real producers' order where a third of the records are out of
 *   place): a stable LSD radix sort on two 16-bit digits; 12 bytes per node. Its scatter over
 *   65,536 buckets misses the TLB on nearly every write once the arrays outgrow the cache, so it
 *   grows faster than the node count; the merge does not.
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

/**
 * Stable LSD radix sort on two 16-bit digits, carrying the keys so the second pass reads them
 * sequentially (one digit pass when the blob is under 64 KiB).
 */
function radixSort(offsets: Uint32Array, nonZero: number, maxOffset: number, result: Allocate): Uint32Array {
  const n = offsets.length;
  const counts = new Uint32Array(65536);
  for (let i = 0; i < n; i++) {
    const off = offsets[i];
    if (off !== 0) counts[off & 0xffff]++;
  }
  prefixSums(counts);
  const key1 = maxOffset > 0xffff ? new Uint32Array(nonZero) : null;
  const idx1 = key1 ? new Uint32Array(nonZero) : result(nonZero);
  for (let i = 0; i < n; i++) {
    const off = offsets[i];
    if (off === 0) continue;
    const at = counts[off & 0xffff]++;
    idx1[at] = i;
    if (key1) key1[at] = off;
  }
  if (!key1) return idx1;
  counts.fill(0);
  for (let j = 0; j < nonZero; j++) counts[key1[j] >>> 16]++;
  prefixSums(counts);
  const out = result(nonZero);
  for (let j = 0; j < nonZero; j++) out[counts[key1[j] >>> 16]++] = idx1[j];
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

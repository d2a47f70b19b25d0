import { FormatError } from '../../errors.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { AddressMap } from './address-map.js';
import type { RecordChunks } from './record-chunks.js';

/**
 * Address → rank among the distinct addresses of a heap walk's objects (the BulkNode rows), in
 * ascending address order. Object node n of the graph is the object at rank n − (pseudo-nodes),
 * so this one structure numbers both the objects and every reference to them.
 *
 * Dense form (every real heap): a bitmap of object starts at the objects' alignment (8 bytes on
 * 64-bit), with the rank of each 32-bit word's first bit stored beside the word ([rank, bits]
 * pairs, so a lookup is one cache line and a popcount). The address space is cut into chunks of
 * 2^16 keys (512 KiB of heap at 8-byte alignment); a directory maps chunk → slot, so a regions
 * heap spread over a 256 GB reservation costs only its occupied chunks (16 KiB each, ~2 bits per
 * heap key: 20 MB for a 640 MB heap, small enough for L3, where a hash table of 10M addresses is
 * hundreds of MB and a cache miss per probe). Building it is one pass to find the chunks and one
 * to set bits, in any row order: the bitmap does not care whether the walk arrived sorted, in
 * several runs, shuffled or with an address twice (the same bit is set twice).
 *
 * Sparse form (fallback, e.g. a few objects scattered over terabytes, or addresses misaligned so
 * that the bitmap would be too big for its rows): the rows' distinct addresses are sorted and
 * looked up in an open-addressing map (AddressMap). Same ranks, slower per lookup.
 */
export const CHUNK_BITS = 16;
/** u32 words per chunk slot: 2^16 keys / 32 per word, as [rank, bits] pairs. */
export const SLOT_WORDS = 2 << (CHUNK_BITS - 5);
export const SLOT_SHIFT = CHUNK_BITS - 4;
/** Largest directory (entries): 2^22 × 512 KiB = 2 TiB of address span at 8-byte alignment. */
const MAX_DIRECTORY = (1 << 22) - 1; // (reference-batches.ts packs an entry in 22 bits, all ones meaning none)

export class DefinedAddressIndex {
  /** Distinct addresses (ranks are 0 … count − 1). */
  count = 0;
  // Dense form. Everything is int32 arithmetic (mixing in doubles made a lookup 5× slower):
  // directory entry of (lo, hi) = ((hi − baseHi) << hiShift) + (lo >>> chunkShift) − baseChunk,
  // valid when hi − baseHi ≤ maxHiDelta (so the shift cannot wrap).
  shift = 0;
  chunkShift = CHUNK_BITS;
  hiShift = 32 - CHUNK_BITS;
  baseHi = 0;
  maxHiDelta = 0;
  baseChunk = 0;
  dir = new Int32Array(0);
  /** Per slot, SLOT_WORDS words: [rank of the word's first bit, bits] pairs. */
  words = new Int32Array(0);
  /** Sparse form: address → rank, and the addresses by rank (lo, hi). */
  private sparse: AddressMap | null = null;
  private sorted = new Uint32Array(0);

  /**
   * The index of the first `rows` rows of `addresses` (records lo, hi). `lowBits`: the OR of the
   * rows' low three address bits (their alignment); min/max: the rows' lowest and highest address.
   */
  static build(addresses: RecordChunks, rows: number, lowBits: number, min: [number, number], max: [number, number], token: CancellationToken, sparse = false): DefinedAddressIndex {
    const x = new DefinedAddressIndex();
    if (rows === 0) return x;
    x.shift = lowBits & 1 ? 0 : lowBits & 2 ? 1 : lowBits & 4 ? 2 : 3;
    x.chunkShift = CHUNK_BITS + x.shift;
    x.hiShift = 32 - x.chunkShift;
    x.baseHi = min[1];
    x.maxHiDelta = max[1] - min[1];
    x.baseChunk = min[0] >>> x.chunkShift;
    const span = x.maxHiDelta * 2 ** x.hiShift + (max[0] >>> x.chunkShift) - x.baseChunk + 1;
    if (!sparse && span * SLOT_WORDS <= 4 * rows && span < 1 << 19) {
      // Every chunk of the span gets a slot (a compact heap: the few empty ones cost less than a
      // pass over the rows to find them), so only the bits need a pass.
      x.dir = new Int32Array(span);
      for (let c = 0; c < span; c++) x.dir[c] = c;
      x.words = new Int32Array(span * SLOT_WORDS);
      x.fillDense(addresses, rows, token);
      return x;
    }
    if (!sparse && span <= MAX_DIRECTORY) {
      // Which chunks are occupied, then slots in chunk (address) order, then the bits.
      const dir = new Int32Array(span).fill(-1);
      const { hiShift: hs, chunkShift: cs, baseHi, baseChunk } = x;
      for (let ch = 0, left = rows; ch < addresses.chunks.length && left > 0; ch++) {
        token.throwIfCancelled();
        const a = addresses.chunks[ch];
        const n = Math.min(addresses.counts[ch], left);
        left -= n;
        for (let w = 0; w < 2 * n; w += 2) dir[((a[w + 1] - baseHi) << hs) + (a[w] >>> cs) - baseChunk] = 0;
      }
      let slots = 0;
      for (let c = 0; c < span; c++) if (dir[c] === 0) dir[c] = slots++;
      // A slot is 16 KiB: when rows are that scattered the sorted form is smaller.
      if (slots * SLOT_WORDS <= Math.max(1 << 18, 16 * rows) && slots < 1 << 19) {
        x.dir = dir;
        x.words = new Int32Array(slots * SLOT_WORDS);
        x.fillDense(addresses, rows, token);
        return x;
      }
    }
    x.fillSparse(addresses, rows, token);
    return x;
  }

  /** Whether the dense (bitmap) form is in use. */
  get dense(): boolean {
    return this.sparse === null;
  }

  /** Rank of (lo, hi) among the distinct row addresses, or −1 when no row has that address. */
  rank(lo: number, hi: number): number {
    if (this.sparse) return this.sparse.find(lo, hi);
    const dh = (hi - this.baseHi) >>> 0;
    if (dh > this.maxHiDelta) return -1;
    const c = ((dh << this.hiShift) + (lo >>> this.chunkShift) - this.baseChunk) | 0;
    if (c >>> 0 >= this.dir.length || (lo & ((1 << this.shift) - 1)) !== 0) return -1;
    const slot = this.dir[c];
    if (slot < 0) return -1;
    const key = lo >>> this.shift;
    const at = (slot << SLOT_SHIFT) + (((key & 0xffff) >>> 5) << 1);
    const bits = this.words[at + 1];
    const bit = 1 << (key & 31);
    return (bits & bit) === 0 ? -1 : this.words[at] + popcount(bits & (bit - 1));
  }

  /** Address halves of ranks 0 … count − 1 into words[2(at + r)], words[2(at + r) + 1]. */
  writeAddresses(out: Uint32Array, at: number, token: CancellationToken): void {
    if (this.sparse) {
      out.set(this.sorted.subarray(0, 2 * this.count), 2 * at);
      return;
    }
    const s = this.shift;
    const cs = this.chunkShift;
    const perHi = 2 ** this.hiShift; // chunks per 4 GiB
    let w = 2 * at;
    for (let c = 0; c < this.dir.length; c++) {
      const slot = this.dir[c];
      if (slot < 0) continue;
      if ((slot & 63) === 0) token.throwIfCancelled();
      // directory entry → address halves: chunk (baseChunk + c) within 4 GiB windows from baseHi
      const chunk = this.baseChunk + c;
      const hi = this.baseHi + Math.floor(chunk / perHi);
      const loBase = ((chunk % perHi) * 2 ** cs) >>> 0;
      for (let i = 0; i < SLOT_WORDS; i += 2) {
        for (let bits = this.words[slot * SLOT_WORDS + i + 1]; bits !== 0; bits &= bits - 1) {
          const key = 16 * i + 31 - Math.clz32(bits & -bits); // (i / 2) * 32 + bit
          out[w++] = (loBase + (key << s)) >>> 0;
          out[w++] = hi;
        }
      }
    }
  }

  private fillDense(addresses: RecordChunks, rows: number, token: CancellationToken): void {
    const { dir, words, shift: s, chunkShift: cs, hiShift: hs, baseHi, baseChunk } = this;
    for (let ch = 0, left = rows; ch < addresses.chunks.length && left > 0; ch++) {
      token.throwIfCancelled();
      const a = addresses.chunks[ch];
      const n = Math.min(addresses.counts[ch], left);
      left -= n;
      for (let w = 0; w < 2 * n; w += 2) {
        const lo = a[w];
        const key = lo >>> s;
        words[(dir[((a[w + 1] - baseHi) << hs) + (lo >>> cs) - baseChunk] << SLOT_SHIFT) + (((key & 0xffff) >>> 5) << 1) + 1] |= 1 << (key & 31);
      }
    }
    this.count = fillRanks(words);
  }

  private fillSparse(addresses: RecordChunks, rows: number, token: CancellationToken): void {
    const all = new Uint32Array(2 * rows);
    let w = 0;
    forEachRow(addresses, rows, token, (lo, hi) => {
      all[w++] = lo;
      all[w++] = hi;
    });
    const order = new Uint32Array(rows);
    for (let i = 0; i < rows; i++) order[i] = i;
    order.sort((a, b) => all[2 * a + 1] - all[2 * b + 1] || all[2 * a] - all[2 * b]);
    // Sorted, so a repeated address is next to its first: ranks are the distinct addresses in order.
    const map = new AddressMap(rows);
    const sorted = new Uint32Array(2 * rows);
    let n = 0;
    for (let i = 0; i < rows; i++) {
      const lo = all[2 * order[i]];
      const hi = all[2 * order[i] + 1];
      if (n > 0 && sorted[2 * n - 2] === lo && sorted[2 * n - 1] === hi) continue;
      map.intern(lo, hi);
      sorted[2 * n] = lo;
      sorted[2 * n + 1] = hi;
      n++;
    }
    if (map.size >= 0x7fffffff) throw new FormatError('format/too-large', `${map.size} objects are more than this reader handles`);
    this.sparse = map;
    this.sorted = sorted;
    this.count = map.size;
  }
}

/**
 * The rank word of each [rank, bits] pair: slots are in address order, so one running count
 * gives global ranks. Returns the total. (A function of its own: as a second loop in fillDense
 * it was reached with no type feedback, and V8 deoptimized the whole pass.)
 */
function fillRanks(words: Int32Array): number {
  let rank = 0;
  for (let i = 0; i < words.length; i += 2) {
    words[i] = rank;
    rank += popcount(words[i + 1]);
  }
  return rank;
}

/** fn(lo, hi) for the first `rows` records of a (lo, hi) store, in row order. */
export function forEachRow(store: RecordChunks, rows: number, token: CancellationToken, fn: (lo: number, hi: number) => void): void {
  for (let ch = 0; ch < store.chunks.length && rows > 0; ch++) {
    token.throwIfCancelled();
    const a = store.chunks[ch];
    const n = Math.min(store.counts[ch], rows);
    rows -= n;
    for (let w = 0, end = 2 * n; w < end; w += 2) fn(a[w], a[w + 1]);
  }
}

export function popcount(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

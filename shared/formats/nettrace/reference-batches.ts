import type { CancellationToken } from '../../util/cancellation.js';
import { GrowableUint32Array } from '../../util/growable-array.js';
import { type DefinedAddressIndex, popcount, SLOT_SHIFT } from './defined-address-index.js';
import { BLOCK, edgePartition, type PackedReferences, PARTS } from './packed-references.js';

/**
 * References → node indices through the dense DefinedAddressIndex, in batches partitioned by
 * the part of the index they read.
 *
 * One lookup per reference straight into the index costs a cache and TLB miss once the index
 * outgrows the caches (20 MB for a 640 MB heap): 70–110 ns per reference measured on the 2-core
 * VM for 25M uniformly random references, 2.7 s. Instead, a batch of up to 8M references is
 * split by address partition (PARTS ranges of 8 MiB: 16 chunks, at most 256 KiB of index;
 * their sizes were counted while the references were collected): a placing pass reads the
 * references in order and writes each as an item to its partition; then each partition's
 * lookups hit an index part that stays in cache, and each result is written to its reference's
 * position (random writes within the batch's 32 MB of output, which do not stall the loop).
 * Bigger batches measured faster (more lookups per index part) despite the wider writes: 2M, 4M
 * and 8M references took ~800, ~690 and ~555 ms for 25M (median of 6 in one process). Writing
 * each result with its position to one of 64 position ranges first, then each range into dest
 * (in cache), measured no better: dropped.
 * Reference p's packed target (PackedReferences) is src[srcAt + p], its node index goes to
 * col[at + p]. That may be the same word: the results are written once the placing pass has
 * read the whole batch, and a miss leaves its word alone, so the references' storage can become
 * the edge column without a fresh page.
 * Memory: 8 bytes per reference of the batch (64 MB, reused), or the caller's scratch (its
 * length sets the batch), which the caller can reuse afterwards.
 *
 * A target outside the index's chunks is resolved at once by `other`; one inside a chunk but
 * not an object's start keeps its packed word until a pass over the batch's misses resolves it
 * by `other` (rare: null and stray references).
 */
const BATCH = 1 << 23;
/** An item of a reference resolved while placing (outside the index) or as a miss; skipped by the lookups. */
const DONE = 0xffffffff;

/**
 * Positions (from `at`) of the references to nodes ≥ `from` and of those to addresses without an
 * object, recorded while resolving for the node cap (capInTail), which otherwise scans every
 * reference for them. Unordered. A compare per lookup for this cost ~150 ms at 25M references
 * (measured); instead only the items of the partitions that can hold a watched address are
 * re-read after the lookups.
 */
export interface TailWatch {
  /** Node index of the first watched object (the objects from there on are the highest addresses). */
  from: number;
  /** 1 for each partition (edgePartition) that can hold an address at or above the first watched object's. */
  parts: Uint8Array;
  positions: GrowableUint32Array;
}

/** A TailWatch from node `from`, whose object is at (lo, hi), to the highest object address. */
export function watchTail(from: number, lo: number, hi: number, maxLo: number, maxHi: number): TailWatch {
  const parts = new Uint8Array(PARTS);
  const span = (maxHi - hi) * 2 ** 32 + (maxLo - lo);
  if (span >= (PARTS - 1) * 2 ** 23) parts.fill(1);
  else {
    for (let k = edgePartition(lo, hi), end = edgePartition(maxLo, maxHi); ; k = (k + 1) & (PARTS - 1)) {
      parts[k] = 1;
      if (k === end) break;
    }
  }
  return { from, parts, positions: new GrowableUint32Array(1024) };
}

export function resolveBatched(
  index: DefinedAddressIndex,
  refs: PackedReferences,
  taken: number,
  src: Uint32Array,
  srcAt: number,
  col: Uint32Array,
  at: number,
  first: number,
  other: (lo: number, hi: number) => number,
  tail: TailWatch | null,
  scratch: Uint32Array | null,
  token: CancellationToken,
): void {
  // A scratch array of the caller's (at least a block's references) holds the items: batches are then as big as it allows.
  const own = scratch !== null && scratch.length >= 2 * BLOCK;
  const blocks = Math.max(1, Math.floor((own ? scratch.length >>> 1 : BATCH) / BLOCK));
  const starts = new Uint32Array(PARTS + 1);
  const fill = new Uint32Array(PARTS);
  let items = own ? scratch : new Uint32Array(0);
  const b: Batch = { index, refs, src, from: 0, col, base: 0, done: 0, n: 0, first, other, tail, items, starts, fill };
  // Each pass is its own function: one function holding all four loops was optimized (on-stack)
  // during the first and deoptimized on reaching the next ("insufficient type feedback"), and
  // ran unoptimized, boxing numbers, for part of the later batches (~0.15 s more at 25M).
  for (let done = 0; done < taken; done += b.n) {
    token.throwIfCancelled();
    // A batch of whole blocks (`done` is at a block's start), the last one cut at `taken`.
    b.n = Math.min(blocks * BLOCK, taken - done);
    b.done = done;
    b.base = at + done;
    b.from = srcAt + done;
    countParts(b);
    if (items.length < 2 * b.n) b.items = items = new Uint32Array(2 * Math.min(BATCH, Math.max(b.n, 2 * items.length)));
    place(b);
    const misses = lookUp(b);
    // A miss keeps its packed word until here (rare: null and stray references).
    for (const w of misses) {
      const p = items[w + 1] >>> 6;
      const word = src[b.from + p];
      col[b.base + p] = other(refs.lo(word), refs.hi(word));
      items[w] = DONE;
      if (tail) tail.positions.push(done + p);
    }
    if (tail) watchBatch(b, tail);
  }
}

interface Batch {
  index: DefinedAddressIndex;
  refs: PackedReferences;
  /** Reference p of the batch is packed at src[from + p]; its node index goes to col[base + p]. */
  src: Uint32Array;
  from: number;
  col: Uint32Array;
  base: number;
  /** References before the batch, and in it. */
  done: number;
  n: number;
  first: number;
  other: (lo: number, hi: number) => number;
  tail: TailWatch | null;
  items: Uint32Array;
  /** Per partition: where its items start, and (after placing) end. */
  starts: Uint32Array;
  fill: Uint32Array;
}

/** starts[] of the batch's partitions: from the counts made while collecting, unless the batch ends inside a block short of the collected references. */
function countParts(b: Batch): void {
  const { refs, src, from, n, starts, fill } = b;
  starts.fill(0);
  if ((b.done + n) % BLOCK === 0 || b.done + n === refs.length) {
    for (let k = b.done / BLOCK, end = Math.ceil((b.done + n) / BLOCK); k < end; k++) for (let i = 0, pc = refs.parts[k]; i < PARTS; i++) starts[i + 1] += pc[i];
  } else {
    for (let p = 0; p < n; p++) starts[edgePartition(refs.lo(src[from + p]), refs.hi(src[from + p])) + 1]++;
  }
  for (let i = 0; i < PARTS; i++) starts[i + 1] += starts[i];
  fill.set(starts.subarray(0, PARTS));
}

/**
 * Place (directory entry << 10 | key bits 6–15, position << 6 | key bits 0–5); targets outside
 * the index are resolved now. Every reference of the batch is read here, before any result is
 * written over it (lookUp).
 */
function place(b: Batch): void {
  const { src, from, col, base, n, items, fill, tail, other } = b;
  const { dir, shift, chunkShift, hiShift, baseHi, maxHiDelta, baseChunk } = b.index;
  const dirLen = dir.length;
  const alignMask = (1 << shift) - 1;
  // Unpacking (PackedReferences): window bits on top, else an escape.
  const { s, windowShift: ws, esc, his } = b.refs;
  const escMask = (1 << ws) - 1;
  const escaped = b.refs.escapes.raw;
  for (let p = 0; p < n; p++) {
    const word = src[from + p];
    const win = word >>> ws;
    let lo: number;
    let hi: number;
    if (win !== esc) {
      lo = (word << s) >>> 0;
      hi = his[win];
    } else {
      lo = escaped[2 * (word & escMask)];
      hi = escaped[2 * (word & escMask) + 1];
    }
    const w = 2 * fill[edgePartition(lo, hi)]++;
    const dh = (hi - baseHi) >>> 0;
    const d = ((dh << hiShift) + (lo >>> chunkShift) - baseChunk) | 0;
    if (dh <= maxHiDelta && d >>> 0 < dirLen && (lo & alignMask) === 0) {
      const key = (lo >>> shift) & 0xffff;
      items[w] = (d << 10) | (key >>> 6);
      items[w + 1] = (p << 6) | (key & 63);
    } else {
      items[w] = DONE;
      col[base + p] = other(lo, hi);
      if (tail) tail.positions.push(b.done + p);
    }
  }
}

/**
 * Look up partition by partition (its part of the index stays in cache) and write each result
 * to its reference's place. Returns the items that missed (their packed words are left alone).
 */
function lookUp(b: Batch): number[] {
  const { col, base, n, items, first } = b;
  const { dir, words } = b.index;
  const misses: number[] = [];
  for (let w = 0, end = 2 * n; w < end; w += 2) {
    const a = items[w];
    if (a === DONE) continue;
    const lowBits = items[w + 1];
    const slot = dir[a >>> 10];
    if (slot >= 0) {
      const key = ((a & 1023) << 6) | (lowBits & 63);
      const pair = (slot << SLOT_SHIFT) + ((key >>> 5) << 1);
      const bits = words[pair + 1];
      const bit = 1 << (key & 31);
      if ((bits & bit) !== 0) {
        col[base + (lowBits >>> 6)] = (first + words[pair] + popcount(bits & (bit - 1))) >>> 0;
        continue;
      }
    }
    misses.push(w);
  }
  return misses;
}

/** Record the batch's references to watched nodes: only a few partitions can hold them (the watched nodes are the highest addresses). */
function watchBatch(b: Batch, tail: TailWatch): void {
  const { col, base, items, starts, fill } = b;
  for (let k = 0; k < PARTS; k++) {
    if (tail.parts[k] === 0) continue;
    for (let w = 2 * starts[k], end = 2 * fill[k]; w < end; w += 2) {
      if (items[w] === DONE) continue; // recorded while placing or with the misses
      const p = items[w + 1] >>> 6;
      if (col[base + p] >= tail.from) tail.positions.push(b.done + p);
    }
  }
}

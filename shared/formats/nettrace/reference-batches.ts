import type { CancellationToken } from '../../util/cancellation.js';
import { GrowableUint32Array } from '../../util/growable-array.js';
import { type DefinedAddressIndex, popcount, SLOT_SHIFT } from './defined-address-index.js';
import { EDGE_PARTS, edgePartition } from './heap-dump-collection.js';
import type { RecordChunks } from './record-chunks.js';

/**
 * References → node indices through the dense DefinedAddressIndex, in batches partitioned by
 * the part of the index they read.
 *
 * One lookup per reference straight into the index costs a cache and TLB miss once the index
 * outgrows the caches (20 MB for a 640 MB heap): 70–110 ns per reference measured on the 2-core
 * VM for 25M uniformly random references, 2.7 s. Instead, a batch of up to 8M references is
 * split by address partition (EDGE_PARTS ranges of 8 MiB: 16 chunks, at most 256 KiB of index;
 * their sizes were counted while the references were collected): a placing pass reads the
 * references in order and writes each as an item to its partition; then each partition's
 * lookups hit an index part that stays in cache, and each result is written to its reference's
 * position (random writes within the batch's 32 MB of output, which do not stall the loop).
 * Bigger batches measured faster (more lookups per index part) despite the wider writes: 2M, 4M
 * and 8M references took ~800, ~690 and ~555 ms for 25M (median of 6 in one process). Writing
 * each result with its position to one of 64 position ranges first, then each range into dest
 * (in cache), measured no better: dropped.
 * Memory: 8 bytes per reference of the batch (64 MB, reused), or the caller's scratch (its
 * length sets the batch), which the caller can reuse afterwards.
 *
 * A target outside the index's chunks is resolved at once by `other`; one inside a chunk but
 * not an object's start is written as MISS first and resolved by `other` in a last pass over
 * the batch (rare: null and stray references).
 */
const BATCH = 1 << 23;
/** References per edge chunk (RecordChunks' default largest chunk). */
export const MAX_CHUNK = 1 << 18;
/** An item of a reference resolved while placing (outside the index); skipped by the lookups. */
const DONE = 0xffffffff;
const MISS = 0xffffffff;

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
  const parts = new Uint8Array(EDGE_PARTS);
  const span = (maxHi - hi) * 2 ** 32 + (maxLo - lo);
  if (span >= (EDGE_PARTS - 1) * 2 ** 23) parts.fill(1);
  else {
    for (let k = edgePartition(lo, hi), end = edgePartition(maxLo, maxHi); ; k = (k + 1) & (EDGE_PARTS - 1)) {
      parts[k] = 1;
      if (k === end) break;
    }
  }
  return { from, parts, positions: new GrowableUint32Array(1024) };
}

export function resolveBatched(
  index: DefinedAddressIndex,
  edges: RecordChunks,
  edgeParts: readonly Uint32Array[],
  taken: number,
  dest: Uint32Array,
  at: number,
  first: number,
  other: (lo: number, hi: number) => number,
  release: boolean,
  tail: TailWatch | null,
  scratch: Uint32Array | null,
  token: CancellationToken,
): void {
  // A scratch array of the caller's (at least a chunk's references) holds the items: batches are then as big as it allows.
  const own = scratch !== null && scratch.length >= 2 * MAX_CHUNK;
  const batch = own ? scratch.length >>> 1 : BATCH;
  const { dir, words, shift, chunkShift, hiShift, baseHi, maxHiDelta, baseChunk } = index;
  const dirLen = dir.length;
  const alignMask = (1 << shift) - 1;
  const starts = new Uint32Array(EDGE_PARTS + 1);
  const fill = new Uint32Array(EDGE_PARTS);
  let items = own ? scratch : new Uint32Array(0);
  let done = 0;
  let ch = 0;
  while (done < taken) {
    token.throwIfCancelled();
    // A batch of whole chunks (one chunk at least), up to `batch` references.
    const firstChunk = ch;
    let n = 0;
    while (ch < edges.chunks.length && done + n < taken && (n === 0 || n + edges.counts[ch] <= batch)) n += Math.min(edges.counts[ch++], taken - done - n);
    const base = at + done;
    // References per partition: counted while collecting, unless the batch ends inside a chunk.
    starts.fill(0);
    let whole = 0;
    for (let c = firstChunk; c < ch; c++) whole += edges.counts[c];
    if (whole === n && edgeParts.length >= ch) {
      for (let c = firstChunk; c < ch; c++) for (let i = 0, pc = edgeParts[c]; i < EDGE_PARTS; i++) starts[i + 1] += pc[i];
    } else {
      for (let c = firstChunk, p = 0; c < ch; c++) {
        const et = edges.chunks[c];
        const m = Math.min(edges.counts[c], n - p);
        for (let q = 0; q < 2 * m; q += 2, p++) starts[edgePartition(et[q], et[q + 1]) + 1]++;
      }
    }
    for (let i = 0; i < EDGE_PARTS; i++) starts[i + 1] += starts[i];
    fill.set(starts.subarray(0, EDGE_PARTS));
    if (items.length < 2 * n) items = new Uint32Array(2 * Math.min(BATCH, Math.max(n, 2 * items.length)));
    // Place (directory entry << 10 | key bits 6–15, position << 6 | key bits 0–5); targets outside
    // the index are resolved now.
    for (let c = firstChunk, p = 0; c < ch; c++) {
      const et = edges.chunks[c];
      const m = Math.min(edges.counts[c], n - p);
      for (let q = 0; q < 2 * m; q += 2, p++) {
        const lo = et[q];
        const hi = et[q + 1];
        const w = 2 * fill[edgePartition(lo, hi)]++;
        const dh = (hi - baseHi) >>> 0;
        const d = ((dh << hiShift) + (lo >>> chunkShift) - baseChunk) | 0;
        if (dh <= maxHiDelta && d >>> 0 < dirLen && (lo & alignMask) === 0) {
          const key = (lo >>> shift) & 0xffff;
          items[w] = (d << 10) | (key >>> 6);
          items[w + 1] = (p << 6) | (key & 63);
        } else {
          items[w] = DONE;
          dest[base + p] = other(lo, hi);
          if (tail) tail.positions.push(done + p);
        }
      }
    }
    // Look up partition by partition (its part of the index stays in cache).
    let misses = 0;
    for (let w = 0, end = 2 * n; w < end; w += 2) {
      const a = items[w];
      if (a === DONE) continue;
      const b = items[w + 1];
      const slot = dir[a >>> 10];
      const pos = base + (b >>> 6);
      if (slot >= 0) {
        const key = ((a & 1023) << 6) | (b & 63);
        const pair = (slot << SLOT_SHIFT) + ((key >>> 5) << 1);
        const bits = words[pair + 1];
        const bit = 1 << (key & 31);
        if ((bits & bit) !== 0) {
          dest[pos] = (first + words[pair] + popcount(bits & (bit - 1))) >>> 0;
          continue;
        }
      }
      dest[pos] = MISS;
      misses++;
    }
    if (tail) {
      // The watched nodes are the highest addresses, so only a few partitions can hold them.
      for (let k = 0; k < EDGE_PARTS; k++) {
        if (tail.parts[k] === 0) continue;
        for (let w = 2 * starts[k], end = 2 * fill[k]; w < end; w += 2) {
          if (items[w] === DONE) continue; // recorded while placing
          const p = items[w + 1] >>> 6;
          const v = dest[base + p];
          if (v >= tail.from && v !== MISS) tail.positions.push(done + p);
        }
      }
    }
    if (misses > 0) {
      for (let c = firstChunk, p = 0; c < ch; c++) {
        const et = edges.chunks[c];
        const m = Math.min(edges.counts[c], n - p);
        for (let q = 0; q < 2 * m; q += 2, p++) {
          if (dest[base + p] !== MISS) continue;
          dest[base + p] = other(et[q], et[q + 1]);
          if (tail) tail.positions.push(done + p);
        }
      }
    }
    if (release) for (let c = firstChunk; c < ch; c++) edges.release(c);
    done += n;
  }
}

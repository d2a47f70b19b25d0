import type { CancellationToken } from '../../util/cancellation.js';
import type { GrowableUint32Array } from '../../util/growable-array.js';
import { type DefinedAddressIndex, popcount, SLOT_SHIFT } from './defined-address-index.js';
import { EDGE_PARTS, edgePartition } from './heap-dump-collection.js';
import { MARKED } from './object-references.js';
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
 * references in order and appends each, as an item, to its partition; the lookups then go
 * partition by partition, so each hits an index part that stays in cache, and write the result
 * over the item; a last pass reads the references in order again and takes each result from
 * its partition's next item (a few sequential read streams), writing dest sequentially.
 * Writing each result straight to its position instead (a cache-line fill per write) measured
 * ~1.5 s slower at 10M objects. Bigger batches measured faster (more lookups per index part).
 * Memory: 8 bytes per reference of the batch (64 MB, reused).
 *
 * A target outside the index's chunks is resolved by `other` while placing; one inside a chunk
 * but not an object's start is looked up as MISS and resolved by `other` in the last pass (rare:
 * null and stray references).
 */
const BATCH = 1 << 23;

/**
 * What the node cap needs about the last rows (node-cap.ts), gathered while resolving instead of
 * by another pass over every reference. Positions are from `at`.
 */
export interface TailRecord {
  /** Targets from this node index on are the tail's. */
  from: number;
  /** Position of the first reference to each tail node (0xffffffff: none). */
  firstRef: Uint32Array;
  /** First position of each address without an object (by pid). */
  pidFirst: Map<number, number>;
  /** Positions of every reference to the tail and every MARKED target, in no particular order. */
  positions: GrowableUint32Array;
}

/** An item of a reference resolved while placing (outside the index); skipped by the lookups. */
const DONE = 0xffffffff;
const MISS = 0xffffffff;
const NONE = 0xffffffff;

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
  tail: TailRecord | null,
  token: CancellationToken,
): void {
  const tailFrom = tail ? tail.from : 0xffffffff; // (MISS never reaches the test below)
  const { dir, words, shift, chunkShift, hiShift, baseHi, maxHiDelta, baseChunk } = index;
  const dirLen = dir.length;
  const alignMask = (1 << shift) - 1;
  const starts = new Uint32Array(EDGE_PARTS + 1);
  const fill = new Uint32Array(EDGE_PARTS);
  let items = new Uint32Array(0);
  let done = 0;
  let ch = 0;
  while (done < taken) {
    token.throwIfCancelled();
    // A batch of whole chunks (one chunk at least), up to BATCH references.
    const firstChunk = ch;
    let n = 0;
    while (ch < edges.chunks.length && done + n < taken && (n === 0 || n + edges.counts[ch] <= BATCH)) n += Math.min(edges.counts[ch++], taken - done - n);
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
    // Place (directory entry << 10 | key bits 6–15, key bits 0–5) in the reference's partition;
    // a target outside the index is resolved now (its result, and DONE).
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
          items[w + 1] = key & 63;
        } else {
          items[w] = other(lo, hi);
          items[w + 1] = DONE;
        }
      }
    }
    // Look up partition by partition (its part of the index stays in cache); the result replaces the item.
    for (let w = 0, end = 2 * n; w < end; w += 2) {
      const b = items[w + 1];
      if (b === DONE) continue;
      const a = items[w];
      const slot = dir[a >>> 10];
      let v = MISS;
      if (slot >= 0) {
        const key = ((a & 1023) << 6) | b;
        const pair = (slot << SLOT_SHIFT) + ((key >>> 5) << 1);
        const bits = words[pair + 1];
        const bit = 1 << (key & 31);
        if ((bits & bit) !== 0) v = (first + words[pair] + popcount(bits & (bit - 1))) >>> 0;
      }
      items[w] = v;
    }
    // Back to arrival order: each partition's items are read in order again (a few sequential
    // streams), so dest is written sequentially; random writes instead cost a cache-line fill each.
    fill.set(starts.subarray(0, EDGE_PARTS));
    for (let c = firstChunk, p = 0; c < ch; c++) {
      const et = edges.chunks[c];
      const m = Math.min(edges.counts[c], n - p);
      for (let q = 0; q < 2 * m; q += 2, p++) {
        let v = items[2 * fill[edgePartition(et[q], et[q + 1])]++];
        if (v === MISS) v = other(et[q], et[q + 1]);
        dest[base + p] = v;
        if (v >= tailFrom) {
          if (v >= MARKED) {
            if (!tail!.pidFirst.has(v - MARKED)) tail!.pidFirst.set(v - MARKED, base + p - at);
          } else if (tail!.firstRef[v - tail!.from] === NONE) tail!.firstRef[v - tail!.from] = base + p - at;
          tail!.positions.push(base + p - at);
        }
      }
    }
    if (release) for (let c = firstChunk; c < ch; c++) edges.release(c);
    done += n;
  }
}

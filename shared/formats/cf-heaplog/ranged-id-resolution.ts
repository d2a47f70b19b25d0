import type { CancellationToken } from '../../util/cancellation.js';
import { IdColumn } from './id-resolution.js';

/**
 * Referenced ids → ordinals against strictly increasing defined ids, range by range: the usual
 * way for sorted-id-resolution.ts (which falls back to its global sorts when this returns null).
 *
 * Why: the global way sorts every referenced id through main memory, five streaming passes of
 * 8 bytes per id (a split by high half, three 11-bit digits, a merge). Here the id space between
 * the first and the last defined id is cut into ranges of one power-of-two width, sized so that a
 * range holds ~RANGE_REFS references: one counting pass and one scatter put each reference (its
 * offset in its range, its position) with its range, and each range is then sorted and
 * merge-joined with the defined ids it covers while all of it sits in the L2 cache. Main memory
 * sees two reads and one write of the references, then the scatter of the ordinals (the same
 * random writes the global way ends with). Measured on the 5M-object benchmark log's ids (5M
 * increasing ids across 2^32, 8.3M references and roots), first call in a fresh process, three
 * alternating runs each: 672–685 ms (global) → 555–574 ms. Of those: counting 70, scatter 110,
 * in-cache sorts 165, join with its ordinal scatter 160, fresh pages for the pairs 35. Ranges
 * of 4K or 64K references measured the same within noise.
 *
 * References outside [first, last] defined id name nothing defined: they get fresh ordinals
 * (before and after the in-range ones, so fresh ordinals still follow ascending ids) through the
 * global way on that subset. Equal ids share one fresh ordinal, as there.
 *
 * Not used (null) when an id needs more than 53 bits (doubles stop being exact) or the defined
 * ids are so sparse that a range would be wider than 2^32 (offsets are 32-bit).
 *
 * Memory: 8 bytes per reference (offset, position), plus 8 per reference of the largest range.
 */
const RANGE_REFS = 16384;
const RADIX_BITS = 12; // two passes for ranges up to 2^24 wide (the 5M log's), three 11-bit ones took ~30 ms more
const RADIX = 1 << RADIX_BITS;
const INSERTION_MAX = 48;
const TWO32 = 4294967296;

export type OutOfRangeResolver = (ids: IdColumn, count: number, firstFresh: number, fresh: IdColumn) => number;

export function resolveByRanges(
  defs: IdColumn,
  defCount: number,
  ids: IdColumn,
  count: number,
  firstFresh: number,
  fresh: IdColumn,
  outOfRange: OutOfRangeResolver,
  token: CancellationToken,
  rangeRefs = RANGE_REFS,
): number | null {
  if (defCount === 0 || count === 0) return null;
  const dLo = defs.lo.raw;
  const dHi = defs.hi === null ? null : defs.hi.raw;
  const rHi = ids.hi === null ? null : ids.hi.raw;
  if (dHi !== null && dHi[defCount - 1] >= 1 << 21) return null;
  if (rHi !== null && !below53Bits(rHi, count)) return null;
  const min = keyOf(dLo, dHi, 0);
  const max = keyOf(dLo, dHi, defCount - 1);
  // the narrowest power-of-two width that needs no more than `wanted` ranges
  const wanted = Math.max(1, Math.ceil((count + defCount) / rangeRefs));
  let shift = 0;
  while (Math.floor((max - min) / 2 ** shift) + 1 > wanted) shift++;
  if (shift > 32) return null;
  const ranges = Math.floor((max - min) / 2 ** shift) + 1;

  // Buckets: 0 below the first defined id, 1 + r for range r, ranges + 1 above the last.
  const start = countPerBucket(ids.lo.raw, rHi, count, min, max, shift, ranges, token);
  const off = new Uint32Array(count);
  const pos = new Uint32Array(count);
  scatterToBuckets(ids.lo.raw, rHi, count, min, max, shift, ranges, start, off, pos, token);
  // after the scatter start[b] is bucket b's end and start[b - 1] its beginning
  const bucketStart = (b: number): number => (b === 0 ? 0 : start[b - 1]);

  let next = outsideRange(ids, 0, start[0], off, pos, firstFresh, fresh, outOfRange);
  let widest = 0;
  for (let b = 1; b <= ranges; b++) widest = Math.max(widest, start[b] - start[b - 1]);
  const tOff = new Uint32Array(widest);
  const tPos = new Uint32Array(widest);
  const counts = new Uint32Array(3 * RADIX);
  const out = ids.lo.raw; // every read of the ids is done: ordinals go over them
  let d = 0;
  for (let r = 0; r < ranges; r++) {
    if ((r & 0x3f) === 0) token.throwIfCancelled();
    const from = bucketStart(r + 1);
    const to = start[r + 1];
    const base = min + r * 2 ** shift;
    // defined ids of this range: d up to the first at or past the next range
    const dFrom = d;
    const limit = base + 2 ** shift;
    while (d < defCount && keyOf(dLo, dHi, d) < limit) d++;
    if (to === from) continue;
    const sorted = sortRange(off, pos, from, to, tOff, tPos, counts, shift);
    next = joinRange(sorted.off, sorted.pos, sorted.at, to - from, dLo, dHi, dFrom, d, base, out, next, fresh);
  }
  return outsideRange(ids, bucketStart(ranges + 1), start[ranges + 1], off, pos, next, fresh, outOfRange);
}

function keyOf(lo: Uint32Array, hi: Uint32Array | null, i: number): number {
  return hi === null ? lo[i] : hi[i] * TWO32 + lo[i];
}

function below53Bits(hi: Uint32Array, count: number): boolean {
  let top = 0;
  for (let i = 0; i < count; i++) top |= hi[i];
  return top >>> 0 < 1 << 21;
}

/*
 * One function per loop, as in sorted-id-resolution.ts: each runs once per section on a cold
 * worker, and a function whose later loops have never run deoptimizes at each of them.
 */

/** Bucket sizes → bucket starts (start[b] = first slot of bucket b; length buckets + 1). */
function countPerBucket(lo: Uint32Array, hi: Uint32Array | null, count: number, min: number, max: number, shift: number, ranges: number, token: CancellationToken): Uint32Array {
  const start = new Uint32Array(ranges + 3);
  const scale = 2 ** -shift;
  for (let i = 0; i < count; i++) {
    if ((i & 0xfffff) === 0) token.throwIfCancelled();
    const key = hi === null ? lo[i] : hi[i] * TWO32 + lo[i];
    const b = key < min ? 0 : key > max ? ranges + 1 : 1 + Math.floor((key - min) * scale);
    start[b + 1]++;
  }
  for (let b = 0; b <= ranges + 1; b++) start[b + 1] += start[b];
  return start;
}

/** Each id's offset in its range (its low half outside every range) and position, by bucket; start[b] ends as bucket b's end. */
function scatterToBuckets(lo: Uint32Array, hi: Uint32Array | null, count: number, min: number, max: number, shift: number, ranges: number, start: Uint32Array, off: Uint32Array, pos: Uint32Array, token: CancellationToken): void {
  const scale = 2 ** -shift;
  const width = 2 ** shift;
  for (let i = 0; i < count; i++) {
    if ((i & 0xfffff) === 0) token.throwIfCancelled();
    const key = hi === null ? lo[i] : hi[i] * TWO32 + lo[i];
    let b: number;
    let o: number;
    if (key < min) {
      b = 0;
      o = lo[i];
    } else if (key > max) {
      b = ranges + 1;
      o = lo[i];
    } else {
      const r = Math.floor((key - min) * scale);
      b = r + 1;
      o = key - min - r * width;
    }
    const at = start[b]++;
    off[at] = o;
    pos[at] = i;
  }
}

/** The ids of bucket [from, to) outside every range: all fresh, resolved the global way on that subset. */
function outsideRange(ids: IdColumn, from: number, to: number, off: Uint32Array, pos: Uint32Array, firstFresh: number, fresh: IdColumn, outOfRange: OutOfRangeResolver): number {
  const m = to - from;
  if (m === 0) return firstFresh;
  const sub = new IdColumn(m);
  for (let k = from; k < to; k++) sub.push(off[k], ids.hiAt(pos[k]));
  const next = outOfRange(sub, m, firstFresh, fresh);
  const ordinals = sub.lo.raw;
  const out = ids.lo.raw;
  for (let k = from; k < to; k++) out[pos[k]] = ordinals[k - from];
  return next;
}

/** Sort range [from, to) by offset (stable), in cache: in place, or into the scratch pair (`at` says where the run starts). */
function sortRange(off: Uint32Array, pos: Uint32Array, from: number, to: number, tOff: Uint32Array, tPos: Uint32Array, counts: Uint32Array, bits: number): { off: Uint32Array; pos: Uint32Array; at: number } {
  const k = to - from;
  if (k <= INSERTION_MAX) {
    for (let i = from + 1; i < to; i++) {
      const o = off[i];
      const p = pos[i];
      let j = i - 1;
      while (j >= from && off[j] > o) {
        off[j + 1] = off[j];
        pos[j + 1] = pos[j];
        j--;
      }
      off[j + 1] = o;
      pos[j + 1] = p;
    }
    return { off, pos, at: from };
  }
  const digits = Math.ceil(bits / RADIX_BITS);
  counts.fill(0);
  for (let i = from; i < to; i++) {
    const o = off[i];
    counts[o & (RADIX - 1)]++;
    counts[RADIX + ((o >>> RADIX_BITS) & (RADIX - 1))]++;
    counts[2 * RADIX + (o >>> (2 * RADIX_BITS))]++;
  }
  let sOff = off;
  let sPos = pos;
  let sAt = from;
  for (let d = 0; d < digits; d++) {
    const at = d * RADIX;
    const dst = sOff === off;
    const base = dst ? 0 : from;
    let sum = base;
    let trivial = false;
    for (let c = 0; c < RADIX; c++) {
      const n = counts[at + c];
      if (n === k) trivial = true;
      counts[at + c] = sum;
      sum += n;
    }
    if (trivial) continue;
    const dOff = dst ? tOff : off;
    const dPos = dst ? tPos : pos;
    const shift = RADIX_BITS * d;
    for (let i = sAt; i < sAt + k; i++) {
      const o = sOff[i];
      const to2 = counts[at + ((o >>> shift) & (RADIX - 1))]++;
      dOff[to2] = o;
      dPos[to2] = sPos[i];
    }
    sOff = dOff;
    sPos = dPos;
    sAt = base;
  }
  return { off: sOff, pos: sPos, at: sAt };
}

/** Merge one sorted range with its defined ids [dFrom, dTo); ordinals to out[position]. */
function joinRange(off: Uint32Array, pos: Uint32Array, at: number, k: number, dLo: Uint32Array, dHi: Uint32Array | null, dFrom: number, dTo: number, base: number, out: Uint32Array, next: number, fresh: IdColumn): number {
  let j = dFrom;
  let prev = -1;
  let ord = 0;
  for (let i = at; i < at + k; i++) {
    const o = off[i];
    if (o !== prev) {
      const key = base + o;
      while (j < dTo && (dHi === null ? dLo[j] : dHi[j] * TWO32 + dLo[j]) < key) j++;
      if (j < dTo && (dHi === null ? dLo[j] : dHi[j] * TWO32 + dLo[j]) === key) {
        ord = j;
      } else {
        ord = next++;
        fresh.push(key >>> 0, Math.floor(key / TWO32));
      }
      prev = o;
    }
    out[pos[i]] = ord;
  }
  return next;
}

import type { CancellationToken } from '../../util/cancellation.js';
import { IdColumn } from './id-resolution.js';
import { resolveByRanges } from './ranged-id-resolution.js';

/**
 * The same as enterDefinedIds + resolveIdsInPlace (id-resolution.ts) when the defined ids are
 * strictly increasing (a heap walk in address order: what the RPM writes, and what
 * `SectionGraph` checks as it reads): no table at all. The referenced ids are LSD-radix-sorted
 * and merge-joined with the defined ids, then each ordinal is written back to its position.
 * Everything is sequential except that last scatter.
 *
 * Usually by ranges (ranged-id-resolution.ts): each range of ids sorted inside the cache. The
 * global ways below remain for what that declines (ids past 2^53, very sparse ids) and for the
 * references outside every range. Two global ways to sort:
 * - By partition (the usual case: ids below 2^43, i.e. high halves below 2^11): one counting
 *   pass splits the ids by high half (a device's 32-bit ids have one partition, and skip it),
 *   then each partition sorts its low halves in at most three 11-bit passes of 8 bytes per id
 *   (low half, position), with no high halves to carry. Measured on ids shaped like the 5M-object
 *   benchmark log's (5M increasing ids across 2^32, 8.3M references), first call in a fresh process, CPU ms, 4 runs each:
 *   630–940 (four 12-byte passes) → 495–515, one run 750 (a split pass + three 8-byte passes).
 * - Wide (larger ids): 11-bit digits of both halves, skipping digits on which all agree.
 *
 * Memory: 2 × 8 bytes per id while sorting (12 in the wide way when ids need 64 bits). No table.
 */
export function resolveAgainstSortedIds(defs: IdColumn, defCount: number, ids: IdColumn, count: number, firstFresh: number, fresh: IdColumn, token: CancellationToken, way: SortedIdWay = 'auto'): number {
  const globally = (sub: IdColumn, m: number, first: number, into: IdColumn) => resolveGlobally(defs, defCount, sub, m, first, into, token);
  if (way !== 'global') {
    const next = resolveByRanges(defs, defCount, ids, count, firstFresh, fresh, globally, token, way === 'small-ranges' ? 64 : undefined);
    if (next !== null) return next;
  }
  return globally(ids, count, firstFresh, fresh);
}

/** Which way resolveAgainstSortedIds goes: 'auto' (by ranges when it can), or one way for the tests. */
export type SortedIdWay = 'auto' | 'global' | 'small-ranges';

function resolveGlobally(defs: IdColumn, defCount: number, ids: IdColumn, count: number, firstFresh: number, fresh: IdColumn, token: CancellationToken): number {
  const hi = ids.hi === null ? null : ids.hi.raw;
  const partitions = new Uint32Array(RADIX + 1);
  if (hi !== null) {
    for (let i = 0; i < count; i++) {
      const h = hi[i];
      if (h >= RADIX) return resolveWide(defs, defCount, ids, count, firstFresh, fresh, token);
      partitions[h + 1]++;
    }
  } else {
    partitions[1] = count;
  }
  for (let h = 0; h < RADIX; h++) partitions[h + 1] += partitions[h];
  const sorted = sortByPartition(ids, count, partitions, token);
  return mergeJoin(defs, defCount, sorted.lo, sorted.pos, partitions, ids.lo.raw, count, firstFresh, fresh, token);
}

const RADIX_BITS = 11;
const RADIX = 1 << RADIX_BITS;

/*
 * One function per loop on purpose: each runs once per section on a cold worker, and a function
 * whose later loops have never run is compiled on stack replacement without their type feedback,
 * then deoptimizes at each of them (measured: ~0.9 s instead of ~0.5 s as one function).
 */

/** (low half, position) sorted by (high half, low half); partition h is [partitions[h], partitions[h + 1]). */
function sortByPartition(ids: IdColumn, count: number, partitions: Uint32Array, token: CancellationToken): { lo: Uint32Array; pos: Uint32Array | null } {
  const lo0 = ids.lo.raw;
  const counts = new Uint32Array(3 * RADIX);
  if (ids.hi === null || partitions[1] === count) {
    // One partition: passes go input → a → b → a (positions implicit in the first); the input
    // column is never a destination, as the join later writes ordinals into it.
    let sLo: Uint32Array = lo0;
    let sPos: Uint32Array | null = null;
    let a: { lo: Uint32Array; pos: Uint32Array } | null = null;
    let b: { lo: Uint32Array; pos: Uint32Array } | null = null;
    histograms(lo0, 0, count, counts);
    for (let d = 0; d < 3; d++) {
      if (!prefixSums(counts, d * RADIX, 0, count)) continue;
      const dst = sLo === a?.lo ? (b ??= scratch(count)) : (a ??= scratch(count));
      radixPass(sLo, sPos, dst.lo, dst.pos, counts, d, 0, count, token);
      sLo = dst.lo;
      sPos = dst.pos;
    }
    return { lo: sLo, pos: sPos };
  }
  // Several: split by high half into `home`, then sort each partition in place there, through one scratch pair.
  const home = scratch(count);
  splitByHigh(ids.hi.raw, lo0, home.lo, home.pos, partitions.slice(0, RADIX), count, token);
  let other: { lo: Uint32Array; pos: Uint32Array } | null = null;
  for (let h = 0; h < RADIX; h++) {
    const from = partitions[h];
    const to = partitions[h + 1];
    if (to - from < 2) continue;
    counts.fill(0);
    histograms(home.lo, from, to, counts);
    let src = home;
    for (let d = 0; d < 3; d++) {
      if (!prefixSums(counts, d * RADIX, from, to - from)) continue;
      const dst = src === home ? (other ??= scratch(count)) : home;
      radixPass(src.lo, src.pos, dst.lo, dst.pos, counts, d, from, to, token);
      src = dst;
    }
    if (src !== home) {
      home.lo.set(src.lo.subarray(from, to), from);
      home.pos.set(src.pos.subarray(from, to), from);
    }
  }
  return home;
}

function scratch(count: number): { lo: Uint32Array; pos: Uint32Array } {
  return { lo: new Uint32Array(count), pos: new Uint32Array(count) };
}

function splitByHigh(hi: Uint32Array, lo: Uint32Array, dLo: Uint32Array, dPos: Uint32Array, start: Uint32Array, count: number, token: CancellationToken): void {
  for (let i = 0; i < count; i++) {
    if ((i & 0xfffff) === 0) token.throwIfCancelled();
    const to = start[hi[i]]++;
    dLo[to] = lo[i];
    dPos[to] = i;
  }
}

function histograms(lo: Uint32Array, from: number, to: number, counts: Uint32Array): void {
  for (let i = from; i < to; i++) {
    const k = lo[i];
    counts[k & (RADIX - 1)]++;
    counts[RADIX + ((k >>> RADIX_BITS) & (RADIX - 1))]++;
    counts[2 * RADIX + (k >>> (2 * RADIX_BITS))]++;
  }
}

/** Histogram → absolute bucket starts in place; false when one bucket holds everything (the pass can be skipped). */
function prefixSums(counts: Uint32Array, at: number, base: number, n: number): boolean {
  let sum = base;
  let trivial = false;
  for (let k = 0; k < RADIX; k++) {
    const c = counts[at + k];
    if (c === n) trivial = true;
    counts[at + k] = sum;
    sum += c;
  }
  return !trivial;
}

function radixPass(sLo: Uint32Array, sPos: Uint32Array | null, dLo: Uint32Array, dPos: Uint32Array, counts: Uint32Array, digit: number, from: number, to: number, token: CancellationToken): void {
  const at = digit * RADIX;
  const shift = RADIX_BITS * digit;
  for (let i = from; i < to; i++) {
    if ((i & 0xfffff) === 0) token.throwIfCancelled();
    const k = sLo[i];
    const p = counts[at + ((k >>> shift) & (RADIX - 1))]++;
    dLo[p] = k;
    dPos[p] = sPos === null ? i : sPos[i];
  }
}

/**
 * Walk the sorted ids beside the defined ids (ascending, as the ids are), writing each position's
 * ordinal to `out`; equal ids share one ordinal, ids with no definition get fresh ones.
 */
function mergeJoin(defs: IdColumn, defCount: number, lo: Uint32Array, pos: Uint32Array | null, partitions: Uint32Array, out: Uint32Array, count: number, firstFresh: number, fresh: IdColumn, token: CancellationToken): number {
  const dLo = defs.lo.raw;
  const dHi = defs.hi === null ? null : defs.hi.raw;
  let next = firstFresh;
  let j = 0;
  let h = 0;
  let prevLo = -1;
  let prevHi = -1;
  let prevOrd = 0;
  for (let i = 0; i < count; i++) {
    if ((i & 0xfffff) === 0) token.throwIfCancelled();
    while (i >= partitions[h + 1]) h++;
    const l = lo[i];
    if (l !== prevLo || h !== prevHi) {
      while (j < defCount && ((dHi === null ? 0 : dHi[j]) < h || ((dHi === null ? 0 : dHi[j]) === h && dLo[j] < l))) j++;
      if (j < defCount && dLo[j] === l && (dHi === null ? 0 : dHi[j]) === h) {
        prevOrd = j;
      } else {
        prevOrd = next++;
        fresh.push(l, h);
      }
      prevLo = l;
      prevHi = h;
    }
    out[pos === null ? i : pos[i]] = prevOrd;
  }
  return next;
}

/** The wide way: see resolveAgainstSortedIds. */
function resolveWide(defs: IdColumn, defCount: number, ids: IdColumn, count: number, firstFresh: number, fresh: IdColumn, token: CancellationToken): number {
  const RADIX = 2048;
  const lo0 = ids.lo.raw;
  const hi0 = ids.hi === null ? null : ids.hi.raw;
  // One pass for all six digit histograms; a digit on which every id agrees needs no pass.
  const counts = new Uint32Array(6 * RADIX);
  for (let i = 0; i < count; i++) {
    if ((i & 0xfffff) === 0) token.throwIfCancelled();
    const lo = lo0[i];
    counts[lo & 2047]++;
    counts[RADIX + ((lo >>> 11) & 2047)]++;
    counts[2 * RADIX + (lo >>> 22)]++;
    if (hi0 !== null) {
      const hi = hi0[i];
      counts[3 * RADIX + (hi & 2047)]++;
      counts[4 * RADIX + ((hi >>> 11) & 2047)]++;
      counts[5 * RADIX + (hi >>> 22)]++;
    }
  }
  type Ids = { lo: Uint32Array; hi: Uint32Array | null; pos: Uint32Array | null };
  const input: Ids = { lo: lo0, hi: hi0, pos: null }; // pos null: position i holds id i
  const alloc = (): Ids => ({ lo: new Uint32Array(count), hi: hi0 === null ? null : new Uint32Array(count), pos: new Uint32Array(count) });
  let a: Ids | null = null;
  let b: Ids | null = null;
  let src = input;
  for (let d = 0; d < (hi0 === null ? 3 : 6); d++) {
    const at = d * RADIX;
    let sum = 0;
    let trivial = false;
    for (let k = 0; k < RADIX; k++) {
      const c = counts[at + k];
      if (c === count) trivial = true;
      counts[at + k] = sum;
      sum += c;
    }
    if (trivial || count < 2) continue;
    const dst = src === a ? (b ??= alloc()) : (a ??= alloc()); // input → a → b → a …
    const shift = 11 * (d % 3);
    const ofHi = d >= 3;
    const [sLo, sHi, sPos, tLo, tHi, tPos] = [src.lo, src.hi, src.pos, dst.lo, dst.hi, dst.pos!];
    for (let i = 0; i < count; i++) {
      if ((i & 0xfffff) === 0) token.throwIfCancelled();
      const lo = sLo[i];
      const hi = sHi === null ? 0 : sHi[i];
      const to = counts[at + (((ofHi ? hi : lo) >>> shift) & 2047)]++;
      tLo[to] = lo;
      if (tHi !== null) tHi[to] = hi;
      tPos[to] = sPos === null ? i : sPos[i];
    }
    src = dst;
  }
  const srcLo = src.lo;
  const srcHi = src.hi;
  const srcPos = src.pos;

  // Merge-join with the defined ids; equal neighbours share one ordinal.
  const dLo = defs.lo.raw;
  const dHi = defs.hi === null ? null : defs.hi.raw;
  const out = lo0; // read (as srcLo) only before its own position is written, or not at all
  let next = firstFresh;
  let j = 0;
  let prevLo = -1;
  let prevHi = -1;
  let prevOrd = 0;
  for (let i = 0; i < count; i++) {
    if ((i & 0xfffff) === 0) token.throwIfCancelled();
    const lo = srcLo[i];
    const hi = srcHi === null ? 0 : srcHi[i];
    let ord: number;
    if (lo === prevLo && hi === prevHi) {
      ord = prevOrd;
    } else {
      while (j < defCount && ((dHi === null ? 0 : dHi[j]) < hi || ((dHi === null ? 0 : dHi[j]) === hi && dLo[j] < lo))) j++;
      if (j < defCount && dLo[j] === lo && (dHi === null ? 0 : dHi[j]) === hi) {
        ord = j;
      } else {
        ord = next++;
        fresh.push(lo, hi);
      }
      prevLo = lo;
      prevHi = hi;
      prevOrd = ord;
    }
    out[srcPos === null ? i : srcPos[i]] = ord;
  }
  return next;
}

import type { CancellationToken } from '../../util/cancellation.js';
import { AddressMap } from './address-map.js';
import type { FirstTouchNumbering } from './first-touch-numbering.js';
import { FIB, narrowKey, narrowPartition, widePartition } from './first-touch-numbering.js';
import type { HeapDumpCollection } from './heap-dump-collection.js';
import type { RecordChunks } from './record-chunks.js';

/**
 * The order in which dotnet-gcdump's object loop (§C7) calls `nodeFor`: for each collected object
 * in queue order, its own address, then the targets of its `have` references (the next ones of
 * the concatenated BulkEdge entries; fewer than its EdgeCount when the edge data runs out), then
 * the IUnknown of its RCW if it has one. Position p in this sequence is what FirstTouchNumbering
 * numbers by; a row's touches are the contiguous positions [start, start + 1 + have + rcw).
 *
 * Walks are sequential over the chunked rows and references (no per-row state is kept).
 */

/** Objects that are RCWs (BulkRCW), in row order, with the early pid of their IUnknown. */
export interface RcwRows {
  rows: number[];
  com: number[];
}

/** Rows whose address has a BulkRCW entry; null when the dump has none (the usual case). */
export function findRcwRows(c: HeapDumpCollection, earlyKeys: Uint32Array, token: CancellationToken): RcwRows | null {
  if (c.rcw.size === 0) return null;
  const keys = new AddressMap(2 * c.rcw.size);
  const comOf: number[] = [];
  for (const [objectPid, comPid] of c.rcw) comOf[keys.intern(earlyKeys[2 * objectPid], earlyKeys[2 * objectPid + 1])] = comPid;
  const out: RcwRows = { rows: [], com: [] };
  const store = c.rowAddress;
  let k = 0;
  for (let ch = 0; ch < store.chunks.length; ch++) {
    token.throwIfCancelled();
    const a = store.chunks[ch];
    for (let r = 0, n = store.counts[ch]; r < n; r++, k++) {
      const hit = keys.find(a[2 * r], a[2 * r + 1]);
      if (hit >= 0) {
        out.rows.push(k);
        out.com.push(comOf[hit]);
      }
    }
  }
  return out;
}

/** Number of touches: every row, min(Σ EdgeCount, references stored), and the RCW targets. */
export function sequenceLength(c: HeapDumpCollection, rcw: RcwRows | null): number {
  return c.rowAddress.length + Math.min(c.edgesDeclared, c.edgeTargets.length) + (rcw ? rcw.rows.length : 0);
}

/** The key space's parameters as plain numbers (no key space: every address is wide). */
function spaceOf(num: FirstTouchNumbering): { bLo: number; bHi: number; shift: number; limit: number; rb: number } {
  const s = num.space;
  return s ? { bLo: s.baseLo, bHi: s.baseHi, shift: s.shift, limit: num.keyLimit, rb: num.rangeBits } : { bLo: 0, bHi: Infinity, shift: 0, limit: 0, rb: -1 };
}

function countOne(lo: number, hi: number, bLo: number, bHi: number, shift: number, limit: number, rb: number, pb: number, nc: Uint32Array, wc: Uint32Array): void {
  const key = narrowKey(lo, hi, bLo, bHi, shift);
  if (key >= 0 && key < limit) nc[narrowPartition(key, pb, rb) + 1]++;
  else wc[widePartition(lo, hi, pb) + 1]++;
}

function placeOne(lo: number, hi: number, tag: number, bLo: number, bHi: number, shift: number, limit: number, rb: number, pb: number, narrow: Uint32Array, nf: Uint32Array, wide: Uint32Array, wf: Uint32Array): void {
  const key = narrowKey(lo, hi, bLo, bHi, shift);
  if (key >= 0 && key < limit) {
    const at = 2 * nf[narrowPartition(key, pb, rb)]++;
    narrow[at] = key;
    narrow[at + 1] = tag;
  } else {
    const at = 3 * wf[widePartition(lo, hi, pb)]++;
    wide[at] = lo;
    wide[at + 1] = hi;
    wide[at + 2] = tag;
  }
}

type Slots = ReturnType<FirstTouchNumbering['allocate']>;

/** Count one address (early, or a touch) into its partition. */
export function countAddress(num: FirstTouchNumbering, lo: number, hi: number): void {
  const { bLo, bHi, shift, limit, rb } = spaceOf(num);
  countOne(lo, hi, bLo, bHi, shift, limit, rb, num.partitionBits, num.narrowCounts, num.wideCounts);
}

/** Place one address with its tag (position, or `sequenceLength + early index`). */
export function placeAddress(num: FirstTouchNumbering, slots: Slots, lo: number, hi: number, tag: number): void {
  const { bLo, bHi, shift, limit, rb } = spaceOf(num);
  placeOne(lo, hi, tag, bLo, bHi, shift, limit, rb, num.partitionBits, slots.narrow, slots.narrowFill, slots.wide, slots.wideFill);
}

/** Count the early addresses (interleaved lo, hi) into their partitions. */
export function countEarly(num: FirstTouchNumbering, earlyKeys: Uint32Array): void {
  for (let e = 0; e < num.earlyCount; e++) countAddress(num, earlyKeys[2 * e], earlyKeys[2 * e + 1]);
}

/** Place the early addresses first, tagged `sequenceLength + index`. */
export function placeEarly(num: FirstTouchNumbering, earlyKeys: Uint32Array, slots: Slots): void {
  for (let e = 0; e < num.earlyCount; e++) placeAddress(num, slots, earlyKeys[2 * e], earlyKeys[2 * e + 1], num.sequenceLength + e);
}

/**
 * Pass 1 of the numbering: count every touch into its partition. Counting does not depend on
 * the order of touches, so it is three flat loops (objects, the references the objects take,
 * RCW targets) instead of the walk by object, whose per-object inner loop of 0–5 references
 * mispredicts its exit about once per object (~11 ns per touch at 2M objects; flat: 5–8).
 * The key and partition are inlined: a call per touch cost 4× as much.
 */
export function countTouches(c: HeapDumpCollection, rcw: RcwRows | null, earlyKeys: Uint32Array, num: FirstTouchNumbering, token: CancellationToken): void {
  const { bLo, bHi, shift, limit, rb } = spaceOf(num);
  const alignMask = (1 << shift) - 1;
  const pb = num.partitionBits;
  const nc = num.narrowCounts;
  const wc = num.wideCounts;
  const count = (store: RecordChunks, records: number) => {
    for (let ch = 0; ch < store.chunks.length && records > 0; ch++) {
      token.throwIfCancelled();
      const a = store.chunks[ch];
      const n = Math.min(store.counts[ch], records);
      records -= n;
      for (let w = 0, end = 2 * n; w < end; w += 2) {
        const lo = a[w];
        const hi = a[w + 1];
        const key = (lo - bLo) >>> shift;
        if (hi === bHi && lo >= bLo && (lo & alignMask) === 0 && key < limit) nc[(rb >= 0 ? key >>> rb : pb === 0 ? 0 : Math.imul(key, FIB) >>> (32 - pb)) + 1]++;
        else countOne(lo, hi, bLo, bHi, shift, limit, rb, pb, nc, wc);
      }
    }
  };
  count(c.rowAddress, c.rowAddress.length);
  count(c.edgeTargets, Math.min(c.edgesDeclared, c.edgeTargets.length)); // the references the objects take (§C7)
  if (rcw) for (const com of rcw.com) countOne(earlyKeys[2 * com], earlyKeys[2 * com + 1], bLo, bHi, shift, limit, rb, pb, nc, wc);
}

/**
 * Pass 2: store every touch, tagged with its position, at the next free item of its partition.
 * This is the last read of the addresses: each chunk is released once passed.
 */
export function placeTouches(c: HeapDumpCollection, rcw: RcwRows | null, earlyKeys: Uint32Array, num: FirstTouchNumbering, slots: Slots, token: CancellationToken): void {
  const { bLo, bHi, shift, limit, rb } = spaceOf(num);
  const { narrow, narrowFill: nf, wide, wideFill: wf } = slots;
  const alignMask = (1 << shift) - 1;
  const pb = num.partitionBits;
  const rowsA = c.rowAddress;
  const rowsI = c.rowInfo;
  const edges = c.edgeTargets;
  let remaining = Math.min(c.edgesDeclared, edges.length);
  let ec = -1;
  let et: Uint32Array = EMPTY;
  let ew = 0;
  let eEnd = 0;
  let k = 0;
  let p = 0;
  let nextRcw = rcw && rcw.rows.length > 0 ? rcw.rows[0] : -1;
  let rcwAt = 0;
  for (let ch = 0; ch < rowsA.chunks.length; ch++) {
    token.throwIfCancelled();
    const a = rowsA.chunks[ch];
    const info = rowsI.chunks[ch];
    for (let r = 0, n = rowsA.counts[ch]; r < n; r++, k++) {
      const lo = a[2 * r];
      const hi = a[2 * r + 1];
      const key = (lo - bLo) >>> shift;
      if (hi === bHi && lo >= bLo && (lo & alignMask) === 0 && key < limit) {
        const at = 2 * nf[rb >= 0 ? key >>> rb : pb === 0 ? 0 : Math.imul(key, FIB) >>> (32 - pb)]++;
        narrow[at] = key;
        narrow[at + 1] = p++;
      } else placeOne(lo, hi, p++, bLo, bHi, shift, limit, rb, pb, narrow, nf, wide, wf);
      let have = info[3 * r + 2];
      if (have > remaining) have = remaining;
      remaining -= have;
      while (have > 0) {
        if (ew === eEnd) {
          if (ec >= 0) edges.release(ec);
          et = edges.chunks[++ec];
          ew = 0;
          eEnd = 2 * edges.counts[ec];
        }
        const run = Math.min(have, (eEnd - ew) >>> 1);
        for (const end = ew + 2 * run; ew < end; ew += 2) {
          // placeOne, inlined by hand (the hottest loop: one pass per reference)
          const lo = et[ew];
          const hi = et[ew + 1];
          const key = (lo - bLo) >>> shift;
          if (hi === bHi && lo >= bLo && (lo & alignMask) === 0 && key < limit) {
            const at = 2 * nf[rb >= 0 ? key >>> rb : pb === 0 ? 0 : Math.imul(key, FIB) >>> (32 - pb)]++;
            narrow[at] = key;
            narrow[at + 1] = p++;
          } else placeOne(lo, hi, p++, bLo, bHi, shift, limit, rb, pb, narrow, nf, wide, wf);
        }
        have -= run;
      }
      if (k === nextRcw) {
        const com = rcw!.com[rcwAt++];
        placeOne(earlyKeys[2 * com], earlyKeys[2 * com + 1], p++, bLo, bHi, shift, limit, rb, pb, narrow, nf, wide, wf);
        nextRcw = rcwAt < rcw!.rows.length ? rcw!.rows[rcwAt] : -1;
      }
    }
    rowsA.release(ch);
  }
  edges.clear();
}

/**
 * The row during which position q is touched: `used` = its index + 1 and `end` = the first
 * position after its touches (where the §C7 loop stops when the node cap is reached there).
 */
export function rowAtPosition(c: HeapDumpCollection, rcw: RcwRows | null, q: number): { used: number; end: number } {
  const rowsI = c.rowInfo;
  const edgeTotal = c.edgeTargets.length;
  let cursor = 0;
  let p = 0;
  let k = 0;
  let rcwAt = 0;
  for (let ch = 0; ch < rowsI.chunks.length; ch++) {
    const info = rowsI.chunks[ch];
    for (let r = 0, n = rowsI.counts[ch]; r < n; r++, k++) {
      const want = info[3 * r + 2];
      const have = want < edgeTotal - cursor ? want : edgeTotal - cursor;
      cursor += have;
      let len = 1 + have;
      if (rcw && rcwAt < rcw.rows.length && rcw.rows[rcwAt] === k) {
        len++;
        rcwAt++;
      }
      p += len;
      if (q < p) return { used: k + 1, end: p };
    }
  }
  return { used: k, end: p };
}

const EMPTY = new Uint32Array(0);

/**
 * Visit rows 0 … used−1 with the position of their own touch, after the types pass has stored
 * each row's `have` in place of its EdgeCount: fn(row, position, info chunk, record in chunk, isRcw).
 */
export function forEachRow(
  c: HeapDumpCollection,
  rcw: RcwRows | null,
  used: number,
  fn: (k: number, p: number, info: Uint32Array, r: number, isRcw: boolean) => void,
): void {
  const store = c.rowInfo;
  let k = 0;
  let p = 0;
  let rcwAt = 0;
  let nextRcw = rcw && rcw.rows.length > 0 ? rcw.rows[0] : -1;
  for (let ch = 0; ch < store.chunks.length && k < used; ch++) {
    const info = store.chunks[ch];
    for (let r = 0, n = store.counts[ch]; r < n && k < used; r++, k++) {
      const isRcw = k === nextRcw;
      fn(k, p, info, r, isRcw);
      p += 1 + info[3 * r + 2];
      if (isRcw) {
        p++;
        rcwAt++;
        nextRcw = rcwAt < rcw!.rows.length ? rcw!.rows[rcwAt] : -1;
      }
    }
  }
}

import type { CancellationToken } from '../../util/cancellation.js';
import { AddressMap } from './address-map.js';
import { partitionOf } from './first-touch-numbering.js';
import type { HeapDumpCollection } from './heap-dump-collection.js';

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

/**
 * Pass 1 of the numbering: count every touch into its partition (`counts[partition + 1]++`).
 * Tight loops over the chunks with the hash inlined: a method call per touch cost 4× as much.
 */
export function countTouches(c: HeapDumpCollection, rcw: RcwRows | null, earlyKeys: Uint32Array, counts: Uint32Array, shift: number, token: CancellationToken): void {
  const rowsA = c.rowAddress;
  const rowsI = c.rowInfo;
  const edges = c.edgeTargets;
  let remaining = Math.min(c.edgesDeclared, edges.length); // edges the rows will take
  let ec = -1;
  let et: Uint32Array = EMPTY;
  let ew = 0;
  let eEnd = 0;
  let k = 0;
  let nextRcw = rcw && rcw.rows.length > 0 ? rcw.rows[0] : -1;
  let rcwAt = 0;
  for (let ch = 0; ch < rowsA.chunks.length; ch++) {
    token.throwIfCancelled();
    const a = rowsA.chunks[ch];
    const info = rowsI.chunks[ch];
    for (let r = 0, n = rowsA.counts[ch]; r < n; r++, k++) {
      counts[partitionOf(a[2 * r], a[2 * r + 1], shift) + 1]++;
      let have = info[3 * r + 2];
      if (have > remaining) have = remaining;
      remaining -= have;
      while (have > 0) {
        if (ew === eEnd) {
          et = edges.chunks[++ec];
          ew = 0;
          eEnd = 2 * edges.counts[ec];
        }
        const run = Math.min(have, (eEnd - ew) >>> 1);
        for (const end = ew + 2 * run; ew < end; ew += 2) counts[partitionOf(et[ew], et[ew + 1], shift) + 1]++;
        have -= run;
      }
      if (k === nextRcw) {
        const com = rcw!.com[rcwAt++];
        counts[partitionOf(earlyKeys[2 * com], earlyKeys[2 * com + 1], shift) + 1]++;
        nextRcw = rcwAt < rcw!.rows.length ? rcw!.rows[rcwAt] : -1;
      }
    }
  }
}

/**
 * Pass 2: store every touch (lo, hi, position) at the next free item of its partition. This is
 * the last read of the addresses: each chunk is released once passed.
 */
export function placeTouches(c: HeapDumpCollection, rcw: RcwRows | null, earlyKeys: Uint32Array, items: Uint32Array, fill: Uint32Array, shift: number, token: CancellationToken): void {
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
      let lo = a[2 * r];
      let hi = a[2 * r + 1];
      let at = 3 * fill[partitionOf(lo, hi, shift)]++;
      items[at] = lo;
      items[at + 1] = hi;
      items[at + 2] = p++;
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
          lo = et[ew];
          hi = et[ew + 1];
          at = 3 * fill[partitionOf(lo, hi, shift)]++;
          items[at] = lo;
          items[at + 1] = hi;
          items[at + 2] = p++;
        }
        have -= run;
      }
      if (k === nextRcw) {
        const com = rcw!.com[rcwAt++];
        lo = earlyKeys[2 * com];
        hi = earlyKeys[2 * com + 1];
        at = 3 * fill[partitionOf(lo, hi, shift)]++;
        items[at] = lo;
        items[at + 1] = hi;
        items[at + 2] = p++;
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

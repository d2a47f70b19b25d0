import type { CancellationToken } from '../../util/cancellation.js';
import { AddressMap } from './address-map.js';
import type { DefinedAddressIndex } from './defined-address-index.js';
import type { HeapDumpCollection } from './heap-dump-collection.js';
import { resolveBatched, type TailWatch } from './reference-batches.js';
import { RowField } from './row-columns.js';

/**
 * The objects' references as node indices, in arrival (queue) order: for each row, the targets
 * of its `have` references (the next ones of the concatenated BulkEdge entries; fewer than its
 * EdgeCount when the edge data runs out), then its RCW's IUnknown if it has one (§C7).
 *
 * A target that is an object's address becomes `first + rank` (one lookup in the
 * DefinedAddressIndex: a cache-resident bitmap, no hash probe); any other target (null, a
 * stray pointer, a CCW's IUnknown) becomes `MARKED | pid` and its pid is marked touched; the
 * caller numbers those once every pid is known. The writes are sequential, so when rows arrived
 * in address order `dest` is the graph's edge column already.
 */
export const MARKED = 0x80000000;

/** Objects that are RCWs (BulkRCW), in row order, with the pid of their IUnknown. */
export interface RcwRows {
  rows: number[];
  com: number[];
}

export interface ResolveInput {
  c: HeapDumpCollection;
  rcw: RcwRows | null;
  index: DefinedAddressIndex;
  /** Node index of rank 0. */
  first: number;
  /** Rows whose references are wanted (the first ones in queue order). */
  rows: number;
  /** Addresses of the pids known before (interleaved lo, hi), for RCW targets. */
  pidKeys: Uint32Array;
  /** The packed references (PackedReferences' words) from `srcAt` on; may be `dest` itself, at the same place, to resolve in place. */
  src: Uint32Array;
  srcAt: number;
  /** Where the node indices go, from `at` on (room for the RCW targets too). */
  dest: Uint32Array;
  at: number;
  /** Record where references to nodes ≥ tail.from and to other addresses are (see Resolved.tail). */
  tail?: TailWatch;
  /** Scratch for the batches' items (reference-batches.ts), when the caller wants to reuse its pages afterwards. */
  scratch?: Uint32Array;
  token: CancellationToken;
}

export interface Resolved {
  /** Words written to dest (references taken plus RCW targets). */
  written: number;
  /** Targets written as MARKED | pid. */
  marked: number;
  /**
   * With `tail`, when recorded (dense index, no RCW): the ascending positions (from `at`) of the
   * targets ≥ tail.from (MARKED ones included); null otherwise.
   */
  tail: Uint32Array | null;
}

/** Rows whose address has a BulkRCW entry; null when the dump has none (the usual case). */
export function findRcwRows(c: HeapDumpCollection, pidKeys: Uint32Array, token: CancellationToken): RcwRows | null {
  if (c.rcw.size === 0) return null;
  const keys = new AddressMap(2 * c.rcw.size);
  const comOf: number[] = [];
  for (const [objectPid, comPid] of c.rcw) comOf[keys.intern(pidKeys[2 * objectPid], pidKeys[2 * objectPid + 1])] = comPid;
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

/**
 * Write the references of rows 0 … rows − 1 in queue order. The references a row takes are the
 * next ones of the stream, so without RCWs this is one flat pass over the stream (no per-row
 * work); an RCW's target is inserted after its row's references (moving what follows: RCWs are
 * few). The packed references are kept unless resolved in place (src = dest).
 */
export function resolveReferences(f: ResolveInput): Resolved {
  const { c, index, first, dest, token } = f;
  const refs = c.edgeTargets;
  // Where each RCW target goes (references taken before it), and how many references the rows take.
  const inserts: number[] = [];
  const rcwRows = f.rcw ? f.rcw.rows : NO_ROWS;
  let taken = Math.min(c.edgesDeclared, refs.length);
  if (rcwRows.length > 0 || f.rows < c.rows.length) {
    taken = 0;
    forEachWant(c, f.rows, token, (k, want) => {
      taken += Math.min(want, refs.length - taken);
      if (rcwRows.length > inserts.length && rcwRows[inserts.length] === k) inserts.push(taken);
    });
  }
  let marked = 0;
  const other = (lo: number, hi: number): number => {
    marked++;
    const pid = c.pid(lo, hi);
    c.touch(pid);
    return (MARKED | pid) >>> 0;
  };
  // Flat into dest, then the RCW targets inserted by moving what follows them.
  const tail = f.tail && inserts.length === 0 && index.dense ? f.tail : null; // inserts would move the positions
  if (index.dense) resolveBatched(index, refs, taken, f.src, f.srcAt, dest, f.at, first, other, tail, f.scratch ?? null, token);
  else {
    for (let p = 0; p < taken; p++) {
      if ((p & 0xfffff) === 0) token.throwIfCancelled();
      const word = f.src[f.srcAt + p];
      const lo = refs.lo(word);
      const hi = refs.hi(word);
      const rank = index.rank(lo, hi);
      dest[f.at + p] = rank >= 0 ? first + rank : other(lo, hi);
    }
  }
  for (let i = inserts.length - 1, end = taken; i >= 0; i--) {
    dest.copyWithin(f.at + inserts[i] + i + 1, f.at + inserts[i], f.at + end);
    rcwTarget(f, f.rcw!.com[i], dest, f.at + inserts[i] + i, () => marked++);
    end = inserts[i];
  }
  return { written: taken + inserts.length, marked, tail: tail ? tail.positions.raw.subarray(0, tail.positions.length).sort() : null };
}

function rcwTarget(f: ResolveInput, com: number, dest: Uint32Array, w: number, mark: () => void): number {
  const rank = f.index.rank(f.pidKeys[2 * com], f.pidKeys[2 * com + 1]);
  if (rank >= 0) dest[w] = f.first + rank;
  else {
    f.c.touch(com);
    mark();
    dest[w] = (MARKED | com) >>> 0;
  }
  return w + 1;
}

/** fn(row, EdgeCount) for rows 0 … rows − 1. */
function forEachWant(c: HeapDumpCollection, rows: number, token: CancellationToken, fn: (k: number, want: number) => void): void {
  const wants = c.rows.view(RowField.Edges);
  for (let k = 0, n = Math.min(rows, wants.length); k < n; k++) {
    if ((k & 0xffff) === 0) token.throwIfCancelled();
    fn(k, wants[k]);
  }
}

/**
 * Store each kept row's `have` (the references it takes) in place of its EdgeCount; returns the
 * references taken and those declared but missing from the stream. When the stream sent at least
 * every declared reference (the usual case) no row is short, so only the rows after `used` are
 * read (to subtract theirs): after a cap in the tail that is a few thousand rows, not all.
 */
export function keepRows(c: HeapDumpCollection, used: number, token: CancellationToken): { taken: number; missing: number } {
  const total = c.edgeTargets.length;
  const wants = c.rows.view(RowField.Edges);
  if (c.edgesDeclared <= total) {
    let dropped = 0;
    for (let k = used; k < wants.length; k++) {
      if ((k & 0xfffff) === 0) token.throwIfCancelled();
      dropped += wants[k];
    }
    return { taken: c.edgesDeclared - dropped, missing: 0 };
  }
  let taken = 0;
  let missing = 0;
  for (let k = 0, n = Math.min(used, wants.length); k < n; k++) {
    if ((k & 0xfffff) === 0) token.throwIfCancelled();
    const want = wants[k];
    const have = want < total - taken ? want : total - taken;
    if (have < want) {
      missing += want - have;
      wants[k] = have;
    }
    taken += have;
  }
  return { taken, missing };
}

const NO_ROWS: number[] = [];

import type { CancellationToken } from '../../util/cancellation.js';
import { GrowableUint32Array } from '../../util/growable-array.js';
import type { DefinedAddressIndex } from './defined-address-index.js';
import type { HeapDumpCollection } from './heap-dump-collection.js';
import { MARKED, type RcwRows } from './object-references.js';
import { type TailWatch, watchTail } from './reference-batches.js';
import { RowField } from './row-columns.js';

/**
 * The node cap (§C7, dotnet-gcdump's semantics kept): its loop stops after the object during
 * which its node count (pseudo-nodes before §C7, plus every distinct address touched so far:
 * root targets, then each object's own address, references and RCW target, in queue order)
 * reaches maxNodes. That count does not depend on node numbering, only on which addresses were
 * touched by which row, so it is computed from the resolved references.
 *
 * `capInTail` (rows in address order, the common case): when the cap cuts near the end of the
 * walk, as for a heap just over the cap, only the last rows can be where it stops. The count
 * after row k is the final count minus the addresses first touched after k ("late"), and only
 * the last T ranks and the addresses without an object can be late there, and only when first
 * touched by a tail row: resolving records where those references are (TailWatch; else one
 * sequential pass over the references finds them), and one pass over the tail's rows gives the
 * rows of the first ones, instead of a bit test per touch (~0.3 s at 10M objects) or a pass over
 * every row (~50 ms). Otherwise `capRows` walks every touch in order.
 */
export interface CapWatch {
  maxNodes: number;
  /** Nodes so far: pseudo-nodes before §C7 plus the addresses touched by root events. */
  count: number;
  /** One bit per defined rank (before truncation), and one byte per pid, set once seen. */
  seenRank: Int32Array;
  seenPid: Uint8Array;
}

/**
 * The node cap: walk the rows in queue order over their resolved references (`refs` from `at`,
 * as resolveReferences wrote them for all rows) and return how many rows dotnet-gcdump keeps:
 * all, or up to the one during which its node count reaches maxNodes. Row k's own address has
 * rank k when the rows arrived in address order (`index` null), else index.rank of it.
 * One bit test-and-set per touch in a bitmap of the ranks (1.25 MB at 10M objects).
 */
export function capRows(c: HeapDumpCollection, rcw: RcwRows | null, refs: Uint32Array, at: number, first: number, watch: CapWatch, index: DefinedAddressIndex | null, token: CancellationToken): number {
  const total = c.edgeTargets.length;
  const rcwRows = rcw ? rcw.rows : NO_ROWS;
  const wants = c.rows.view(RowField.Edges);
  const addr = c.rowAddress;
  const ranks = watch.seenRank;
  const max = watch.maxNodes;
  let count = watch.count;
  let taken = 0;
  let q = at;
  let rcwAt = 0;
  let k = 0;
  for (let ch = 0; ch < addr.chunks.length; ch++) {
    token.throwIfCancelled();
    const ad = addr.chunks[ch];
    for (let r = 0, n = addr.counts[ch]; r < n; r++, k++) {
      const want = wants[k];
      const have = want < total - taken ? want : total - taken;
      taken += have;
      let end = q + have;
      if (rcwAt < rcwRows.length && rcwRows[rcwAt] === k) {
        rcwAt++;
        end++;
      }
      const own = index ? index.rank(ad[2 * r], ad[2 * r + 1]) : k;
      let word = ranks[own >>> 5];
      let bit = 1 << (own & 31);
      ranks[own >>> 5] = word | bit;
      count += (word & bit) === 0 ? 1 : 0;
      for (; q < end; q++) {
        const v = refs[q];
        if (v >= MARKED) {
          count += seePid(watch, v - MARKED);
          continue;
        }
        const rank = v - first;
        word = ranks[rank >>> 5];
        bit = 1 << (rank & 31);
        ranks[rank >>> 5] = word | bit;
        count += (word & bit) === 0 ? 1 : 0;
      }
      if (count >= max) {
        watch.count = count;
        return k + 1;
      }
    }
  }
  watch.count = count;
  return k;
}

/** 1 when `pid` was not seen before (and mark it). */
function seePid(watch: CapWatch, pid: number): number {
  if (pid >= watch.seenPid.length) {
    const grown = new Uint8Array(Math.max(2 * watch.seenPid.length, pid + 1));
    grown.set(watch.seenPid);
    watch.seenPid = grown;
  }
  if (watch.seenPid[pid] !== 0) return 0;
  watch.seenPid[pid] = 1;
  return 1;
}

/** Rows that capInTail can place the cut among (the last ones). */
export const TAIL = 1 << 16;

/** Node index of the first tail row (rows in address order: row k is node first + k). */
export function tailFrom(first: number, rows: number): number {
  return first + rows - Math.min(rows, TAIL);
}

/** What resolving should record for capInTail (rows in address order). */
export function watchTailRows(c: HeapDumpCollection, first: number, rows: number): TailWatch {
  const store = c.rowAddress;
  let row = rows - Math.min(rows, TAIL);
  let ch = 0;
  while (row >= store.counts[ch]) row -= store.counts[ch++];
  const a = store.chunks[ch];
  return watchTail(tailFrom(first, rows), a[2 * row], a[2 * row + 1], c.maxLo, c.maxHi);
}

/**
 * Positions (from `at`, ascending) of the references to nodes ≥ `from` and of the MARKED ones:
 * a scan of every reference, for when resolving did not record them (Resolved.tail).
 */
export function tailPositions(refs: Uint32Array, at: number, written: number, from: number, token: CancellationToken): Uint32Array {
  const out = new GrowableUint32Array(1024);
  for (let q = at, end = at + written; q < end; q++) {
    if ((q & 0xfffff) === 0) token.throwIfCancelled();
    if (refs[q] >= from) out.push(q - at);
  }
  return out.raw.subarray(0, out.length);
}

/**
 * Rows kept when the rows arrived in address order (row k has rank k), or −1 when the cap stops
 * before the last TAIL rows (then use capRows). `slack`: the final count minus maxNodes (≥ 0);
 * `early[pid]`: touched before §C7. `positions`: tailPositions(…, tailFrom(first, rows)), the
 * only references a cut in the tail can change.
 */
export function capInTail(c: HeapDumpCollection, rcw: RcwRows | null, refs: Uint32Array, at: number, positions: Uint32Array, first: number, rows: number, slack: number, early: Uint8Array, index: DefinedAddressIndex, pidKeys: Uint32Array, token: CancellationToken): number {
  const tail = Math.min(rows, TAIL);
  const from = rows - tail; // first rank (and row) of the tail
  const NONE = 0xffffffff;
  const firstRef = new Uint32Array(tail).fill(NONE); // position of the first reference to each tail rank
  const pidRef = new Map<number, number>(); // the same for addresses without an object (few)
  for (let i = 0; i < positions.length; i++) {
    const q = positions[i];
    const v = refs[at + q];
    if (v >= MARKED) {
      if (!pidRef.has(v - MARKED)) pidRef.set(v - MARKED, q);
    } else if (firstRef[v - first - from] === NONE) firstRef[v - first - from] = q;
  }
  // Rows of those first references that a tail row made (the others are before the tail: not late).
  const tailStart = rowsFrom(c, rcw, from, token);
  const queries: number[] = [];
  for (let r = 0; r < tail; r++) if (firstRef[r] !== NONE && firstRef[r] >= tailStart.position) queries.push(firstRef[r]);
  for (const [pid, pos] of pidRef) if (!early[pid] && pos >= tailStart.position) queries.push(pos);
  queries.sort((x, y) => x - y);
  const rowAt = rowsOfPositions(c, rcw, tailStart, queries, token);
  const rowOf = (pos: number) => rowAt.get(pos) ?? -1; // −1: a row before the tail
  // late[j]: addresses first touched by row from + j.
  const late = new Uint32Array(tail);
  const isEarly = new Uint8Array(tail);
  for (let pid = 0; pid < early.length; pid++) {
    if (!early[pid]) continue;
    const r = index.rank(pidKeys[2 * pid], pidKeys[2 * pid + 1]);
    if (r >= from) isEarly[r - from] = 1;
  }
  for (let r = 0; r < tail; r++) {
    if (isEarly[r]) continue;
    const row = firstRef[r] === NONE ? from + r : Math.min(from + r, rowOf(firstRef[r]));
    if (row >= from) late[row - from]++;
  }
  for (const [pid, pos] of pidRef) {
    if (early[pid]) continue;
    const row = rowOf(pos);
    if (row >= from) late[row - from]++;
  }
  // Smallest k with (addresses first touched after k) ≤ slack.
  let after = 0;
  for (let j = 1; j < tail; j++) after += late[j];
  if (after <= slack && from > 0) return -1; // the cap stops at or before the tail's first row
  for (let j = 0; j < tail; j++) {
    if (after <= slack) return from + j + 1;
    if (j + 1 < tail) after -= late[j + 1];
  }
  return rows;
}

/** Where row `from`'s references start, and the references the rows before it take. */
interface RowStart {
  row: number;
  /** Position (from the start of the objects' references) of the row's first reference. */
  position: number;
  taken: number;
}

/**
 * RowStart of row `from`, from the rows after it only (the tail): the rows before it take
 * min(Σ their EdgeCount, references sent) references, Σ being the collection's total minus the
 * tail's, plus one per RCW among them.
 */
function rowsFrom(c: HeapDumpCollection, rcw: RcwRows | null, from: number, token: CancellationToken): RowStart {
  let tailWant = 0;
  forEachRowFrom(c, from, token, (_k, want) => {
    tailWant += want;
  });
  const taken = Math.min(c.edgesDeclared - tailWant, c.edgeTargets.length);
  let rcwBefore = 0;
  if (rcw) while (rcwBefore < rcw.rows.length && rcw.rows[rcwBefore] < from) rcwBefore++;
  return { row: from, position: taken + rcwBefore, taken };
}

/** Row of each reference position (sorted ascending, none before `s`): one pass over the rows from s.row. */
function rowsOfPositions(c: HeapDumpCollection, rcw: RcwRows | null, s: RowStart, sorted: number[], token: CancellationToken): Map<number, number> {
  const out = new Map<number, number>();
  const total = c.edgeTargets.length;
  const rcwRows = rcw ? rcw.rows : NO_ROWS;
  let qi = 0;
  let start = s.position;
  let taken = s.taken;
  let rcwAt = 0;
  while (rcwAt < rcwRows.length && rcwRows[rcwAt] < s.row) rcwAt++;
  forEachRowFrom(c, s.row, token, (k, want) => {
    if (qi >= sorted.length) return;
    const have = want < total - taken ? want : total - taken;
    taken += have;
    let end = start + have;
    if (rcwAt < rcwRows.length && rcwRows[rcwAt] === k) {
      rcwAt++;
      end++;
    }
    while (qi < sorted.length && sorted[qi] < end) out.set(sorted[qi++], k);
    start = end;
  });
  return out;
}

/** fn(row, EdgeCount) for the collected rows from row `from` on. */
function forEachRowFrom(c: HeapDumpCollection, from: number, token: CancellationToken, fn: (k: number, want: number) => void): void {
  const wants = c.rows.view(RowField.Edges);
  for (let k = from; k < wants.length; k++) {
    if ((k & 0xffff) === 0) token.throwIfCancelled();
    fn(k, wants[k]);
  }
}

const NO_ROWS: number[] = [];

import type { ProblemList } from '../../graph/problems.js';
import type { CancellationToken } from '../../util/cancellation.js';
import type { DefinedAddressIndex } from './defined-address-index.js';
import type { HeapDumpCollection } from './heap-dump-collection.js';
import { MARKED, type RcwRows } from './object-references.js';
import { RowField } from './row-columns.js';
import { sizeBucket } from './type-names.js';

/**
 * The objects' part of the graph's columns (node indices first … first + D − 1, one per
 * distinct object address in ascending order), from the rows and their resolved references.
 *
 * Types are created here, in queue (arrival) order, as dotnet-gcdump does (§C7): the type table
 * and each type's size (its first object's) do not depend on node order.
 *
 * Two layouts:
 * - `layOutInOrder`: the rows arrived in strictly increasing address order (the CLR walks each
 *   segment or region in address order; one run when the walk is in order): row k is node
 *   first + k, its references are already in place in the edge column and its size, type key and
 *   EdgeCount in the columns that become selfSize, nodeType and firstEdge. One sequential pass
 *   over those, in place; the addresses are block copies of the rows' address chunks.
 * - `layOutGathered`: any other arrival order (runs out of order, interleaved, shuffled,
 *   an address described twice). Row k's node is first + rank(its address); "the last
 *   description wins" as in HeapGraphBuilder, with a 'duplicate-node' problem per repeated
 *   description. Node order then reads each node's row and references from where they arrived:
 *   sequential within runs, random for a shuffled walk. Costs 12 bytes per row and 4 per
 *   distinct address of scratch, plus the references in arrival order beside the edge column.
 */
export interface TypeLookup {
  /** Type index per type key, −1 when not interned yet. */
  typeOf: Int32Array;
  /** Per (type key × 7 + size bucket): the bucket type, −1 when not interned yet. */
  bucketCache: Int32Array;
  /** The uncached case (interns the type). */
  typeIndexFor: (key: number, size: number) => number;
  sizes: number[];
}

export interface ObjectColumnsInput {
  c: HeapDumpCollection;
  rcw: RcwRows | null;
  /** Rows kept (queue order). */
  used: number;
  /** Node index of the lowest object address. */
  first: number;
  types: TypeLookup;
  nodeType: Uint32Array;
  selfSize: Uint32Array;
  firstEdge: Uint32Array;
  addressWords: Uint32Array;
  /** Offset in the edge column where the objects' references start. */
  edgeAt: number;
  /** Nodes that a CCW row described before the objects (a row describing one again is a duplicate). */
  ccwDescribed: ReadonlySet<number>;
  problems: ProblemList;
  token: CancellationToken;
}

/**
 * Rows in address order: node first + k is row k, and nodeType, selfSize and firstEdge are the
 * rows' own columns (RowColumns.column: entry first + k holds row k's type key, size and
 * EdgeCount), turned into the graph's in place. Returns the end of the objects' references.
 */
export function layOutInOrder(f: ObjectColumnsInput): number {
  const { c, first, nodeType, selfSize, firstEdge, token } = f;
  const { typeOf, bucketCache, typeIndexFor, sizes } = f.types;
  const rcwRows = f.rcw ? f.rcw.rows : NO_ROWS;
  for (const n of [...f.ccwDescribed].sort((x, y) => x - y)) if (n >= first && n < first + f.used) f.problems.add('duplicate-node', duplicate(n));
  const addr = c.rowAddress;
  let e = f.edgeAt;
  let rcwAt = 0;
  for (let ch = 0, k = 0; ch < addr.chunks.length && k < f.used; ch++) {
    token.throwIfCancelled();
    const m = Math.min(addr.counts[ch], f.used - k);
    f.addressWords.set(addr.chunks[ch].subarray(0, 2 * m), 2 * (first + k));
    for (let n = first + k, end = n + m; n < end; n++) {
      let size = selfSize[n];
      let count = firstEdge[n];
      // typeIndexFor's cached cases inlined (a call per object costs ~10 ns); before the RCW
      // surcharge, as dotnet-gcdump does
      const key = nodeType[n];
      let t = size <= 1000 ? typeOf[key] : bucketCache[key * 7 + sizeBucket(size)];
      if (t < 0) t = typeIndexFor(key, size);
      if (rcwAt < rcwRows.length && rcwRows[rcwAt] === n - first) {
        rcwAt++;
        size += 1000;
        count++;
        selfSize[n] = size;
      }
      if (sizes[t] < 0) sizes[t] = size;
      nodeType[n] = t;
      firstEdge[n] = e;
      e += count;
    }
    k += m;
    addr.release(ch);
  }
  return e;
}

/**
 * Rows in any order. `refs` holds the rows' resolved references in arrival order (MARKED | pid
 * for addresses numbered by `nodeOfPid`); they are copied to edgeTarget in node order.
 * Returns the end of the objects' references.
 */
export function layOutGathered(f: ObjectColumnsInput, index: DefinedAddressIndex, refs: Uint32Array, nodeOfPid: Int32Array, edgeTarget: Uint32Array): number {
  const { c, first, used, nodeType, selfSize, firstEdge, token } = f;
  const { typeOf, bucketCache, typeIndexFor, sizes } = f.types;
  const rcwRows = f.rcw ? f.rcw.rows : NO_ROWS;
  const rowType = new Uint32Array(used);
  const rowSize = new Uint32Array(used);
  const rowStart = new Uint32Array(used + 1);
  const desc = new Int32Array(index.count).fill(-1);
  const sizeOf = c.rows.view(RowField.Size);
  const typeKeyOf = c.rows.view(RowField.Type);
  const edgesOf = c.rows.view(RowField.Edges);
  const addr = c.rowAddress;
  // Queue order: types, sizes and where each row's references start; which row describes each node last.
  let rcwAt = 0;
  for (let ch = 0, k = 0; ch < addr.chunks.length && k < used; ch++) {
    token.throwIfCancelled();
    const ad = addr.chunks[ch];
    for (let r = 0, m = Math.min(addr.counts[ch], used - k); r < m; r++, k++) {
      let size = sizeOf[k];
      let count = edgesOf[k];
      const key = typeKeyOf[k];
      let t = size <= 1000 ? typeOf[key] : bucketCache[key * 7 + sizeBucket(size)];
      if (t < 0) t = typeIndexFor(key, size);
      if (rcwAt < rcwRows.length && rcwRows[rcwAt] === k) {
        rcwAt++;
        size += 1000;
        count++;
      }
      if (sizes[t] < 0) sizes[t] = size;
      rowType[k] = t;
      rowSize[k] = size;
      rowStart[k + 1] = rowStart[k] + count;
      const rank = index.rank(ad[2 * r], ad[2 * r + 1]);
      if (desc[rank] >= 0 || f.ccwDescribed.has(first + rank)) f.problems.add('duplicate-node', duplicate(first + rank));
      desc[rank] = k;
    }
  }
  addr.clear();
  // Node order: columns and references.
  let e = f.edgeAt;
  for (let i = 0; i < desc.length; i++) {
    if ((i & 0xffff) === 0) token.throwIfCancelled();
    const k = desc[i];
    const n = first + i;
    nodeType[n] = rowType[k];
    selfSize[n] = rowSize[k];
    firstEdge[n] = e;
    for (let q = rowStart[k], end = rowStart[k + 1]; q < end; q++) {
      const v = refs[q];
      edgeTarget[e++] = v >= MARKED ? nodeOfPid[v - MARKED] : v;
    }
  }
  index.writeAddresses(f.addressWords, first, token);
  return e;
}

export function duplicate(node: number): string {
  return `node ${node} was described twice; the last description wins`;
}

const NO_ROWS: number[] = [];

import type { HeapGraphBuilder } from '../../graph/heap-graph-builder.js';
import { NODE_UNDEFINED } from '../../graph/heap-graph.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { NO_PROGRESS, type ProgressSink } from '../../util/progress.js';
import { BlobRecordDecoder, type RecordSink } from './blob-records.js';
import { nodeOfVisit, PARALLEL_MIN_BLOB_BYTES, type BlobPart, type BlobPartReader, type BlobPartRequest } from './blob-split.js';
import { ByteCursor } from './byte-cursor.js';
import { sortNodesByOffset } from './offset-order.js';

/**
 * Decodes the MemoryGraph node blob (gcdump-format.md §6.2) into the builder while streaming it.
 *
 * Records are random access through `offsets`, and producers define nodes in their own order
 * (the root last; in the real fixtures a third of the nodes come out of index order), so the blob
 * is read forward in windows of `cur.chunkSize` bytes and records are visited in blob order:
 *
 * - offsets increasing with the node index: each record goes straight to the builder, whose edge
 *   pool is then the CSR edge column as it is;
 * - otherwise node indices are sorted by offset (offset-order.ts: 8–12 bytes per node while sorting) and
 *   records still go straight to the builder, in blob order: it keeps each node's reference count
 *   and pool start, and its finish() puts the pool into node order (HeapGraphBuilder
 *   breakOrder, buildCsr; in place when records are out of order only in a few runs, as with the
 *   root's record last, edge-pool-order.ts). Why not a store of the records replayed in node order: that store
 *   (16 bytes per node + 4 per reference) lived beside the builder's columns and pool, so a file
 *   with a single record out of place (the real fixtures' producers write the root's record last) peaked at
 *   ~84 bytes per node in the app's parse against ~50 in node order (10M objects).
 *   Nodes without a record are described as undefined afterwards, in index order.
 *
 * The records themselves are decoded by blob-records.ts. With `split` (a second thread) and a
 * blob of PARALLEL_MIN_BLOB_BYTES or more, the records from the middle of the blob on are decoded
 * there (blob-split.ts) while this thread decodes the first half; the builder then gets the same
 * calls in the same order as from one thread, so the graph and its problems are identical.
 */

export interface BlobInput {
  cur: ByteCursor;
  /** File offset of the blob's first byte. */
  blobStart: number;
  blobLength: number;
  /** Blob offset of each node's record; 0 = never described (left UNDEFINED). */
  offsets: Uint32Array;
  typeSizes: Int32Array;
  builder: HeapGraphBuilder;
  token: CancellationToken;
  progress: ProgressSink;
  /** A second thread for blobs of PARALLEL_MIN_BLOB_BYTES or more (blob-split.ts). */
  split?: BlobSplit;
}

export interface BlobSplit {
  reader: BlobPartReader;
  /** Tests: the number of records decoded on this thread (0 … all), whatever the blob's size. */
  atVisit?: number;
  /** Tests: the smallest blob split at its middle (default PARALLEL_MIN_BLOB_BYTES). */
  minBlobBytes?: number;
}

/**
 * Edges to allocate for up front: about one per 3 blob bytes, but at most 16 per node, so a blob
 * of zeros behind three nodes does not pre-allocate 4 bytes per 3 of its bytes. A graph with more
 * (a few huge arrays) grows its edge pool by doubling.
 */
export function expectedEdgeCount(nodeCount: number, blobLength: number): number {
  return Math.max(16, Math.min(Math.floor(blobLength / 3), 16 * nodeCount));
}

const NO_CHILDREN = new Int32Array(0);

/**
 * In-order records: straight to the builder, children decoded into its edge pool where they stay
 * (no buffer to copy from, no per-child check when the decode saw them all in range).
 */
class BuilderSink implements RecordSink {
  base = 0;
  constructor(private readonly builder: HeapGraphBuilder) {}
  room(count: number): Int32Array {
    const pool = this.builder.edgeRoom(count);
    this.base = this.builder.edgePoolLength;
    return pool;
  }
  put(node: number, type: number, size: number, count: number, inRange: boolean): void {
    this.builder.setNodeFromPool(node, type, size, count, inRange);
  }
}

/** Decode every described node into the builder; returns Σ of the (valid) sizes given. */
export async function decodeNodeBlob(input: BlobInput): Promise<number> {
  const { cur, blobStart, blobLength, offsets, typeSizes, builder, token, progress } = input;
  const n = offsets.length;

  let nonZero = 0;
  let sorted = true;
  let last = 0;
  for (let i = 0; i < n; i++) {
    const off = offsets[i];
    if (off === 0) continue;
    if (off >= blobLength) throw cur.corrupt(`node ${i} has its record at blob offset ${off}, past the blob's ${blobLength} bytes`);
    nonZero++;
    if (off <= last) sorted = false;
    last = off;
  }
  const split = input.split ? planSplit(input, input.split, sorted, nonZero) : null;
  const order = sorted ? null : sortNodesByOffset(offsets, nonZero, blobLength, split !== null);
  // Undefined nodes (offset 0) are described as empty and flagged UNDEFINED again, in index order.
  const setUndefined = (node: number): void => {
    builder.setNode(node, 0, 0, NO_CHILDREN, 0, 0);
    builder.addFlags(node, NODE_UNDEFINED);
  };
  const sink = new BuilderSink(builder);

  let next: number;
  let sumOfSizes: number;
  if (!split) {
    const decoder = new BlobRecordDecoder(cur, blobStart, blobLength, typeSizes, token, progress);
    next = await decoder.run({ offsets, order, from: 0, to: nonZero, firstNode: 0, onUndefined: setUndefined }, sink);
    sumOfSizes = decoder.sumOfSizes;
  } else {
    const at = order ? { visit: split.visit, node: split.visit < nonZero ? order[split.visit] : n } : split;
    ({ next, sumOfSizes } = await decodeSplit(input, order, nonZero, at, sink, setUndefined));
  }
  progress('parse', blobStart + blobLength, cur.size);
  if (order) {
    for (let node = 0; node < n; node++) {
      if ((node & 0xffff) === 0) token.throwIfCancelled();
      if (offsets[node] === 0) setUndefined(node);
    }
  } else while (next < n) setUndefined(next++);
  return sumOfSizes;
}

/**
 * The visit where the second thread starts (its node when the offsets are in index order), or
 * null for one thread: a small blob, or a split that leaves one side empty. `atVisit` (tests)
 * forces a split anywhere, empty sides included.
 */
function planSplit(input: BlobInput, split: BlobSplit, sorted: boolean, nonZero: number): { visit: number; node: number } | null {
  const { offsets, blobLength } = input;
  if (split.atVisit !== undefined) {
    const visit = Math.max(0, Math.min(nonZero, split.atVisit));
    return { visit, node: sorted ? nodeOfVisit(offsets, visit) : -1 };
  }
  if (blobLength < (split.minBlobBytes ?? PARALLEL_MIN_BLOB_BYTES)) return null;
  // the middle by bytes; the visit is counted on the offsets (the order is sorted after this)
  const middle = Math.floor(blobLength / 2);
  let visit = 0;
  for (let i = 0; i < offsets.length; i++) if (offsets[i] !== 0 && offsets[i] < middle) visit++;
  if (visit === 0 || visit === nonZero) return null;
  return { visit, node: sorted ? nodeOfVisit(offsets, visit) : -1 };
}

/**
 * Visits [0, at.visit) here while the second thread decodes the rest into a BlobPart, then the
 * part's records go to `sink` in visit order: the same calls, in the same order, as one thread
 * makes. When the part fails (the thread died, or the part is damaged) or overlaps the last
 * record decoded here, this thread decodes it instead, so damage is worded exactly as in a
 * one-thread read.
 */
async function decodeSplit(
  input: BlobInput,
  order: Uint32Array | null,
  nonZero: number,
  at: { visit: number; node: number },
  sink: RecordSink,
  setUndefined: (node: number) => void,
): Promise<{ next: number; sumOfSizes: number }> {
  const { cur, blobStart, blobLength, offsets, typeSizes, builder, token, progress } = input;
  let mine = 0;
  let theirs = 0;
  const tell = (): void => progress('parse', blobStart + mine + theirs, cur.size);
  // A cursor of its own that reports nothing: this half's reads would report its own position
  // only, behind the sum of both halves that `tell` reports (the bar would jump back and forth).
  const quiet = new ByteCursor(cur.source, cur.size, token, NO_PROGRESS, cur.chunkSize);
  quiet.section = cur.section;
  const decoder = new BlobRecordDecoder(quiet, blobStart, blobLength, typeSizes, token, (_phase, done) => {
    mine = Math.max(0, done - blobStart);
    tell();
  });
  const request: BlobPartRequest = {
    format: 'gcdump-blob',
    name: cur.source.name,
    fileSize: cur.size,
    blobStart,
    blobLength,
    offsets,
    order,
    from: at.visit,
    to: nonZero,
    firstNode: at.node,
    typeSizes,
    chunkSize: cur.chunkSize,
  };
  // A builder in shared memory: the part writes the builder's columns itself (blob-split.ts
  // DirectColumns). Its type check is against typeSizes, so the builder must hold exactly those
  // types (memory-graph-reader.ts sets them all).
  const into = builder.typeCount === typeSizes.length ? builder.directColumns() : null;
  if (into !== null) request.into = into;
  const part = input.split!.reader(request, token, (bytes) => {
    theirs = bytes;
    tell();
  });
  // a failed helper thread is no error here: the part is then decoded on this thread (never unhandled)
  const pending = part.result.catch(() => null);
  try {
    let next = await decoder.run({ offsets, order, from: 0, to: at.visit, firstNode: 0, onUndefined: setUndefined }, sink);
    let got = await pending;
    token.throwIfCancelled();
    if (got && at.visit < nonZero && offsets[order ? order[at.visit] : at.node] < decoder.prevEnd) got = null;
    // a part written into the builder's columns with something setNode would report is decoded
    // again here (over what it wrote), so the report is worded as in a one-thread read
    if (!got || got.records !== nonZero - at.visit || (got.direct && !got.clean)) {
      next = await decoder.run({ offsets, order, from: at.visit, to: nonZero, firstNode: next, onUndefined: setUndefined }, sink);
      return { next, sumOfSizes: decoder.sumOfSizes };
    }
    const sumOfSizes = decoder.sumOfSizes + got.sumOfSizes;
    if (got.direct) {
      const children = new Uint32Array(got.children.buffer, got.children.byteOffset, got.children.length);
      if (order) builder.commitDirectVisits(order.subarray(at.visit, nonZero), children, token);
      else builder.commitDirectNodes(next, offsets, children, token);
      return { next: offsets.length, sumOfSizes };
    }
    next = order ? mergeInVisitOrder(got, builder, order, at.visit, token) : mergeInOrder(got, input, next, setUndefined);
    return { next, sumOfSizes };
  } finally {
    part.cancel();
  }
}

/** The part's records to the builder, in node order (offset-0 nodes between them flagged UNDEFINED). */
function mergeInOrder(part: BlobPart, input: BlobInput, next: number, setUndefined: (node: number) => void): number {
  const { offsets, builder, token } = input;
  const { type, size, count, children } = part;
  // Every node from here on has a record (no undefined node between them) and nothing to report:
  // one bulk copy. The builder's type count is the file's (memory-graph-reader.ts sets them all).
  if (part.clean && offsets.length - next === type.length && builder.typeCount === input.typeSizes.length) {
    builder.setCheckedNodes(next, type, size, count, new Uint32Array(children.buffer, children.byteOffset, children.length));
    return offsets.length;
  }
  let first = 0;
  for (let j = 0; j < type.length; j++) {
    if ((j & 0xffff) === 0) token.throwIfCancelled();
    while (offsets[next] === 0) setUndefined(next++);
    builder.setNode(next++, type[j], size[j], children, first, count[j]);
    first += count[j];
  }
  return next;
}

/** The part's records to the builder in visit order (records out of node order), as decoded here. */
function mergeInVisitOrder(part: BlobPart, builder: HeapGraphBuilder, order: Uint32Array, from: number, token: CancellationToken): number {
  const { type, size, count, children } = part;
  let first = 0;
  for (let j = 0; j < type.length; j++) {
    if ((j & 0xffff) === 0) token.throwIfCancelled();
    builder.setNode(order[from + j], type[j], size[j], children, first, count[j]);
    first += count[j];
  }
  return order.length;
}

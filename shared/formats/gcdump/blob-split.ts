import type { ByteSource } from '../../util/byte-source.js';
import { NEVER_CANCELLED, type CancellationToken } from '../../util/cancellation.js';
import { GrowableInt32Array } from '../../util/growable-array.js';
import { NO_PROGRESS, type ProgressSink } from '../../util/progress.js';
import { BlobRecordDecoder, type RecordSink } from './blob-records.js';
import { ByteCursor } from './byte-cursor.js';

/**
 * The second thread's half of a .gcdump node blob (node-blob-decoder.ts): the records of visits
 * `from … to` decoded into arrays of their own, which the reader's thread then hands to its
 * builder in order, so the graph and its problem list are those of a one-thread read, bit for bit.
 *
 * Record boundaries cost nothing to find: the node offset table gives every record's start, so
 * the split is the first record at or past the middle of the blob, never inside one.
 *
 * Cost: the part's arrays (12 bytes per record + 4 per child) exist until the reader has copied
 * them into the builder; the reader's thread still copies (and range-checks) their children.
 * With the builder's shared columns (`into`) only the children are the part's own: the rest is
 * written where the graph keeps it.
 */

/** Below this many blob bytes a second thread costs more to start than it saves (~0.1–0.3 s). */
export const PARALLEL_MIN_BLOB_BYTES = 32 * 1024 * 1024;

/** What the second thread needs: the file's name and size, the blob's place, and the visits. */
export interface BlobPartRequest {
  format: 'gcdump-blob';
  /** The source's name, so that errors read as the reader's own (they are the same text). */
  name: string;
  fileSize: number;
  blobStart: number;
  blobLength: number;
  /** Node offsets (SharedArrayBuffer-backed when the reader could: no copy to the thread). */
  offsets: Uint32Array;
  /** Nodes in blob order, or null when the offsets increase with the node index. */
  order: Uint32Array | null;
  from: number;
  to: number;
  /** With order null: the node of visit `from`. */
  firstNode: number;
  typeSizes: Int32Array;
  chunkSize: number;
  /**
   * The builder's own node columns, when they are shared: the part writes each record there
   * instead of into arrays of its own.
   */
  into?: DirectColumns;
}

/**
 * Whole node columns in SharedArrayBuffers, indexed by node (HeapGraphBuilder.directColumns):
 * the part writes each visited node's type, size and reference count (in the slot that becomes
 * the node's first-edge offset) and nothing else, so it never writes where the reader's thread
 * does. Why: the part's own type, size and count arrays were 12 bytes per record of fresh memory,
 * and copying them into the builder was the reader's longest wait after the blob.
 */
export interface DirectColumns {
  nodeType: Uint32Array;
  selfSize: Uint32Array;
  counts: Uint32Array;
}

export interface BlobPart {
  /** Per visit (index − from): type index, size, child count; empty when `direct`. */
  type: Int32Array;
  size: Int32Array;
  count: Uint32Array;
  /** Every visit's children, one after the other. */
  children: Int32Array;
  sumOfSizes: number;
  /**
   * Nothing in the part that HeapGraphBuilder.setNode would report: every type below the type
   * count, every size ≥ 0, every child below the node count. The reader then copies the part
   * into the builder in bulk (setCheckedNodes) instead of one setNode per record.
   */
  clean: boolean;
  /** The records went to the request's `into` columns (type, size and count here are empty). */
  direct: boolean;
  /** How many visits were decoded (to − from when the part is whole). */
  records: number;
}

/**
 * Decodes a BlobPartRequest on another thread (electron/workers/stretch-reader.ts). `result`
 * rejects when it cannot (the reader then decodes the part itself, which also words any damage
 * in it), or with CancelledError once `token` is cancelled. `progress` gets the part's bytes done.
 */
export type BlobPartReader = (request: BlobPartRequest, token: CancellationToken, progress: (bytes: number) => void) => { result: Promise<BlobPart>; cancel(): void };

/** Collects decoded records per visit (the part's arrays), or into the builder's columns (`into`). */
class PartSink implements RecordSink {
  base = 0;
  private readonly children: GrowableInt32Array;
  readonly type: Int32Array;
  readonly size: Int32Array;
  readonly count: Uint32Array;
  private i = 0;

  constructor(
    visits: number,
    expectedChildren: number,
    private readonly typeCount: number,
    private readonly into: DirectColumns | null = null,
  ) {
    const own = into === null ? visits : 0;
    this.type = new Int32Array(own);
    this.size = new Int32Array(own);
    this.count = new Uint32Array(own);
    this.children = new GrowableInt32Array(expectedChildren);
  }

  room(count: number): Int32Array {
    this.children.reserve(count);
    this.base = this.children.length;
    return this.children.raw;
  }

  /** A record so far that setNode would report (see BlobPart.clean). */
  private dirty = false;

  put(node: number, type: number, size: number, count: number, inRange: boolean): void {
    if (!inRange || type < 0 || type >= this.typeCount || size < 0) this.dirty = true;
    const i = this.i++;
    const into = this.into;
    if (into !== null) {
      // a dirty part is decoded again by the reader, which then overwrites these
      into.nodeType[node] = type;
      into.selfSize[node] = size;
      into.counts[node] = count;
    } else {
      this.type[i] = type;
      this.size[i] = size;
      this.count[i] = count;
    }
    this.children.length += count;
  }

  finish(sumOfSizes: number): BlobPart {
    // a view, not finish()'s trimmed copy: the part is transferred whole and read once
    const children = this.children.raw.subarray(0, this.children.length);
    // clean was checked per record while decoding (every child against the node count there)
    return { type: this.type, size: this.size, count: this.count, children, sumOfSizes, clean: !this.dirty, direct: this.into !== null, records: this.i };
  }
}

/** The second thread's work: decode the request's visits from `source` (the same file). */
export async function decodeBlobPart(source: ByteSource, req: BlobPartRequest, token: CancellationToken = NEVER_CANCELLED, progress: ProgressSink = NO_PROGRESS): Promise<BlobPart> {
  const named: ByteSource = { size: source.size, name: req.name, read: (offset, length, reuse) => source.read(offset, length, reuse) };
  const cur = new ByteCursor(named, req.fileSize, token, progress, req.chunkSize);
  cur.section = 'the node blob';
  const decoder = new BlobRecordDecoder(cur, req.blobStart, req.blobLength, req.typeSizes, token, progress);
  const visits = req.to - req.from;
  const first = visits > 0 ? req.offsets[req.order ? req.order[req.from] : req.firstNode] : 0;
  // about one child per 3 blob bytes, as expectedEdgeCount guesses for the whole blob
  const into = req.into ?? null;
  const sink = new PartSink(visits, Math.min(Math.floor((req.blobLength - first) / 3), 16 * visits) + 16, req.typeSizes.length, into);
  await decoder.run({ offsets: req.offsets, order: req.order, from: req.from, to: req.to, firstNode: req.firstNode }, sink);
  return sink.finish(decoder.sumOfSizes);
}

/**
 * Where to split the visits: the first visit whose record starts at or past `atByte` (blob
 * offset), and its node (order null). `visits` is the number of described nodes.
 */
export function splitVisit(offsets: Uint32Array, order: Uint32Array | null, visits: number, atByte: number): { visit: number; node: number } {
  if (order) {
    let lo = 0;
    let hi = visits;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (offsets[order[mid]] < atByte) lo = mid + 1;
      else hi = mid;
    }
    return { visit: lo, node: lo < visits ? order[lo] : offsets.length };
  }
  let visit = 0;
  for (let node = 0; node < offsets.length; node++) {
    const off = offsets[node];
    if (off === 0) continue;
    if (off >= atByte) return { visit, node };
    visit++;
  }
  return { visit, node: offsets.length };
}

/** The node of visit `visit` (order null: the visit-th node with a non-zero offset). */
export function nodeOfVisit(offsets: Uint32Array, visit: number): number {
  let seen = 0;
  for (let node = 0; node < offsets.length; node++) {
    if (offsets[node] === 0) continue;
    if (seen++ === visit) return node;
  }
  return offsets.length;
}

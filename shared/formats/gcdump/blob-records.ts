import type { CancellationToken } from '../../util/cancellation.js';
import type { ProgressSink } from '../../util/progress.js';
import { ByteCursor } from './byte-cursor.js';

/**
 * The hot loop of the node blob decode (gcdump-format.md §6.2), shared by the reader's thread and
 * the second thread of a split read (blob-split.ts): it decodes a run of records, visited in blob
 * order, and hands each to a RecordSink. node-blob-decoder.ts says how the visit order is chosen.
 *
 * Compressed ints are decoded inline from a Uint8Array window into locals; nothing is allocated
 * per node. Records may not overlap (a real file never has that), which bounds the work by the
 * blob length even for hostile offsets. Every damage is a FormatError from `cur.corrupt` whose
 * text depends only on the record, so both threads word the same damage the same way.
 */

/** Zero bytes after a window's data, so an inline decode of one int never reads past the array. */
const PAD = 16;
/** Longest node header: three 5-byte ints (typeAndSize, size, childCount). */
const MAX_HEADER = 15;

/** Where decoded records go: the builder, the reader's out-of-order store, or a split part. */
export interface RecordSink {
  /** An array with room for `count` children from index `base` on (set `base` before returning). */
  room(count: number): Int32Array;
  base: number;
  /**
   * The record of `node` was decoded; its children are in the last room() at base … base + count.
   * `inRange`: every child is a node index (0 … offsets.length − 1), seen while decoding.
   */
  put(node: number, type: number, size: number, count: number, inRange: boolean): void;
}

/** A run of visits: records of `order[from … to)`, or (order null) of the nodes with a non-zero offset from `firstNode` on. */
export interface VisitRun {
  offsets: Uint32Array;
  order: Uint32Array | null;
  from: number;
  to: number;
  firstNode: number;
  /** Called for each offset-0 node skipped (order null only). */
  onUndefined?: (node: number) => void;
}

export class BlobRecordDecoder {
  /** Blob offset where the last decoded record ends (the next may not start before it). */
  prevEnd = 0;
  /** Σ of the non-negative sizes decoded so far (a double: it can pass 2^32). */
  sumOfSizes = 0;
  private win = new Uint8Array(0);
  private winStart = 0; // blob offset of win[0]
  private winLen = 0; // valid bytes in win
  private winIsTail = false; // window reaches the end of the blob

  constructor(
    private readonly cur: ByteCursor,
    private readonly blobStart: number,
    private readonly blobLength: number,
    private readonly typeSizes: Int32Array,
    private readonly token: CancellationToken,
    private readonly progress: ProgressSink,
  ) {}

  private async load(start: number, min: number): Promise<void> {
    const chunk = this.cur.chunkSize;
    const len = Math.min(this.blobLength - start, Math.max(chunk, min));
    // A window as big as the blob when it is smaller than a chunk (a small file never gets 8 MiB).
    if (this.win.length < len + PAD) this.win = new Uint8Array(Math.max(len, Math.min(chunk, this.blobLength)) + PAD);
    // read into the window itself: one buffer for the whole blob, no copy, no fresh pages per window
    const data = await this.cur.readRange(this.blobStart + start, len, this.win);
    if (!ByteCursor.landedIn(data, this.win)) this.win.set(data);
    this.win.fill(0, len, len + PAD);
    this.winStart = start;
    this.winLen = len;
    this.winIsTail = start + len >= this.blobLength;
  }

  /** Decode the run's records into `sink`; returns the node after the last one visited (order null). */
  async run(visits: VisitRun, sink: RecordSink): Promise<number> {
    let visit = visits.from;
    let next = visits.firstNode;
    while (visit < visits.to) {
      visit = this.decodeInWindow(visits, sink, visit, next);
      next = this.nextNode;
      if (visit >= visits.to) break;
      next = await this.decodeOne(visits, sink, visit, next);
      visit++;
    }
    return next;
  }

  /**
   * One visit, whatever it takes: window loads, records across windows, progress, cancellation,
   * damage. Returns the next node (order null).
   */
  private async decodeOne(visits: VisitRun, sink: RecordSink, visit: number, next: number): Promise<number> {
    const { cur, blobStart, blobLength, typeSizes, token, progress } = this;
    const { offsets, order, onUndefined } = visits;
    const typeCount = typeSizes.length;
    const nodeCount = offsets.length;
    {
      let node: number;
      if (order) node = order[visit];
      else {
        while (offsets[next] === 0) {
          onUndefined?.(next);
          next++;
        }
        node = next++;
      }
      const off = offsets[node];
      if (off < this.prevEnd) throw cur.corrupt(`node ${node}'s record at blob offset ${off} overlaps the previous record (which ends at ${this.prevEnd})`, blobStart + off);
      if ((visit & 0xffff) === 0) {
        token.throwIfCancelled();
        progress('parse', blobStart + off, cur.size);
      }
      if (off < this.winStart || (off + MAX_HEADER > this.winStart + this.winLen && !(this.winIsTail && off < this.winStart + this.winLen))) await this.load(off, MAX_HEADER);

      const w = this.win;
      let p = off - this.winStart;
      // typeAndSize
      let b = w[p++];
      let v = (b & 0x3f) - (b & 0x40);
      if (b & 0x80) {
        b = w[p++]; v = (v << 7) + (b & 0x7f);
        if (b & 0x80) {
          b = w[p++]; v = (v << 7) + (b & 0x7f);
          if (b & 0x80) {
            b = w[p++]; v = (v << 7) + (b & 0x7f);
            if (b & 0x80) { b = w[p++]; v = ((v << 7) + b) | 0; }
          }
        }
      }
      const type = v >> 1;
      let size: number;
      if (v & 1) {
        b = w[p++];
        v = (b & 0x3f) - (b & 0x40);
        if (b & 0x80) {
          b = w[p++]; v = (v << 7) + (b & 0x7f);
          if (b & 0x80) {
            b = w[p++]; v = (v << 7) + (b & 0x7f);
            if (b & 0x80) {
              b = w[p++]; v = (v << 7) + (b & 0x7f);
              if (b & 0x80) { b = w[p++]; v = ((v << 7) + b) | 0; }
            }
          }
        }
        size = v;
      } else {
        size = type >= 0 && type < typeCount ? typeSizes[type] : 0;
      }
      // childCount
      b = w[p++];
      v = (b & 0x3f) - (b & 0x40);
      if (b & 0x80) {
        b = w[p++]; v = (v << 7) + (b & 0x7f);
        if (b & 0x80) {
          b = w[p++]; v = (v << 7) + (b & 0x7f);
          if (b & 0x80) {
            b = w[p++]; v = (v << 7) + (b & 0x7f);
            if (b & 0x80) { b = w[p++]; v = ((v << 7) + b) | 0; }
          }
        }
      }
      const childCount = v;
      if (p > this.winLen) throw cur.corrupt(`node ${node}'s record runs past the end of the blob`, blobStart + off);
      // Each child takes at least one byte: a larger count cannot be real.
      if (childCount < 0 || childCount > blobLength - (this.winStart + p)) {
        throw cur.corrupt(`node ${node} claims ${childCount} children, more than the blob can hold`, blobStart + off);
      }
      const dst = sink.room(childCount);
      const base = sink.base;

      let c = 0;
      let outOfRange = 0;
      while (c < childCount) {
        // Inside `safe` a 5-byte int cannot leave the window; the tail window is checked per child.
        const safe = this.winIsTail ? this.winLen : this.winLen - 5;
        const ww = this.win;
        while (c < childCount && p < safe) {
          b = ww[p++];
          v = (b & 0x3f) - (b & 0x40);
          if (b & 0x80) {
            b = ww[p++]; v = (v << 7) + (b & 0x7f);
            if (b & 0x80) {
              b = ww[p++]; v = (v << 7) + (b & 0x7f);
              if (b & 0x80) {
                b = ww[p++]; v = (v << 7) + (b & 0x7f);
                if (b & 0x80) { b = ww[p++]; v = ((v << 7) + b) | 0; }
              }
            }
          }
          const child = node + v;
          if (child >>> 0 >= nodeCount) outOfRange++;
          dst[base + c++] = child;
        }
        if (c < childCount) {
          if (this.winIsTail) throw cur.corrupt(`node ${node}'s record runs past the end of the blob`, blobStart + off);
          await this.load(this.winStart + p, MAX_HEADER);
          p = 0;
        }
      }
      if (p > this.winLen) throw cur.corrupt(`node ${node}'s record runs past the end of the blob`, blobStart + off);
      this.prevEnd = this.winStart + p;
      if (size >= 0) this.sumOfSizes += size;
      sink.put(node, type, size, childCount, outOfRange === 0);
    }
    return next;
  }

  /** The next node after decodeInWindow (order null). */
  private nextNode = 0;

  /**
   * The common case without an await: records from `visit` on that lie wholly in the current
   * window, decoded exactly as decodeOne does. It stops, with nothing of that record committed,
   * at the first visit it cannot finish here (outside or across the window, a progress and
   * cancellation point, any damage), which decodeOne then takes. Returns that visit.
   */
  private decodeInWindow(visits: VisitRun, sink: RecordSink, visit: number, next: number): number {
    const { blobLength, typeSizes, win: w, winStart, winLen } = this;
    const { offsets, order, onUndefined, to } = visits;
    const typeCount = typeSizes.length;
    const nodeCount = offsets.length;
    // a record may start below headerEnd (its header cannot leave the window) and its children
    // are read while p < safe (a 5-byte int cannot leave it); the tail window goes to decodeOne
    const headerEnd = winLen - MAX_HEADER;
    const safe = winLen - 5;
    let prevEnd = this.prevEnd;
    let sum = this.sumOfSizes;
    for (; visit < to; visit++) {
      if ((visit & 0xffff) === 0) break;
      let node: number;
      if (order) node = order[visit];
      else {
        while (offsets[next] === 0) {
          onUndefined?.(next);
          next++;
        }
        node = next; // advanced only once the record is committed
      }
      const off = offsets[node];
      let p = off - winStart;
      if (off < prevEnd || p < 0 || p > headerEnd) break;
      // typeAndSize
      let b = w[p++];
      let v = (b & 0x3f) - (b & 0x40);
      if (b & 0x80) {
        b = w[p++]; v = (v << 7) + (b & 0x7f);
        if (b & 0x80) {
          b = w[p++]; v = (v << 7) + (b & 0x7f);
          if (b & 0x80) {
            b = w[p++]; v = (v << 7) + (b & 0x7f);
            if (b & 0x80) { b = w[p++]; v = ((v << 7) + b) | 0; }
          }
        }
      }
      const type = v >> 1;
      let size: number;
      if (v & 1) {
        b = w[p++];
        v = (b & 0x3f) - (b & 0x40);
        if (b & 0x80) {
          b = w[p++]; v = (v << 7) + (b & 0x7f);
          if (b & 0x80) {
            b = w[p++]; v = (v << 7) + (b & 0x7f);
            if (b & 0x80) {
              b = w[p++]; v = (v << 7) + (b & 0x7f);
              if (b & 0x80) { b = w[p++]; v = ((v << 7) + b) | 0; }
            }
          }
        }
        size = v;
      } else {
        size = type >= 0 && type < typeCount ? typeSizes[type] : 0;
      }
      // childCount
      b = w[p++];
      v = (b & 0x3f) - (b & 0x40);
      if (b & 0x80) {
        b = w[p++]; v = (v << 7) + (b & 0x7f);
        if (b & 0x80) {
          b = w[p++]; v = (v << 7) + (b & 0x7f);
          if (b & 0x80) {
            b = w[p++]; v = (v << 7) + (b & 0x7f);
            if (b & 0x80) { b = w[p++]; v = ((v << 7) + b) | 0; }
          }
        }
      }
      const childCount = v;
      if (childCount < 0 || childCount > blobLength - (winStart + p) || childCount > safe - p) break;
      const dst = sink.room(childCount);
      const base = sink.base;
      let c = 0;
      let outOfRange = 0;
      while (c < childCount && p < safe) {
        b = w[p++];
        v = (b & 0x3f) - (b & 0x40);
        if (b & 0x80) {
          b = w[p++]; v = (v << 7) + (b & 0x7f);
          if (b & 0x80) {
            b = w[p++]; v = (v << 7) + (b & 0x7f);
            if (b & 0x80) {
              b = w[p++]; v = (v << 7) + (b & 0x7f);
              if (b & 0x80) { b = w[p++]; v = ((v << 7) + b) | 0; }
            }
          }
        }
        const child = node + v;
        if (child >>> 0 >= nodeCount) outOfRange++;
        dst[base + c++] = child;
      }
      if (c < childCount) break;
      prevEnd = winStart + p;
      if (size >= 0) sum += size;
      if (!order) next++;
      sink.put(node, type, size, childCount, outOfRange === 0);
    }
    this.prevEnd = prevEnd;
    this.sumOfSizes = sum;
    this.nextNode = next;
    return visit;
  }
}

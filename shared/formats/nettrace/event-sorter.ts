import type { EventMetadata } from './metadata-record.js';
import type { NetTraceEvent } from './nettrace-event.js';

/**
 * Puts events into timestamp order before they reach the handler.
 *
 * EventPipe writes each capture thread's events in order but interleaves threads arbitrarily;
 * every event before a sequence point is older than it (nettrace-format.md §A6.4). So it is
 * enough to hold the events of one region between sequence points, stable-sort them by
 * timestamp (ties keep file order, as TraceEvent's per-thread merge does) and replay them.
 *
 * Memory: 72 bytes per pending event in typed columns (one capacity check per event, no object
 * per event) plus a reference to each block buffer: payloads are not copied, blocks stay alive
 * until the flush. A region is typically a few thousand events; NetPerf v3 has no sequence
 * points, so there the parser flushes at the end of the stream, and `maxPending` forces a flush
 * so memory stays bounded on huge files (the order is then exact within each batch only).
 */
const INTS = 11; // seq, proc, stack, payloadOffset, payloadLength, activity, related, sorted, stackOffset, stackLength, buffer

export class EventSorter {
  private readonly buffers: Uint8Array[] = [];
  private readonly views: DataView[] = [];
  private readonly metas: EventMetadata[] = [];
  private cap = 0;
  private ts = new Float64Array(0);
  private thread = new Float64Array(0);
  private capture = new Float64Array(0);
  private ints = new Int32Array(0);
  private lastBuffer: Uint8Array | null = null;
  private count = 0;
  private inOrder = true;
  private lastTs = -Infinity;

  constructor(
    private readonly deliver: (e: NetTraceEvent) => void,
    private readonly maxPending = 4_000_000,
  ) {
    this.resize(4096);
  }

  get pending(): number {
    return this.count;
  }

  add(e: NetTraceEvent): void {
    if (e.bytes !== this.lastBuffer) {
      this.buffers.push(e.bytes);
      this.views.push(e.view);
      this.lastBuffer = e.bytes;
    }
    const i = this.count++;
    if (i === this.cap) this.resize(this.cap * 2);
    this.metas.push(e.metadata);
    const t = e.timestamp;
    this.ts[i] = t;
    if (t < this.lastTs) this.inOrder = false;
    this.lastTs = t;
    this.thread[i] = e.threadId;
    this.capture[i] = e.captureThreadId;
    const a = this.ints;
    const k = i * INTS;
    a[k] = e.sequenceNumber | 0;
    a[k + 1] = e.processorNumber;
    a[k + 2] = e.stackId | 0;
    a[k + 3] = e.payloadOffset;
    a[k + 4] = e.payloadLength;
    a[k + 5] = e.activityIdOffset;
    a[k + 6] = e.relatedActivityIdOffset;
    a[k + 7] = e.isSorted ? 1 : 0;
    a[k + 8] = e.inlineStackOffset;
    a[k + 9] = e.inlineStackLength;
    a[k + 10] = this.buffers.length - 1;
    if (i + 1 >= this.maxPending) this.flush(e);
  }

  /** Deliver every pending event in timestamp order, re-pointing `e` (the parser's flyweight). */
  flush(e: NetTraceEvent): void {
    const n = this.count;
    if (n === 0) return;
    const ts = this.ts;
    let order: Uint32Array | null = null;
    if (!this.inOrder) {
      order = new Uint32Array(n);
      for (let i = 0; i < n; i++) order[i] = i;
      order.sort((x, y) => ts[x] - ts[y] || x - y);
    }
    const a = this.ints;
    for (let j = 0; j < n; j++) {
      const i = order ? order[j] : j;
      const k = i * INTS;
      e.metadata = this.metas[i];
      e.bytes = this.buffers[a[k + 10]];
      e.view = this.views[a[k + 10]];
      e.timestamp = ts[i];
      e.threadId = this.thread[i];
      e.captureThreadId = this.capture[i];
      e.sequenceNumber = a[k] >>> 0;
      e.processorNumber = a[k + 1];
      e.stackId = a[k + 2] >>> 0;
      e.payloadOffset = a[k + 3];
      e.payloadLength = a[k + 4];
      e.activityIdOffset = a[k + 5];
      e.relatedActivityIdOffset = a[k + 6];
      e.isSorted = a[k + 7] === 1;
      e.inlineStackOffset = a[k + 8];
      e.inlineStackLength = a[k + 9];
      this.deliver(e);
    }
    this.count = 0;
    this.buffers.length = 0;
    this.views.length = 0;
    this.metas.length = 0;
    this.lastBuffer = null;
    this.inOrder = true;
    this.lastTs = -Infinity;
  }

  private resize(cap: number): void {
    const grow = <T extends Float64Array | Int32Array>(old: T, make: (n: number) => T, per: number): T => {
      const next = make(cap * per);
      next.set(old.subarray(0, this.count * per));
      return next;
    };
    this.ts = grow(this.ts, (n) => new Float64Array(n), 1);
    this.thread = grow(this.thread, (n) => new Float64Array(n), 1);
    this.capture = grow(this.capture, (n) => new Float64Array(n), 1);
    this.ints = grow(this.ints, (n) => new Int32Array(n), INTS);
    this.cap = cap;
  }
}

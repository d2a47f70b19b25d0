import { GrowableFloat64Array, GrowableInt32Array, GrowableUint32Array } from '../../util/growable-array.js';
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
 * Memory: ~60 bytes per pending event in typed columns plus a reference to each block buffer
 * (the payloads are not copied — blocks stay alive until the flush). A region is typically a
 * few thousand events; NetPerf v3 has no sequence points, so there the caller flushes at the
 * end of the stream, and `maxPending` forces a flush so memory stays bounded on huge files (the
 * order is then exact within each flushed batch only).
 */
export class EventSorter {
  private readonly buffers: Uint8Array[] = [];
  private readonly views: DataView[] = [];
  private readonly metas: EventMetadata[] = [];
  private readonly bufIndex = new GrowableUint32Array(4096);
  private readonly ts = new GrowableFloat64Array(4096);
  private readonly thread = new GrowableFloat64Array(4096);
  private readonly capture = new GrowableFloat64Array(4096);
  private readonly ints = new GrowableInt32Array(4096 * 8); // seq, proc, stack, payloadOff, payloadLen, act, rel, flags(sorted | inline stack)
  private readonly inlineStack = new GrowableUint32Array(4096 * 2);
  private lastBuffer: Uint8Array | null = null;
  private count = 0;
  private inOrder = true;
  private lastTs = -Infinity;

  constructor(
    private readonly deliver: (e: NetTraceEvent) => void,
    private readonly maxPending = 4_000_000,
  ) {}

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
    this.metas.push(e.metadata);
    this.bufIndex.push(this.buffers.length - 1);
    this.ts.push(e.timestamp);
    if (e.timestamp < this.lastTs) this.inOrder = false;
    this.lastTs = e.timestamp;
    this.thread.push(e.threadId);
    this.capture.push(e.captureThreadId);
    const ints = this.ints;
    ints.reserve(8);
    const a = ints.raw;
    const k = ints.length;
    a[k] = e.sequenceNumber | 0;
    a[k + 1] = e.processorNumber;
    a[k + 2] = e.stackId | 0;
    a[k + 3] = e.payloadOffset;
    a[k + 4] = e.payloadLength;
    a[k + 5] = e.activityIdOffset;
    a[k + 6] = e.relatedActivityIdOffset;
    a[k + 7] = e.isSorted ? 1 : 0;
    ints.length = k + 8;
    this.inlineStack.push(e.inlineStackOffset);
    this.inlineStack.push(e.inlineStackLength);
    if (i + 1 >= this.maxPending) this.flush(e);
  }

  /** Deliver every pending event in timestamp order, re-pointing `e` (the parser's flyweight). */
  flush(e: NetTraceEvent): void {
    const n = this.count;
    if (n === 0) return;
    let order: Uint32Array | null = null;
    if (!this.inOrder) {
      const ts = this.ts.raw;
      order = new Uint32Array(n);
      for (let i = 0; i < n; i++) order[i] = i;
      order.sort((x, y) => ts[x] - ts[y] || x - y);
    }
    const ts = this.ts.raw;
    const thread = this.thread.raw;
    const capture = this.capture.raw;
    const ints = this.ints.raw;
    const bi = this.bufIndex.raw;
    const st = this.inlineStack.raw;
    for (let j = 0; j < n; j++) {
      const i = order ? order[j] : j;
      e.metadata = this.metas[i];
      e.bytes = this.buffers[bi[i]];
      e.view = this.views[bi[i]];
      e.timestamp = ts[i];
      e.threadId = thread[i];
      e.captureThreadId = capture[i];
      const k = i * 8;
      e.sequenceNumber = ints[k] >>> 0;
      e.processorNumber = ints[k + 1];
      e.stackId = ints[k + 2] >>> 0;
      e.payloadOffset = ints[k + 3];
      e.payloadLength = ints[k + 4];
      e.activityIdOffset = ints[k + 5];
      e.relatedActivityIdOffset = ints[k + 6];
      e.isSorted = ints[k + 7] === 1;
      e.inlineStackOffset = st[2 * i];
      e.inlineStackLength = st[2 * i + 1];
      this.deliver(e);
    }
    this.clear();
  }

  private clear(): void {
    this.count = 0;
    this.buffers.length = 0;
    this.views.length = 0;
    this.metas.length = 0;
    this.lastBuffer = null;
    this.bufIndex.length = 0;
    this.ts.length = 0;
    this.thread.length = 0;
    this.capture.length = 0;
    this.ints.length = 0;
    this.inlineStack.length = 0;
    this.inOrder = true;
    this.lastTs = -Infinity;
  }
}

import { FormatError } from '../../errors.js';
import type { EventMetadata } from './metadata-record.js';
import { parseMetadataRecord } from './metadata-record.js';
import type { NetTraceEvent } from './nettrace-event.js';
import { isZeroGuid } from './payload-cursor.js';

/**
 * Decodes the event blobs of one EventBlock or MetadataBlock (nettrace-format.md §A5, §A6).
 *
 * This is the hot loop of the whole reader (one iteration per event), so the compressed-header
 * state lives in locals, varints are decoded inline, and the only per-event work besides that is
 * re-pointing the one NetTraceEvent flyweight and calling `emit`. No allocation per event.
 */
export interface BlobContext {
  readonly event: NetTraceEvent;
  readonly pointerSize: number;
  metadataFor(id: number): EventMetadata;
  defineMetadata(m: EventMetadata): void;
  emit(e: NetTraceEvent): void;
  /**
   * Dropped-event detection (v4+): `noteSequence` at the first event of a run from one capture
   * thread (checks the gap since that thread's last event), `closeSequence` with the last
   * sequence number of the run.
   */
  noteSequence(captureThreadId: number, sequenceNumber: number): void;
  closeSequence(captureThreadId: number, sequenceNumber: number): void;
  /** Events whose timestamp lies outside their block header's [min, max] (integrity check). */
  outOfRangeTimestamps: number;
}

const HEADER_COMPRESSION = 1;

function corrupt(msg: string, offset: number): FormatError {
  return new FormatError('format/corrupt', msg, { offset });
}

/**
 * A v4+ EventBlock / MetadataBlock: `bytes[start, end)` is the block content, `base` its absolute
 * stream offset minus `start` (so `base + i` is the stream offset of `bytes[i]`).
 */
export function decodeBlockV4(bytes: Uint8Array, view: DataView, start: number, end: number, base: number, isMetadata: boolean, ctx: BlobContext): void {
  if (end - start < 20) throw corrupt('block shorter than its 20-byte header', base + start);
  const headerSize = view.getUint16(start, true);
  const flags = view.getUint16(start + 2, true);
  if (headerSize < 20 || headerSize > end - start) throw corrupt(`block header size ${headerSize}`, base + start);
  let p = start + headerSize;
  if ((flags & HEADER_COMPRESSION) === 0) {
    decodeUncompressed(bytes, view, p, end, base, isMetadata, ctx);
    return;
  }
  const ev = ctx.event;
  ev.bytes = bytes;
  ev.view = view;
  ev.inlineStackLength = 0;
  const minTs = view.getInt32(start + 8, true) * 4294967296 + view.getUint32(start + 4, true);
  const maxTs = view.getInt32(start + 16, true) * 4294967296 + view.getUint32(start + 12, true);
  let outOfRange = 0;
  // Header state, reset at every block (§A6.1).
  let metadataId = 0;
  let seq = 0;
  let capture = 0;
  let proc = 0;
  let thread = 0;
  let stack = 0;
  let ts = 0;
  let activity = -1;
  let related = -1;
  let payloadSize = 0;
  let run = false; // an event run from `capture` is open (for closeSequence)
  let b = 0;
  let mul = 0;
  let v = 0;
  let lo = 0;
  let hi = 0;
  let shift = 0;
  while (p < end) {
    const blobStart = p;
    const f = bytes[p++];
    // The reads below overrun `end` only on corrupt data; one check after the header catches it
    // because a varint stops at the first byte without bit 7 and `bytes` beyond `end` is still
    // readable (it is at worst the block's end tag or the next chunk's bytes), and a read past
    // the array gives undefined, which ends the varint too.
    if (f & 0x01) {
      v = 0; mul = 1;
      do { b = bytes[p++]; v += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80 && mul < 2 ** 35);
      metadataId = v >>> 0;
    }
    if (f & 0x02) {
      if (run) ctx.closeSequence(capture, seq);
      v = 0; mul = 1;
      do { b = bytes[p++]; v += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80 && mul < 2 ** 35);
      seq = (seq + v + 1) >>> 0;
      v = 0; mul = 1;
      do { b = bytes[p++]; v += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80 && mul < 2 ** 70);
      capture = v;
      v = 0; mul = 1;
      do { b = bytes[p++]; v += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80 && mul < 2 ** 35);
      proc = v | 0;
    } else if (metadataId !== 0) {
      seq = (seq + 1) >>> 0;
    }
    if (f & 0x04) {
      v = 0; mul = 1;
      do { b = bytes[p++]; v += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80 && mul < 2 ** 70);
      thread = v;
    }
    if (f & 0x08) {
      v = 0; mul = 1;
      do { b = bytes[p++]; v += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80 && mul < 2 ** 35);
      stack = v >>> 0;
    }
    // Timestamp delta: a u64 added modulo 2^64, so a "negative" delta (an event older than the
    // previous one, from another thread) arrives as a value ≥ 2^63. Decoded as two exact 32-bit
    // halves because a double cannot hold such values to the tick.
    lo = 0; hi = 0; shift = 0;
    do {
      b = bytes[p++];
      const g = b & 0x7f;
      if (shift < 32) {
        lo |= g << shift;
        if (shift > 25) hi |= g >>> (32 - shift);
      } else hi |= g << (shift - 32);
      shift += 7;
    } while (b & 0x80 && shift < 70);
    if (hi & 0x80000000) {
      const nlo = (~lo + 1) >>> 0;
      ts -= ((~hi + (nlo === 0 ? 1 : 0)) >>> 0) * 4294967296 + nlo;
    } else ts += (hi >>> 0) * 4294967296 + (lo >>> 0);
    if (f & 0x10) {
      activity = isZeroGuid(bytes, p) ? -1 : p;
      p += 16;
    }
    if (f & 0x20) {
      related = isZeroGuid(bytes, p) ? -1 : p;
      p += 16;
    }
    if (f & 0x80) {
      v = 0; mul = 1;
      do { b = bytes[p++]; v += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80 && mul < 2 ** 35);
      payloadSize = v >>> 0;
    }
    if (p > end || payloadSize > end - p) {
      throw corrupt(`event blob overruns its block (payload ${payloadSize} bytes)`, base + blobStart);
    }
    if (isMetadata) {
      ctx.defineMetadata(parseMetadataRecord(bytes, p, p + payloadSize, base));
    } else {
      ev.metadata = ctx.metadataFor(metadataId);
      ev.sequenceNumber = seq;
      ev.captureThreadId = capture;
      ev.processorNumber = proc;
      ev.threadId = thread;
      ev.stackId = stack;
      ev.timestamp = ts;
      if (ts < minTs || ts > maxTs) outOfRange++;
      ev.activityIdOffset = activity;
      ev.relatedActivityIdOffset = related;
      ev.isSorted = (f & 0x40) !== 0;
      ev.payloadOffset = p;
      ev.payloadLength = payloadSize;
      if (f & 0x02 || !run) {
        ctx.noteSequence(capture, seq);
        run = true;
      }
      ctx.emit(ev);
    }
    p += payloadSize;
  }
  if (run) ctx.closeSequence(capture, seq);
  if (!isMetadata) ctx.outOfRangeTimestamps += outOfRange;
}

/**
 * Uncompressed v4 blobs (§A6.2): an 80-byte header (eventSize … payloadSize), then the payload;
 * the next blob starts at start + 4 + eventSize. No known producer writes these (unverified).
 */
function decodeUncompressed(bytes: Uint8Array, view: DataView, p: number, end: number, base: number, isMetadata: boolean, ctx: BlobContext): void {
  const ev = ctx.event;
  ev.bytes = bytes;
  ev.view = view;
  ev.inlineStackLength = 0;
  while (p < end) {
    if (end - p < 80) throw corrupt('uncompressed event header overruns its block', base + p);
    const eventSize = view.getInt32(p, true);
    const payloadSize = view.getInt32(p + 76, true);
    if (eventSize < 76 || eventSize > end - p - 4 || payloadSize < 0 || payloadSize > eventSize - 76) {
      throw corrupt(`uncompressed event of ${eventSize} bytes with payload ${payloadSize}`, base + p);
    }
    const payload = p + 80;
    const idAndSorted = view.getUint32(p + 4, true);
    if (isMetadata) {
      ctx.defineMetadata(parseMetadataRecord(bytes, payload, payload + payloadSize, base));
    } else {
      ev.metadata = ctx.metadataFor(idAndSorted & 0x7fffffff);
      ev.sequenceNumber = view.getUint32(p + 8, true);
      ev.threadId = readU64(view, p + 12);
      ev.captureThreadId = readU64(view, p + 20);
      ev.processorNumber = view.getInt32(p + 28, true);
      ev.stackId = view.getUint32(p + 32, true);
      ev.timestamp = readU64(view, p + 36);
      ev.activityIdOffset = isZeroGuid(bytes, p + 44) ? -1 : p + 44;
      ev.relatedActivityIdOffset = isZeroGuid(bytes, p + 60) ? -1 : p + 60;
      // TraceEvent reads the high bit as "not sorted"; the v5 document says "sorted" (unverified).
      ev.isSorted = (idAndSorted & 0x80000000) === 0;
      ev.payloadOffset = payload;
      ev.payloadLength = payloadSize;
      ctx.noteSequence(ev.captureThreadId, ev.sequenceNumber);
      ctx.closeSequence(ev.captureThreadId, ev.sequenceNumber);
      ctx.emit(ev);
    }
    p += 4 + eventSize;
  }
}

/** A NetPerf v3 EventBlock (§A6.3): no block header, metadata inline (metadataId 0), stacks inline. */
export function decodeBlockV3(bytes: Uint8Array, view: DataView, p: number, end: number, base: number, ctx: BlobContext): void {
  const ev = ctx.event;
  ev.bytes = bytes;
  ev.view = view;
  ev.stackId = 0;
  ev.sequenceNumber = 0;
  ev.processorNumber = -1;
  ev.isSorted = false;
  while (p < end) {
    if (end - p < 56) throw corrupt('NetPerf event header overruns its block', base + p);
    const eventSize = view.getInt32(p, true);
    const payloadSize = view.getInt32(p + 52, true);
    if (eventSize < 56 || eventSize > end - p - 4 || payloadSize < 0 || payloadSize > eventSize - 56) {
      throw corrupt(`NetPerf event of ${eventSize} bytes with payload ${payloadSize}`, base + p);
    }
    const payload = p + 56;
    const metadataId = view.getInt32(p + 4, true);
    if (metadataId === 0) {
      ctx.defineMetadata(parseMetadataRecord(bytes, payload, payload + payloadSize, base));
    } else {
      const stackAt = payload + payloadSize;
      const stackSize = view.getInt32(stackAt, true);
      if (stackSize < 0 || stackAt + 4 + stackSize > p + 4 + eventSize) throw corrupt(`NetPerf stack of ${stackSize} bytes`, base + stackAt);
      ev.metadata = ctx.metadataFor(metadataId);
      ev.threadId = view.getUint32(p + 8, true);
      ev.captureThreadId = ev.threadId;
      ev.timestamp = readU64(view, p + 12);
      ev.activityIdOffset = isZeroGuid(bytes, p + 20) ? -1 : p + 20;
      ev.relatedActivityIdOffset = isZeroGuid(bytes, p + 36) ? -1 : p + 36;
      ev.payloadOffset = payload;
      ev.payloadLength = payloadSize;
      ev.inlineStackOffset = stackAt + 4;
      ev.inlineStackLength = stackSize;
      ctx.emit(ev);
    }
    p += 4 + eventSize;
  }
}

function readU64(view: DataView, at: number): number {
  return view.getUint32(at + 4, true) * 4294967296 + view.getUint32(at, true);
}

import { FormatError } from '../../errors.js';
import { capName, MAX_NAME_CHARS } from '../name-cap.js';
import type { EventMetadata, FieldInfo } from './metadata-record.js';
import { makeMetadata } from './metadata-record.js';
import type { NetTraceEvent, NetTraceHeader } from './nettrace-event.js';
import { PayloadCursor } from './payload-cursor.js';
import { readI64, readSystemTime } from './trace-object.js';

/**
 * NetTrace v6 blocks (nettrace-format.md §A9, PerfView's NetTraceFormat.md "Current Version 6").
 *
 * No v6 producer existed when this was written, so this follows the document and is tested only
 * against our own writer. Differences from v4 handled here: blocks are `u32 (kind << 24 | size)`
 * headers without FastSerialization framing; thread ids in event headers are indexes into Thread
 * blocks (mapped back to OS thread ids when known); metadata rows are UTF-8 with optional
 * keyword/level/version/opcode items; flag 0x10 is a label-list id. Label lists (activity ids,
 * trace ids) are skipped: their ids are decoded but not resolved.
 */
export interface V6Host {
  readonly event: NetTraceEvent;
  setHeader(h: NetTraceHeader): void;
  metadataFor(id: number): EventMetadata;
  defineMetadata(m: EventMetadata): void;
  emit(e: NetTraceEvent): void;
  noteSequence(captureThreadId: number, seq: number): void;
  closeSequence(captureThreadId: number, seq: number): void;
  sequencePoint(threads: readonly { captureThreadId: number; sequenceNumber: number }[]): void;
  countObject(name: string): void;
  addStacks(firstId: number, count: number, bytes: Uint8Array, view: DataView, offsets: Uint32Array): void;
}

const KIND_NAMES = ['EndOfStream', 'Trace', 'Event', 'Metadata', 'SequencePoint', 'Stack', 'Thread', 'RemoveThread', 'LabelList'];

export class V6Decoder {
  /** Thread index → OS thread id (when the Thread block gave one). */
  private readonly osThread = new Map<number, number>();

  constructor(private readonly host: V6Host) {}

  block(kind: number, bytes: Uint8Array, view: DataView, start: number, end: number, base: number): void {
    this.host.countObject(KIND_NAMES[kind] ?? `Kind${kind}`);
    const c = new PayloadCursor(bytes, start, end, base);
    switch (kind) {
      case 1:
        return this.trace(c, view);
      case 2:
        return this.events(c, view);
      case 3:
        return this.metadata(c);
      case 4:
        return this.sequencePoint(c);
      case 5:
        return this.stacks(c, view);
      case 6:
        return this.threads(c);
      case 7:
        // (index, final sequence number): a final number past the last event seen means drops.
        while (c.remaining > 0) {
          const t = this.thread(c.varUint64());
          this.host.noteSequence(t, (c.varUint32() + 1) >>> 0);
        }
        return;
      default:
        return; // LabelList and unknown kinds: skipped by size
    }
  }

  private trace(c: PayloadCursor, view: DataView): void {
    c.need(40, 'TraceBlock');
    const at = c.pos;
    const { iso, ticks } = readSystemTime(view, at);
    const pointerSize = view.getInt32(at + 32, true);
    const frequency = readI64(view, at + 24);
    if ((pointerSize !== 4 && pointerSize !== 8) || !(frequency > 0)) {
      throw new FormatError('format/corrupt', `TraceBlock with pointer size ${pointerSize}, frequency ${frequency}`, { offset: c.baseOffset + at });
    }
    c.pos += 36;
    const kv = new Map<string, string>();
    const count = c.i32();
    for (let i = 0; i < count; i++) kv.set(utf8(c), utf8(c));
    const num = (k: string) => (kv.has(k) ? Number(kv.get(k)) || 0 : 0);
    this.host.setHeader({
      formatVersion: 6,
      traceObjectVersion: 6,
      syncTimeUtc: iso,
      syncTimeTicks: ticks,
      syncTimeQpc: readI64(view, at + 16),
      qpcFrequency: frequency,
      pointerSize,
      processId: num('ProcessId'),
      numberOfProcessors: num('HardwareThreadCount'),
      expectedCpuSamplingRate: num('ExpectedCPUSamplingRate'),
    });
  }

  private events(c: PayloadCursor, view: DataView): void {
    c.need(20, 'EventBlock header');
    const headerSize = view.getUint16(c.pos, true);
    const flags = view.getUint16(c.pos + 2, true);
    if (headerSize < 20) throw new FormatError('format/corrupt', `EventBlock header size ${headerSize}`, { offset: c.baseOffset + c.pos });
    c.skip(headerSize);
    const ev = this.host.event;
    ev.bytes = c.bytes;
    ev.view = view;
    ev.inlineStackLength = 0;
    ev.activityIdOffset = -1;
    ev.relatedActivityIdOffset = -1;
    let metadataId = 0;
    let seq = 0;
    let capture = 0;
    let proc = 0;
    let thread = 0;
    let stack = 0;
    let ts = 0;
    let payloadSize = 0;
    while (c.remaining > 0) {
      let sorted: boolean;
      if (flags & 1) {
        const f = c.u8();
        if (f & 0x01) metadataId = c.varUint32();
        if (f & 0x02) {
          seq = (seq + c.varUint32()) >>> 0;
          capture = c.varUint64();
          proc = c.varUint32() | 0;
        }
        if (metadataId !== 0) seq = (seq + 1) >>> 0;
        if (f & 0x04) thread = c.varUint64();
        if (f & 0x08) stack = c.varUint32();
        ts += c.varInt64Delta(); // modulo 2^64, like v4
        if (f & 0x10) c.varUint32(); // label list id (not resolved)
        sorted = (f & 0x40) !== 0;
        if (f & 0x80) payloadSize = c.varUint32();
      } else {
        const size = c.u32();
        const bodyEnd = c.pos + size;
        const idAndSorted = c.u32();
        metadataId = idAndSorted & 0x7fffffff;
        sorted = (idAndSorted & 0x80000000) !== 0;
        seq = c.u32();
        thread = c.u64();
        capture = c.u64();
        proc = c.i32();
        stack = c.u32();
        ts = c.u64();
        c.u32(); // label list id
        payloadSize = c.u32();
        if (bodyEnd < c.pos + payloadSize) throw new FormatError('format/corrupt', 'v6 event size smaller than its payload', { offset: c.baseOffset + c.pos });
      }
      c.need(payloadSize, 'event payload');
      ev.metadata = this.host.metadataFor(metadataId);
      ev.sequenceNumber = seq;
      ev.captureThreadId = this.thread(capture);
      ev.threadId = this.thread(thread);
      ev.processorNumber = proc;
      ev.stackId = stack;
      ev.timestamp = ts;
      ev.isSorted = sorted;
      ev.payloadOffset = c.pos;
      ev.payloadLength = payloadSize;
      this.host.noteSequence(ev.captureThreadId, seq);
      this.host.closeSequence(ev.captureThreadId, seq);
      this.host.emit(ev);
      c.pos += payloadSize;
    }
  }

  private metadata(c: PayloadCursor): void {
    const headerSize = c.u16();
    c.skip(headerSize);
    while (c.remaining > 0) {
      const rowSize = c.u16();
      c.need(rowSize, 'metadata row');
      const row = new PayloadCursor(c.bytes, c.pos, c.pos + rowSize, c.baseOffset);
      c.pos += rowSize;
      const metadataId = row.varUint32();
      const provider = utf8(row);
      const eventId = row.varUint32();
      const rawName = utf8(row);
      const fields = readFields(row, 0);
      let keywords = 0n;
      let level = 0;
      let version = 0;
      let opcode = -1;
      if (row.remaining >= 2) {
        const size = row.u16();
        row.need(size, 'optional metadata');
        const opt = new PayloadCursor(row.bytes, row.pos, row.pos + size, row.baseOffset);
        while (opt.remaining > 0) {
          const kind = opt.u8();
          if (kind === 1) opcode = opt.u8();
          else if (kind === 3) {
            const lo = opt.u32();
            keywords = (BigInt(opt.u32()) << 32n) | BigInt(lo);
          } else if (kind === 4 || kind === 5) utf8(opt);
          else if (kind === 6) {
            utf8(opt);
            utf8(opt);
          } else if (kind === 7) opt.skip(16);
          else if (kind === 8) level = opt.u8();
          else if (kind === 9) version = opt.u8();
          else break; // unknown kind: its size is unknown, stop reading optional items
        }
      }
      this.host.defineMetadata(makeMetadata({ metadataId, provider, eventId, rawName, keywords, version, level, opcode, fields }));
    }
  }

  private sequencePoint(c: PayloadCursor): void {
    c.u64(); // timestamp
    const flags = c.u32();
    const count = c.u32();
    const threads: { captureThreadId: number; sequenceNumber: number }[] = [];
    for (let i = 0; i < count; i++) threads.push({ captureThreadId: this.thread(c.varUint64()), sequenceNumber: c.varUint32() });
    this.host.sequencePoint(threads);
    if (flags & 1) this.osThread.clear();
  }

  private stacks(c: PayloadCursor, view: DataView): void {
    const firstId = c.u32();
    const count = c.u32();
    if (count > c.remaining / 4) throw new FormatError('format/corrupt', `StackBlock with ${count} stacks`, { offset: c.baseOffset + c.pos });
    const offsets = new Uint32Array(count * 2);
    for (let i = 0; i < count; i++) {
      const size = c.u32();
      c.need(size, 'stack');
      offsets[2 * i] = c.pos;
      offsets[2 * i + 1] = c.pos + size;
      c.pos += size;
    }
    this.host.addStacks(firstId, count, c.bytes, view, offsets);
  }

  private threads(c: PayloadCursor): void {
    while (c.remaining > 0) {
      const rowSize = c.u16();
      c.need(rowSize, 'thread row');
      const row = new PayloadCursor(c.bytes, c.pos, c.pos + rowSize, c.baseOffset);
      c.pos += rowSize;
      const index = row.varUint64();
      while (row.remaining > 0) {
        const kind = row.u8();
        if (kind === 1) utf8(row);
        else if (kind === 2) row.varUint64();
        else if (kind === 3) this.osThread.set(index, row.varUint64());
        else if (kind === 4) {
          utf8(row);
          utf8(row);
        } else break;
      }
    }
  }

  private thread(index: number): number {
    return this.osThread.get(index) ?? index;
  }
}

function readFields(c: PayloadCursor, depth: number): FieldInfo[] {
  if (depth > 32) throw new FormatError('format/corrupt', 'v6 field list nested too deeply', { offset: c.baseOffset + c.pos });
  const count = c.u16();
  const out: FieldInfo[] = [];
  for (let i = 0; i < count; i++) {
    const size = c.u16();
    c.need(size, 'field description');
    const f = new PayloadCursor(c.bytes, c.pos, c.pos + size, c.baseOffset);
    c.pos += size;
    const name = utf8(f);
    out.push({ name, ...readType(f, depth) });
  }
  return out;
}

function readType(c: PayloadCursor, depth: number): Omit<FieldInfo, 'name'> {
  const typeCode = c.u8();
  if (typeCode === 19 || typeCode === 22 || typeCode === 24 || typeCode === 25) {
    const element = readType(c, depth + 1);
    if (typeCode === 22) c.u16();
    return element.fields ? { typeCode, elementTypeCode: element.typeCode, fields: element.fields } : { typeCode, elementTypeCode: element.typeCode };
  }
  if (typeCode === 1) return { typeCode, fields: readFields(c, depth + 1) };
  return { typeCode };
}

/** v6 string: varuint32 byte length + UTF-8. */
export function utf8(c: PayloadCursor): string {
  const n = c.varUint32();
  c.need(n, 'string');
  // Names are capped (name-cap.ts): at most 4 bytes per code point, so the first 4 × cap bytes
  // hold at least the kept part; the rest is not decoded.
  const s = decodeUtf8(c.bytes, c.pos, c.pos + Math.min(n, 4 * MAX_NAME_CHARS));
  c.pos += n;
  return capName(s);
}

/** Minimal UTF-8 decoder (shared/ has no TextDecoder); malformed sequences become U+FFFD. */
export function decodeUtf8(b: Uint8Array, start: number, end: number): string {
  const cps: number[] = [];
  let s = '';
  for (let i = start; i < end; ) {
    const x = b[i++];
    let cp = 0xfffd;
    if (x < 0x80) cp = x;
    else if (x >= 0xc0 && x < 0xe0 && i < end) cp = ((x & 0x1f) << 6) | (b[i++] & 0x3f);
    else if (x >= 0xe0 && x < 0xf0 && i + 1 < end) {
      cp = ((x & 0x0f) << 12) | ((b[i] & 0x3f) << 6) | (b[i + 1] & 0x3f);
      i += 2;
    } else if (x >= 0xf0 && x < 0xf8 && i + 2 < end) {
      cp = ((x & 0x07) << 18) | ((b[i] & 0x3f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f);
      i += 3;
    }
    cps.push(cp > 0x10ffff ? 0xfffd : cp);
    if (cps.length >= 4096) {
      s += String.fromCodePoint(...cps);
      cps.length = 0;
    }
  }
  return s + String.fromCodePoint(...cps);
}

import { FormatError } from '../../errors.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { NEVER_CANCELLED } from '../../util/cancellation.js';
import type { BlobContext } from './event-blob-decoder.js';
import { decodeBlockV3, decodeBlockV4 } from './event-blob-decoder.js';
import { EventSorter } from './event-sorter.js';
import type { EventMetadata } from './metadata-record.js';
import { MetadataTable } from './metadata-record.js';
import type { NetTraceHeader, NetTraceSummary } from './nettrace-event.js';
import { emptySummary, NetTraceEvent } from './nettrace-event.js';
import { decodeSequencePointBlock, decodeStackBlock, SequenceTracker, StackCache, type SequencePointThread } from './stack-and-sequence-blocks.js';
import { parseTraceObject } from './trace-object.js';
import { V6Decoder } from './v6-decoder.js';

export interface NetTraceHandlers {
  onHeader?(header: NetTraceHeader): void;
  onMetadata?(metadata: EventMetadata): void;
  onEvent?(event: NetTraceEvent): void;
  /**
   * After each EventBlock (all its events delivered) and each sequence point, with the block's
   * size in bytes: live readers use where the runtime ended a block (see live-event-order.ts).
   */
  onBlockEnd?(kind: 'events' | 'sequencePoint', bytes: number): void;
}

export interface NetTraceParserOptions {
  /** Deliver events in timestamp order (see EventSorter). Default: file order. */
  sort?: boolean;
  allowTruncated?: boolean;
  token?: CancellationToken;
  /** Largest block accepted; the runtime writes blocks of ~100 KB. Default 64 MiB. */
  maxBlockSize?: number;
  /** Source name for messages. */
  name?: string;
  /**
   * Total bytes of the stream when known (a file). A block claiming more than is left then gets a
   * buffer only as big as what is left: it can never complete, and a 40-byte file claiming a
   * 64 MiB block must not allocate 64 MiB before it ends as format/truncated.
   */
  streamBytes?: number;
}

/** Framing steps; each needs an exact number of bytes (`needed`). */
const enum S { Magic, AfterMagic, FsName, FsRest, ObjTag, ObjHeader, ObjName, TraceBody, BlockSize, BlockBody, V6Version, V6BlockHeader, V6BlockBody, Done }

const FS_SIGNATURE = '!FastSerialization.1';

/**
 * Push parser for EventPipe streams: NetPerf v3, NetTrace v4 (with "v5" metadata tags) and v6.
 *
 * Feed it bytes as they arrive (`push`, any chunk sizes, from a file or a live diagnostics
 * socket) and call `end()` when the source is exhausted. Framing (nettrace-format.md §A3) is a
 * state machine whose every step needs an exact number of bytes, so a step that straddles two
 * chunks is assembled in a side buffer of exactly that size while everything else is decoded
 * straight out of the caller's chunk (no copy). A whole block is decoded synchronously once its
 * last byte has arrived; events reach `onEvent` through one reused NetTraceEvent.
 *
 * Chunks must not be modified after `push` (events and, with `sort`, pending events point into
 * them). A stream that stops before its end marker makes `end()` throw `format/truncated`, or,
 * with `allowTruncated`, return a summary flagged `truncated` after delivering every complete
 * event. Sizes read from the stream are bounded (`maxBlockSize`) so corrupt input fails with a
 * coded error instead of waiting forever for bytes that never come.
 */
export class NetTraceParser implements BlobContext {
  readonly event = new NetTraceEvent();
  pointerSize = 8;
  outOfRangeTimestamps = 0;
  header: NetTraceHeader | null = null;

  private state = S.Magic;
  private needed = 8;
  private carry: Uint8Array | null = null;
  private carryLen = 0;
  /** Absolute stream offset of the current step's first byte. */
  private offset = 0;
  private container = 0;
  private objectTag = 0;
  private objectName = '';
  private objectVersion = 0;
  private padding = 0;
  private blockSize = 0;
  private failure: unknown = null;
  private readonly metadata = new MetadataTable();
  private readonly sequences = new SequenceTracker();
  private readonly stacks = new StackCache();
  private readonly sorter: EventSorter | null;
  private readonly token: CancellationToken;
  private readonly maxBlockSize: number;
  private readonly name: string;
  private readonly v6 = new V6Decoder(this);
  private readonly summary: NetTraceSummary = emptySummary();

  constructor(
    private readonly handlers: NetTraceHandlers,
    private readonly opts: NetTraceParserOptions = {},
  ) {
    this.token = opts.token ?? NEVER_CANCELLED;
    this.maxBlockSize = opts.maxBlockSize ?? 64 * 1024 * 1024;
    this.name = opts.name ?? 'stream';
    this.sorter = opts.sort ? new EventSorter((e) => this.deliver(e)) : null;
  }

  /** Bytes consumed so far (complete steps only). */
  get bytesRead(): number {
    return this.offset;
  }

  get done(): boolean {
    return this.state === S.Done;
  }

  push(chunk: Uint8Array): void {
    if (this.failure) throw this.failure;
    try {
      this.consume(chunk);
    } catch (e) {
      this.failure = e;
      throw e;
    }
  }

  /** The source has no more bytes: flush pending events and return what was read. */
  end(): NetTraceSummary {
    if (this.failure) throw this.failure;
    const s = this.summary;
    s.header = this.header;
    s.bytesRead = this.offset;
    s.outOfRangeTimestamps = this.outOfRangeTimestamps;
    s.droppedEvents = this.sequences.dropped;
    if (this.state !== S.Done) {
      const where = this.describeState();
      if (!this.opts.allowTruncated) {
        this.failure = new FormatError('format/truncated', `${this.name} ends at byte ${this.offset + this.carryLen} inside ${where} (no end-of-stream marker)`, {
          offset: this.offset + this.carryLen,
        });
        throw this.failure;
      }
      s.truncated = true;
      s.truncatedAt = where;
    }
    this.sorter?.flush(this.event);
    this.state = S.Done;
    return { ...s, objectCounts: { ...s.objectCounts } };
  }

  /** Return addresses of stack `id` (v4: from the StackBlocks since the last sequence point), or null. */
  stackFor(id: number): Uint8Array | null {
    return this.stacks.find(id);
  }

  // ---- BlobContext (called by the block decoders) ----

  metadataFor(id: number): EventMetadata {
    const m = this.metadata.get(id);
    if (m) return m;
    this.summary.unknownMetadataEvents++;
    return this.metadata.placeholder(id);
  }

  defineMetadata(m: EventMetadata): void {
    this.metadata.define(m);
    this.summary.metadataCount++;
    this.handlers.onMetadata?.(m);
  }

  emit(e: NetTraceEvent): void {
    if (this.sorter) this.sorter.add(e);
    else this.deliver(e);
  }

  noteSequence(captureThreadId: number, seq: number): void {
    this.sequences.note(captureThreadId, seq);
  }

  closeSequence(captureThreadId: number, seq: number): void {
    this.sequences.close(captureThreadId, seq);
  }

  /** v6 decoder hooks. */
  setHeader(h: NetTraceHeader): void {
    this.header = h;
    this.pointerSize = h.pointerSize;
    this.event.syncTimeQpc = h.syncTimeQpc;
    this.event.qpcFrequency = h.qpcFrequency || 1;
    this.handlers.onHeader?.(h);
  }

  sequencePoint(threads: readonly SequencePointThread[]): void {
    this.sorter?.flush(this.event);
    this.sequences.sequencePoint(threads);
    this.stacks.clear();
  }

  countObject(name: string): void {
    this.summary.objectCounts[name] = (this.summary.objectCounts[name] ?? 0) + 1;
  }

  /** Register stacks firstId… whose return addresses are bytes[offsets[2k], offsets[2k+1]). */
  addStacks(firstId: number, count: number, bytes: Uint8Array, _view: DataView, offsets: Uint32Array): void {
    this.stacks.add(firstId, count, bytes, offsets);
  }

  private deliver(e: NetTraceEvent): void {
    this.summary.eventCount++;
    if ((this.summary.eventCount & 0xffff) === 0) this.token.throwIfCancelled();
    this.handlers.onEvent?.(e);
  }

  // ---- framing ----

  private consume(chunk: Uint8Array): void {
    let p = 0;
    const n = chunk.length;
    if (this.state === S.Done) {
      this.summary.trailingBytes += n;
      return;
    }
    while (p < n) {
      const need = this.needed;
      let buf: Uint8Array;
      let at: number;
      if (this.carryLen > 0 || n - p < need) {
        const isBody = this.state === S.BlockBody || this.state === S.V6BlockBody;
        let carry = this.carry;
        if (!carry || (isBody ? this.carryLen === 0 : carry.length < need)) {
          // A block body gets a fresh buffer of its exact size: events (and the sorter) keep
          // pointing into it. Small header steps share one reusable buffer.
          const left = this.opts.streamBytes === undefined ? need : Math.max(0, Math.min(need, this.opts.streamBytes - this.offset));
          const next = new Uint8Array(isBody ? left : Math.max(need, 64));
          if (carry && this.carryLen) next.set(carry.subarray(0, this.carryLen));
          carry = this.carry = next;
        }
        const take = Math.min(need - this.carryLen, n - p);
        if (this.carryLen + take > carry.length) {
          throw new FormatError('format/corrupt', `${this.name} holds more than the ${this.opts.streamBytes} bytes it was said to have`, { offset: this.offset + this.carryLen });
        }
        carry.set(chunk.subarray(p, p + take), this.carryLen);
        this.carryLen += take;
        p += take;
        if (this.carryLen < need) return;
        buf = carry;
        at = 0;
        this.carryLen = 0;
        if (isBody) this.carry = null;
      } else {
        buf = chunk;
        at = p;
        p += need;
      }
      this.step(buf, at);
      this.offset += need;
      if (this.done) {
        this.summary.trailingBytes += n - p;
        return;
      }
    }
  }

  private step(buf: Uint8Array, at: number): void {
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    switch (this.state) {
      case S.Magic:
        if (ascii(buf, at, 8) === 'Nettrace') return this.go(S.AfterMagic, 4);
        if (view.getInt32(at, true) === 20 && ascii(buf, at + 4, 4) === '!Fas') {
          this.container = 3;
          return this.go(S.FsRest, 16);
        }
        throw new FormatError('format/bad-magic', `${this.name} is not an EventPipe stream (no "Nettrace" or FastSerialization header)`, { offset: 0 });
      case S.AfterMagic: {
        const v = view.getUint32(at, true);
        if (v === 0) return this.go(S.V6Version, 8);
        if (v !== 20) throw new FormatError('format/bad-magic', `unexpected FastSerialization header length ${v}`, { offset: this.offset });
        this.container = 4;
        return this.go(S.FsName, 20);
      }
      case S.FsName:
      case S.FsRest: {
        const text = ascii(buf, at, this.needed);
        if (!FS_SIGNATURE.endsWith(text)) throw new FormatError('format/bad-magic', `bad FastSerialization signature "${text}"`, { offset: this.offset });
        return this.go(S.ObjTag, 1);
      }
      case S.ObjTag:
        return this.objectTagStep(buf[at]);
      case S.ObjHeader:
        return this.objectHeaderStep(buf, view, at);
      case S.ObjName:
        return this.objectNameStep(buf, at);
      case S.TraceBody: {
        if (buf[at + 48] !== 6) throw new FormatError('format/corrupt', 'Trace object does not end with an EndObject tag', { offset: this.offset + 48 });
        this.setHeader(parseTraceObject(view, at, this.container, this.objectVersion));
        this.countObject('Trace');
        return this.go(S.ObjTag, 1);
      }
      case S.BlockSize: {
        const size = view.getInt32(at, true);
        if (size < 0 || size > this.maxBlockSize) {
          throw new FormatError('format/corrupt', `${this.objectName} of ${size} bytes (limit ${this.maxBlockSize})`, { offset: this.offset });
        }
        this.blockSize = size;
        // Block content starts at a multiple of 4 of the absolute stream offset (v3 and v4 alike).
        this.padding = (4 - ((this.offset + 4) % 4)) % 4;
        return this.go(S.BlockBody, this.padding + size + 1);
      }
      case S.BlockBody:
        return this.blockStep(buf, view, at);
      case S.V6Version: {
        const major = view.getUint32(at, true);
        if (major !== 6) throw new FormatError('format/unsupported-version', `NetTrace major version ${major} is not supported (only 3, 4/5 and 6)`, { offset: this.offset });
        this.container = 6;
        return this.go(S.V6BlockHeader, 4);
      }
      case S.V6BlockHeader: {
        const x = view.getUint32(at, true);
        const size = x & 0xffffff;
        this.objectTag = x >>> 24;
        if (this.objectTag === 0) return this.finishStream();
        return size === 0 ? this.v6Block(buf, view, at, at + 4, 0) : this.go(S.V6BlockBody, size);
      }
      case S.V6BlockBody:
        return this.v6Block(buf, view, at, at, this.needed);
      case S.Done:
        return;
    }
  }

  private objectTagStep(tag: number): void {
    if (tag === 1) return this.finishStream();
    const expected = this.container === 3 ? 4 : 5;
    if (tag !== expected) throw new FormatError('format/corrupt', `expected an object tag ${expected}, found 0x${tag.toString(16)}`, { offset: this.offset });
    this.objectTag = tag;
    this.go(S.ObjHeader, 14);
  }

  private objectHeaderStep(buf: Uint8Array, view: DataView, at: number): void {
    if (buf[at] !== this.objectTag || buf[at + 1] !== 1) throw new FormatError('format/corrupt', 'malformed object type descriptor', { offset: this.offset });
    this.objectVersion = view.getInt32(at + 2, true);
    const nameLength = view.getInt32(at + 10, true);
    if (nameLength <= 0 || nameLength > 256) throw new FormatError('format/corrupt', `object type name of ${nameLength} bytes`, { offset: this.offset + 10 });
    this.go(S.ObjName, nameLength + 1);
  }

  private objectNameStep(buf: Uint8Array, at: number): void {
    const len = this.needed - 1;
    const name = ascii(buf, at, len);
    if (buf[at + len] !== 6) throw new FormatError('format/corrupt', `type descriptor "${name}" does not end with an EndObject tag`, { offset: this.offset + len });
    const first = this.header === null;
    if (name === 'Trace' || name === 'Microsoft.DotNet.Runtime.EventPipeFile') {
      if (!first) throw new FormatError('format/corrupt', 'a second Trace object', { offset: this.offset });
      if (name !== 'Trace' || this.objectVersion < 3) {
        throw new FormatError('format/unsupported-version', `EventPipe format version ${this.objectVersion} (.NET Core 2.0) is not supported; only NetPerf v3 and NetTrace v4+`, {
          offset: this.offset,
        });
      }
      this.objectName = name;
      return this.go(S.TraceBody, 49);
    }
    if (first) throw new FormatError('format/corrupt', `the stream starts with a "${name}" object instead of Trace`, { offset: this.offset });
    this.objectName = name;
    this.go(S.BlockSize, 4);
  }

  private blockStep(buf: Uint8Array, view: DataView, at: number): void {
    const start = at + this.padding;
    const end = start + this.blockSize;
    if (buf[end] !== 6) throw new FormatError('format/corrupt', `${this.objectName} does not end with an EndObject tag`, { offset: this.offset + this.padding + this.blockSize });
    const base = this.offset - at;
    const name = this.objectName;
    this.countObject(name);
    this.token.throwIfCancelled();
    if (name === 'EventBlock') {
      if (this.container === 3) decodeBlockV3(buf, view, start, end, base, this);
      else decodeBlockV4(buf, view, start, end, base, false, this);
    } else if (name === 'MetadataBlock') {
      decodeBlockV4(buf, view, start, end, base, true, this);
    } else if (name === 'StackBlock') {
      const st = decodeStackBlock(view, start, end, base);
      this.stacks.add(st.firstId, st.count, buf, st.offsets);
    } else if (name === 'SPBlock') {
      this.sequencePoint(decodeSequencePointBlock(view, start, end, base));
    }
    if (name === 'EventBlock' || name === 'SPBlock') this.handlers.onBlockEnd?.(name === 'SPBlock' ? 'sequencePoint' : 'events', this.blockSize);
    // Unknown object types are skipped by size (TraceEvent refuses them; skipping is kinder).
    this.go(S.ObjTag, 1);
  }

  /** `at` is where the current step began (absolute offset `this.offset`). */
  private v6Block(buf: Uint8Array, view: DataView, at: number, start: number, size: number): void {
    this.token.throwIfCancelled();
    this.v6.block(this.objectTag, buf, view, start, start + size, this.offset - at);
    if (this.objectTag === 2 || this.objectTag === 4) this.handlers.onBlockEnd?.(this.objectTag === 4 ? 'sequencePoint' : 'events', size);
    this.go(S.V6BlockHeader, 4);
  }

  private finishStream(): void {
    this.summary.complete = true;
    this.sorter?.flush(this.event);
    this.state = S.Done;
    this.needed = 0;
  }

  private go(state: S, needed: number): void {
    this.state = state;
    this.needed = needed;
  }

  private describeState(): string {
    const st = this.state;
    if (st <= S.FsRest || st === S.V6Version) return 'the file header';
    if (st === S.TraceBody) return 'the Trace object';
    if (st === S.BlockSize || st === S.BlockBody || st === S.V6BlockBody) return `a ${this.objectName || 'block'} (${this.needed} bytes needed)`;
    return 'an object header';
  }
}

function ascii(bytes: Uint8Array, at: number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(bytes[at + i]);
  return s;
}

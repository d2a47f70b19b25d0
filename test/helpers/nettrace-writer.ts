/**
 * A small NetTrace v4 writer for tests and benchmarks (nettrace-format.md §A3–§A8), producing
 * streams the way the runtime does: compressed event headers, one MetadataBlock before the
 * events that need it, optional StackBlocks and SPBlocks, and the 0x01 end marker.
 *
 *   const w = new NetTraceWriter({ pointerSize: 8 });
 *   const id = w.defineEvent('Microsoft-Windows-DotNETRuntime', 1, { version: 2 });
 *   w.event(id, payload, { timestamp: 1000, threadId: 7 });
 *   const bytes = w.finish();
 *
 * Not a product feature: it writes only what the reader tests need (plus `uncompressed` blocks
 * and a minimal v6 mode) and favours clarity over speed, except that payload bytes are copied
 * once into a growable buffer so benchmark traces of hundreds of MB are practical.
 */
export class ByteWriter {
  buf = new Uint8Array(1 << 16);
  len = 0;
  private view = new DataView(this.buf.buffer);

  reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(v: number): this {
    this.reserve(1);
    this.buf[this.len++] = v & 0xff;
    return this;
  }
  u16(v: number): this {
    this.reserve(2);
    this.view.setUint16(this.len, v, true);
    this.len += 2;
    return this;
  }
  i16(v: number): this {
    this.reserve(2);
    this.view.setInt16(this.len, v, true);
    this.len += 2;
    return this;
  }
  u32(v: number): this {
    this.reserve(4);
    this.view.setUint32(this.len, v >>> 0, true);
    this.len += 4;
    return this;
  }
  i32(v: number): this {
    this.reserve(4);
    this.view.setInt32(this.len, v, true);
    this.len += 4;
    return this;
  }
  /** Unsigned 64-bit from a non-negative number (exact below 2^53) or a bigint. */
  u64(v: number | bigint): this {
    if (typeof v === 'number') {
      this.u32(v % 4294967296);
      return this.u32(Math.floor(v / 4294967296));
    }
    this.u32(Number(v & 0xffffffffn));
    return this.u32(Number((v >> 32n) & 0xffffffffn));
  }
  ptr(v: number | bigint, pointerSize: number): this {
    return pointerSize === 8 ? this.u64(v) : this.u32(Number(v));
  }
  varUint(v: number | bigint): this {
    if (typeof v === 'number' && v < 0x80000000) {
      let x = v;
      while (x >= 0x80) {
        this.u8((x & 0x7f) | 0x80);
        x >>>= 7;
      }
      return this.u8(x);
    }
    let b = BigInt(v);
    do {
      let byte = Number(b & 0x7fn);
      b >>= 7n;
      if (b > 0n) byte |= 0x80;
      this.u8(byte);
    } while (b > 0n);
    return this;
  }
  utf16z(s: string): this {
    this.reserve(2 * s.length + 2);
    for (let i = 0; i < s.length; i++) this.u16(s.charCodeAt(i));
    return this.u16(0);
  }
  utf8(s: string): this {
    const bytes = new TextEncoder().encode(s);
    this.varUint(bytes.length);
    return this.bytes(bytes);
  }
  ascii(s: string): this {
    for (let i = 0; i < s.length; i++) this.u8(s.charCodeAt(i));
    return this;
  }
  bytes(b: Uint8Array): this {
    this.reserve(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }
  guid(bytes16: Uint8Array): this {
    return this.bytes(bytes16);
  }
  /** Patch a u32 already written at `at`. */
  patchU32(at: number, v: number): void {
    this.view.setUint32(at, v >>> 0, true);
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

export interface WriterOptions {
  pointerSize?: 4 | 8;
  processId?: number;
  processors?: number;
  qpcFrequency?: number;
  syncTimeQpc?: number;
  /** SYSTEMTIME fields [year, month, dayOfWeek, day, hour, minute, second, ms]. */
  syncTime?: [number, number, number, number, number, number, number, number];
  /** Events per EventBlock before an automatic flush (default 1000). */
  eventsPerBlock?: number;
  /**
   * Payload bytes per EventBlock: an event that would take a block's payloads past this starts a
   * new block (the runtime writes event blocks of at most 100 KiB, EventPipeEventBlock(100 * 1024)).
   * Default: no limit.
   */
  maxBlockBytes?: number;
  /** Write event blocks with uncompressed headers (§A6.2). */
  uncompressed?: boolean;
}

export interface EventDefinition {
  version?: number;
  name?: string;
  keywords?: bigint;
  level?: number;
  /** Adds a v5 OpCode tag. */
  opcode?: number;
  /** V1 field list: [typeCode, name] pairs (no nested objects). */
  fields?: [number, string][];
}

export interface EventOptions {
  timestamp: number;
  threadId?: number;
  captureThreadId?: number;
  processor?: number;
  stackId?: number;
  activityId?: Uint8Array;
  /** Skip this many sequence numbers first (simulates events dropped by the runtime). */
  dropBefore?: number;
  /** Set the header's "sorted" flag (0x40: the runtime marks the first event of each thread's run). */
  sorted?: boolean;
}

interface PendingEvent {
  metadataId: number;
  payload: Uint8Array;
  o: EventOptions;
  seq: number;
  capture: number;
}

export class NetTraceWriter {
  readonly out = new ByteWriter();
  private readonly P: number;
  private nextMetadataId = 1;
  private pendingMetadata: Uint8Array[] = [];
  private pendingEvents: PendingEvent[] = [];
  private readonly seqByThread = new Map<number, number>();
  private readonly eventsPerBlock: number;
  private pendingBytes = 0;

  constructor(private readonly opts: WriterOptions = {}) {
    this.P = opts.pointerSize ?? 8;
    this.eventsPerBlock = opts.eventsPerBlock ?? 1000;
    const w = this.out;
    w.ascii('Nettrace').i32(20).ascii('!FastSerialization.1');
    this.objectHeader('Trace', 4, 4);
    const t = opts.syncTime ?? [2024, 1, 1, 15, 12, 30, 45, 500];
    for (const f of t) w.i16(f);
    w.u64(opts.syncTimeQpc ?? 1_000_000).u64(opts.qpcFrequency ?? 10_000_000);
    w.i32(this.P).i32(opts.processId ?? 4242).i32(opts.processors ?? 8).i32(1_000_000);
    w.u8(6);
  }

  get pointerSize(): number {
    return this.P;
  }

  /** Define an event kind; returns its metadata id. The record is written before the next events. */
  defineEvent(provider: string, eventId: number, d: EventDefinition = {}): number {
    const id = this.nextMetadataId++;
    const m = new ByteWriter();
    m.i32(id).utf16z(provider).i32(eventId).utf16z(d.name ?? '').u64(d.keywords ?? 0n).i32(d.version ?? 0).i32(d.level ?? 4);
    const fields = d.fields ?? [];
    m.i32(fields.length);
    for (const [code, name] of fields) m.i32(code).utf16z(name);
    if (d.opcode !== undefined) m.i32(1).u8(1).u8(d.opcode);
    this.pendingMetadata.push(m.result());
    return id;
  }

  event(metadataId: number, payload: Uint8Array, o: EventOptions): void {
    const capture = o.captureThreadId ?? o.threadId ?? 1;
    const seq = (this.seqByThread.get(capture) ?? 0) + 1 + (o.dropBefore ?? 0);
    this.seqByThread.set(capture, seq);
    const max = this.opts.maxBlockBytes;
    if (max !== undefined && this.pendingEvents.length > 0 && this.pendingBytes + payload.length > max) this.flushEvents();
    this.pendingEvents.push({ metadataId, payload, o, seq, capture });
    this.pendingBytes += payload.length;
    if (this.pendingEvents.length >= this.eventsPerBlock) this.flushEvents();
  }

  /** Write a StackBlock with stacks firstId, firstId+1, … (each a list of return addresses). */
  stacks(firstId: number, stacks: number[][]): void {
    this.flushEvents();
    const b = new ByteWriter();
    b.i32(firstId).i32(stacks.length);
    for (const s of stacks) {
      b.i32(s.length * this.P);
      for (const ip of s) b.ptr(ip, this.P);
    }
    this.block('StackBlock', b.result());
  }

  /** Write pending events, then an SPBlock recording every capture thread's last sequence number. */
  sequencePoint(timestamp: number): void {
    this.flushEvents();
    const b = new ByteWriter();
    b.u64(timestamp).i32(this.seqByThread.size);
    for (const [thread, seq] of this.seqByThread) b.u64(thread).i32(seq);
    this.block('SPBlock', b.result());
  }

  flushEvents(): void {
    this.flushMetadata();
    if (this.pendingEvents.length === 0) return;
    const events = this.pendingEvents;
    this.pendingEvents = [];
    this.pendingBytes = 0;
    const b = new ByteWriter();
    const ts = events.map((e) => e.o.timestamp);
    b.u16(20).u16(this.opts.uncompressed ? 0 : 1).u64(Math.min(...ts)).u64(Math.max(...ts));
    if (this.opts.uncompressed) for (const e of events) this.uncompressedBlob(b, e);
    else {
      const s = { meta: 0, seq: 0, capture: 0, proc: 0, thread: 0, stack: 0, ts: 0, size: 0 };
      for (const e of events) this.compressedBlob(b, e, s);
    }
    this.block('EventBlock', b.result());
  }

  /** The finished stream; `truncateAt` cuts it (no end marker) for truncation tests. */
  finish(opts: { endMarker?: boolean } = {}): Uint8Array {
    this.flushEvents();
    if (opts.endMarker ?? true) this.out.u8(1);
    return this.out.result();
  }

  private flushMetadata(): void {
    if (this.pendingMetadata.length === 0) return;
    const b = new ByteWriter();
    b.u16(20).u16(1).u64(0).u64(0);
    for (const m of this.pendingMetadata) b.u8(0x80).varUint(0).varUint(m.length).bytes(m);
    this.pendingMetadata = [];
    this.block('MetadataBlock', b.result());
  }

  private compressedBlob(b: ByteWriter, e: PendingEvent, s: { meta: number; seq: number; capture: number; proc: number; thread: number; stack: number; ts: number; size: number }): void {
    const o = e.o;
    const thread = o.threadId ?? 1;
    const proc = o.processor ?? 0;
    const stack = o.stackId ?? 0;
    let flags = 0;
    if (e.metadataId !== s.meta) flags |= 0x01;
    if (e.capture !== s.capture || e.seq !== ((s.seq + 1) >>> 0) || proc !== s.proc) flags |= 0x02;
    if (thread !== s.thread) flags |= 0x04;
    if (stack !== s.stack) flags |= 0x08;
    if (o.activityId) flags |= 0x10;
    if (o.sorted) flags |= 0x40;
    if (e.payload.length !== s.size) flags |= 0x80;
    b.u8(flags);
    if (flags & 0x01) b.varUint(e.metadataId);
    if (flags & 0x02) b.varUint((e.seq - s.seq - 1) >>> 0).varUint(e.capture).varUint(proc);
    if (flags & 0x04) b.varUint(thread);
    if (flags & 0x08) b.varUint(stack);
    // deltas are added modulo 2^64: an older event (another thread) gets a wrapped delta
    b.varUint(BigInt.asUintN(64, BigInt(o.timestamp - s.ts)));
    if (o.activityId) b.guid(o.activityId);
    if (flags & 0x80) b.varUint(e.payload.length);
    b.bytes(e.payload);
    Object.assign(s, { meta: e.metadataId, seq: e.seq, capture: e.capture, proc, thread, stack, ts: o.timestamp, size: e.payload.length });
  }

  private uncompressedBlob(b: ByteWriter, e: PendingEvent): void {
    const o = e.o;
    b.i32(76 + e.payload.length).u32(e.metadataId).u32(e.seq).u64(o.threadId ?? 1).u64(e.capture).i32(o.processor ?? 0).i32(o.stackId ?? 0).u64(o.timestamp);
    b.bytes(o.activityId ?? new Uint8Array(16)).bytes(new Uint8Array(16)).i32(e.payload.length).bytes(e.payload);
  }

  private objectHeader(name: string, version: number, minVersion: number): void {
    this.out.u8(5).u8(5).u8(1).i32(version).i32(minVersion).i32(name.length).ascii(name).u8(6);
  }

  private block(name: string, content: Uint8Array): void {
    const w = this.out;
    this.objectHeader(name, 2, 2);
    w.i32(content.length);
    while (w.len % 4 !== 0) w.u8(0);
    w.bytes(content).u8(6);
  }
}

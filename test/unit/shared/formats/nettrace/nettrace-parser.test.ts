import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../../../shared/errors.js';
import type { NetTraceEvent } from '../../../../../shared/formats/nettrace/nettrace-event.js';
import type { NetTraceParserOptions } from '../../../../../shared/formats/nettrace/nettrace-parser.js';
import { NetTraceParser } from '../../../../../shared/formats/nettrace/nettrace-parser.js';
import { readNetTraceEvents } from '../../../../../shared/formats/nettrace/read-nettrace-events.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { CancellationSource } from '../../../../../shared/util/cancellation.js';
import { ByteWriter, NetTraceWriter } from '../../../../helpers/nettrace-writer.js';

interface Seen {
  kind: string;
  ts: number;
  thread: number;
  seq: number;
  payload: number[];
}

function parse(bytes: Uint8Array, opts: NetTraceParserOptions = {}, chunk = bytes.length): { seen: Seen[]; summary: ReturnType<NetTraceParser['end']>; parser: NetTraceParser } {
  const seen: Seen[] = [];
  const parser = new NetTraceParser(
    { onEvent: (e: NetTraceEvent) => seen.push({ kind: e.metadata.kind, ts: e.timestamp, thread: e.threadId, seq: e.sequenceNumber, payload: Array.from(e.payload) }) },
    opts,
  );
  for (let at = 0; at < bytes.length; at += chunk) parser.push(bytes.subarray(at, at + chunk));
  return { seen, summary: parser.end(), parser };
}

function payloadOf(i: number): Uint8Array {
  return Uint8Array.from({ length: i % 37 }, (_, k) => (i * 7 + k) & 0xff);
}

/** 2,500 events of three kinds on three threads, in blocks of 1,000. */
function threeThreadTrace(uncompressed = false): Uint8Array {
  const w = new NetTraceWriter({ uncompressed, eventsPerBlock: 1000 });
  const ids = [w.defineEvent('ProvA', 1, { name: 'Alpha' }), w.defineEvent('ProvA', 2, { name: 'Beta', opcode: 1 }), w.defineEvent('ProvB', 9, { name: 'GammaStart', opcode: 1 })];
  for (let i = 0; i < 2500; i++) w.event(ids[i % 3], payloadOf(i), { timestamp: 5000 + i * 3, threadId: 10 + (i % 3), captureThreadId: 10 + (i % 3) });
  return w.finish();
}

describe('NetTraceParser on streams from our writer', () => {
  it('delivers every event with its metadata, clock, thread, sequence number and payload', () => {
    const { seen, summary } = parse(threeThreadTrace());
    expect(summary.eventCount).toBe(2500);
    expect(summary.metadataCount).toBe(3);
    expect(summary.objectCounts).toEqual({ Trace: 1, MetadataBlock: 1, EventBlock: 3 });
    expect(summary.droppedEvents).toBe(0);
    for (let i = 0; i < 2500; i++) {
      expect(seen[i].kind).toBe(['ProvA/Alpha', 'ProvA/Beta/Start', 'ProvB/Gamma/Start'][i % 3]);
      expect(seen[i].ts).toBe(5000 + i * 3);
      expect(seen[i].thread).toBe(10 + (i % 3));
      expect(seen[i].seq).toBe(Math.floor(i / 3) + 1);
      expect(seen[i].payload).toEqual(Array.from(payloadOf(i)));
    }
  });

  it('gives the same events for uncompressed headers and for any chunking', () => {
    const whole = parse(threeThreadTrace()).seen;
    expect(parse(threeThreadTrace(true)).seen).toEqual(whole);
    expect(parse(threeThreadTrace(), {}, 1).seen).toEqual(whole);
    expect(parse(threeThreadTrace(), {}, 13).seen).toEqual(whole);
  });

  it('reports time in ms from the sync time and keeps the payload a view into the block', () => {
    const w = new NetTraceWriter({ syncTimeQpc: 1_000_000, qpcFrequency: 10_000_000 });
    const id = w.defineEvent('P', 1, { name: 'E' });
    w.event(id, Uint8Array.of(1, 2, 3), { timestamp: 1_025_000 });
    const bytes = w.finish();
    const got: { ms: number; shared: boolean }[] = [];
    const p = new NetTraceParser({ onEvent: (e) => got.push({ ms: e.timeMs, shared: e.payload.buffer === bytes.buffer }) });
    p.push(bytes);
    p.end();
    expect(got).toEqual([{ ms: 2.5, shared: true }]);
  });

  it('sorts by timestamp across blocks when asked (ties keep file order)', () => {
    const w = new NetTraceWriter();
    const id = w.defineEvent('P', 1, { name: 'E' });
    for (const ts of [10, 15, 20]) w.event(id, Uint8Array.of(ts), { timestamp: ts, threadId: 1 });
    w.flushEvents();
    for (const ts of [12, 13, 15]) w.event(id, Uint8Array.of(ts + 100), { timestamp: ts, threadId: 2 });
    w.sequencePoint(30);
    w.event(id, Uint8Array.of(0), { timestamp: 31, threadId: 1 });
    const bytes = w.finish();
    expect(parse(bytes).seen.map((s) => s.ts)).toEqual([10, 15, 20, 12, 13, 15, 31]);
    const sorted = parse(bytes, { sort: true }).seen;
    expect(sorted.map((s) => s.ts)).toEqual([10, 12, 13, 15, 15, 20, 31]);
    expect(sorted.map((s) => s.payload[0])).toEqual([10, 112, 113, 15, 115, 20, 0]);
  });

  it('decodes timestamp deltas that go back in time (added modulo 2^64)', () => {
    const w = new NetTraceWriter();
    const id = w.defineEvent('P', 1, { name: 'E' });
    const times = [5_000_000_000, 4_999_999_990, 5_000_000_005, 17, 2 ** 52 + 3];
    times.forEach((ts, i) => w.event(id, new Uint8Array(0), { timestamp: ts, threadId: 1 + (i % 2) }));
    const { seen, summary } = parse(w.finish());
    expect(seen.map((s) => s.ts)).toEqual(times);
    expect(summary.outOfRangeTimestamps).toBe(0);
  });

  it('resolves stack ids until the next sequence point', () => {
    const w = new NetTraceWriter();
    const id = w.defineEvent('P', 1, { name: 'E' });
    w.stacks(1, [[0x1000, 0x2000], []]);
    w.event(id, new Uint8Array(0), { timestamp: 1, stackId: 1 });
    w.event(id, new Uint8Array(0), { timestamp: 2, stackId: 2 });
    w.sequencePoint(3);
    w.event(id, new Uint8Array(0), { timestamp: 4, stackId: 1 });
    const stacks: (number[] | null)[] = [];
    const p = new NetTraceParser({
      onEvent: (e) => {
        const s = p.stackFor(e.stackId);
        stacks.push(s ? Array.from(new BigUint64Array(s.slice().buffer), Number) : null);
      },
    });
    p.push(w.finish());
    p.end();
    expect(stacks).toEqual([[0x1000, 0x2000], [], null]);
  });

  it('counts events the runtime dropped (sequence gaps)', () => {
    const w = new NetTraceWriter();
    const id = w.defineEvent('P', 1, { name: 'E' });
    w.event(id, new Uint8Array(0), { timestamp: 1, threadId: 1 });
    w.event(id, new Uint8Array(0), { timestamp: 2, threadId: 1, dropBefore: 3 });
    w.event(id, new Uint8Array(0), { timestamp: 3, threadId: 2 });
    w.flushEvents();
    w.event(id, new Uint8Array(0), { timestamp: 4, threadId: 2, dropBefore: 2 });
    w.event(id, new Uint8Array(0), { timestamp: 5, threadId: 1 });
    const { summary, seen } = parse(w.finish());
    expect(seen.map((s) => s.seq)).toEqual([1, 5, 1, 4, 6]);
    expect(summary.droppedEvents).toBe(5);
  });

  it('fails a cut-off stream with format/truncated, or returns what it read with allowTruncated', () => {
    const full = threeThreadTrace();
    const blockEnds: number[] = [];
    // events fully delivered before the cut: the 3 blocks hold 1000, 1000, 500 events
    for (const cut of [0, 5, 30, 100, 2000, Math.floor(full.length / 2), full.length - 1]) {
      const bytes = full.subarray(0, cut);
      expect(() => parse(bytes), `cut at ${cut}`).toThrow(expect.objectContaining({ code: 'format/truncated' }));
      const { summary } = parse(bytes, { allowTruncated: true });
      expect(summary.truncated).toBe(true);
      expect(summary.complete).toBe(false);
      blockEnds.push(summary.eventCount);
    }
    expect(blockEnds).toEqual([0, 0, 0, 0, 0, 1000, 2500]);
  });

  it('counts bytes after the end marker as trailing', () => {
    const full = threeThreadTrace();
    const padded = new Uint8Array(full.length + 5);
    padded.set(full);
    expect(parse(padded).summary.trailingBytes).toBe(5);
  });

  it('rejects what is not an EventPipe stream with coded errors', () => {
    expect(() => parse(new TextEncoder().encode('hello world, not a trace'))).toThrow(expect.objectContaining({ code: 'format/bad-magic' }));
    const v1 = new ByteWriter().i32(20).ascii('!FastSerialization.1').u8(4).u8(4).u8(1).i32(1).i32(0).i32(38).ascii('Microsoft.DotNet.Runtime.EventPipeFile').u8(6).result();
    expect(() => parse(v1)).toThrow(expect.objectContaining({ code: 'format/unsupported-version' }));
    const huge = threeThreadTrace();
    // the first block's size field sits after the Trace object (0x66) and the 13-byte header + name
    const at = 0x66 + 15 + 'MetadataBlock'.length + 1;
    new DataView(huge.buffer).setInt32(at, 0x7fff_0000, true);
    expect(() => parse(huge)).toThrow(expect.objectContaining({ code: 'format/corrupt' }));
  });

  it('checks cancellation between blocks', async () => {
    const src = new MemoryByteSource(threeThreadTrace());
    const cancel = new CancellationSource();
    cancel.cancel('stop');
    await expect(readNetTraceEvents(src, {}, { token: cancel.token })).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('reads a ByteSource chunk by chunk with progress', async () => {
    const bytes = threeThreadTrace();
    const progress: number[] = [];
    let n = 0;
    const s = await readNetTraceEvents(new MemoryByteSource(bytes), { onEvent: () => n++ }, { chunkSize: 4096, progress: (_p, done) => progress.push(done) });
    expect(n).toBe(2500);
    expect(s.complete).toBe(true);
    expect(progress[0]).toBe(0);
    expect(progress[progress.length - 1]).toBe(bytes.length);
    expect(progress.length).toBe(Math.ceil(bytes.length / 4096) + 1);
  });
});

describe('NetTrace v6 (from the format document)', () => {
  function v6Trace(): Uint8Array {
    const w = new ByteWriter().ascii('Nettrace').u32(0).u32(6).u32(0);
    const block = (kind: number, body: Uint8Array) => w.u32((kind << 24) | body.length).bytes(body);
    const trace = new ByteWriter();
    for (const f of [2025, 3, 0, 2, 10, 20, 30, 400]) trace.i16(f);
    trace.u64(500).u64(1000).i32(8).i32(2).utf8('ProcessId').utf8('777').utf8('HardwareThreadCount').utf8('16');
    block(1, trace.result());
    const threads = new ByteWriter();
    const row = new ByteWriter().varUint(1).u8(3).varUint(4321).u8(1).utf8('main').result();
    threads.u16(row.length).bytes(row);
    block(6, threads.result());
    const meta = new ByteWriter().u16(0);
    const opt = new ByteWriter().u8(9).u8(3).u8(8).u8(5).u8(1).u8(2).u8(3).u64(0x42).result();
    const field = new ByteWriter().utf8('count').u8(10).result();
    const r = new ByteWriter().varUint(1).utf8('My-Prov').varUint(7).utf8('WorkStop').u16(1).u16(field.length).bytes(field).u16(opt.length).bytes(opt).result();
    meta.u16(r.length).bytes(r);
    block(3, meta.result());
    const ev = new ByteWriter().u16(20).u16(1).u64(0).u64(0);
    ev.u8(0x01 | 0x02 | 0x04 | 0x80).varUint(1).varUint(0).varUint(1).varUint(3).varUint(1).varUint(1500).varUint(4).u32(99);
    ev.u8(0x00).varUint(10).u32(100);
    block(2, ev.result());
    block(4, new ByteWriter().u64(2000).u32(0).u32(1).varUint(1).varUint(2).result());
    block(0, new Uint8Array(0));
    return w.result();
  }

  it('reads the trace block, thread table, UTF-8 metadata with optional items, and events', () => {
    let header: unknown = null;
    const rows: unknown[] = [];
    const p = new NetTraceParser({
      onHeader: (h) => (header = h),
      onEvent: (e) => rows.push([e.metadata.kind, e.metadata.version, e.metadata.level, e.metadata.keywords, e.threadId, e.sequenceNumber, e.timestamp, e.view.getUint32(e.payloadOffset, true)]),
    });
    p.push(v6Trace());
    const s = p.end();
    expect(header).toMatchObject({ formatVersion: 6, pointerSize: 8, processId: 777, numberOfProcessors: 16, syncTimeQpc: 500, qpcFrequency: 1000, syncTimeUtc: '2025-03-02T10:20:30.400Z' });
    expect(rows).toEqual([
      ['My-Prov/Work/Stop', 3, 5, 0x42n, 4321, 1, 1500, 99],
      ['My-Prov/Work/Stop', 3, 5, 0x42n, 4321, 2, 1510, 100],
    ]);
    expect(s.complete).toBe(true);
    expect(s.objectCounts).toEqual({ Trace: 1, Thread: 1, Metadata: 1, Event: 1, SequencePoint: 1 });
    expect(s.droppedEvents).toBe(0);
  });

  it('fails a v6 stream without its EndOfStream block as truncated', () => {
    const bytes = v6Trace();
    const p = new NetTraceParser({});
    p.push(bytes.subarray(0, bytes.length - 4));
    expect(() => p.end()).toThrow(FormatError);
  });
});

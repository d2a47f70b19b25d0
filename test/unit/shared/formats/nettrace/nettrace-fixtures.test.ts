import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NetTraceSummary } from '../../../../../shared/formats/nettrace/nettrace-event.js';
import type { NetTraceHeader } from '../../../../../shared/formats/nettrace/nettrace-event.js';
import { NetTraceParser } from '../../../../../shared/formats/nettrace/nettrace-parser.js';
import { FIXTURES_DIR, NO_FIXTURES, fixturePath } from '../../../../helpers/fixtures.js';

/**
 * Every EventPipe fixture against PerfView's own oracles: the per-event-kind counts of the
 * `*.baseline.txt` files (TraceEvent's output, parsed here) and the header/record numbers of
 * expected-values.md §2.
 *
 * TraceLog (which produced the baselines) folds method-rundown and IL-map events into its method
 * tables instead of passing them on, so those kinds are absent from the baselines; we check that
 * they are the only extra kinds and that everything adds up to the stream's event count.
 */
const DIR = 'nettrace';
const FOLDED_BY_TRACELOG = new Set([
  'Microsoft-Windows-DotNETRuntime/Method/ILToNativeMap',
  'Microsoft-Windows-DotNETRuntimeRundown/Method/DCStopVerbose',
  'Microsoft-Windows-DotNETRuntimeRundown/Method/ILToNativeMapDCStop',
]);

interface Expected {
  file: string;
  container: number;
  pointerSize: number;
  pid: number;
  cpus: number;
  syncUtc: string;
  syncTicks?: bigint;
  syncQpc: number;
  frequency: number;
  events: number;
  metadata: number;
  objects: Record<string, number>;
}

// expected-values.md §2 (header test values are TraceEvent's own: UP=RR).
const FILES: Expected[] = [
  { file: 'eventpipe-dotnetcore2.1-linux-x64-tracelogging.netperf', container: 3, pointerSize: 8, pid: 12365, cpus: 4, syncUtc: '2018-03-09T17:48:09.998Z', syncQpc: 25_832_611_201_368, frequency: 1_000_000_000, events: 12, metadata: 8, objects: { Trace: 1, EventBlock: 1 } },
  { file: 'eventpipe-dotnetcore2.1-win-x86-objver3.netperf', container: 3, pointerSize: 4, pid: 3312, cpus: 4, syncUtc: '2018-02-01T17:21:38.442Z', syncTicks: 636_531_024_984_420_000n, syncQpc: 20_461_004_832, frequency: 2_533_315, events: 28_689, metadata: 30, objects: { Trace: 1, EventBlock: 102 } },
  { file: 'eventpipe-dotnetcore3.0-win-x64-objver4.nettrace', container: 4, pointerSize: 8, pid: 10064, cpus: 4, syncUtc: '2019-06-15T23:56:59.754Z', syncTicks: 636_962_398_197_540_000n, syncQpc: 100_935_252_313, frequency: 3_124_099, events: 105_540, metadata: 39, objects: { Trace: 1, MetadataBlock: 9, StackBlock: 44, EventBlock: 54, SPBlock: 18 } },
  { file: 'eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace', container: 4, pointerSize: 8, pid: 26240, cpus: 12, syncUtc: '2020-05-19T08:04:13.428Z', syncQpc: 5_105_990_140_369, frequency: 10_000_000, events: 1_970, metadata: 13, objects: { Trace: 1, MetadataBlock: 3, StackBlock: 1, EventBlock: 7, SPBlock: 1 } },
  { file: 'eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace', container: 4, pointerSize: 8, pid: 9832, cpus: 8, syncUtc: '2021-06-09T09:48:25.902Z', syncQpc: 11_111_925_758_331, frequency: 10_000_000, events: 3, metadata: 1, objects: { Trace: 1, MetadataBlock: 1, StackBlock: 1, EventBlock: 1, SPBlock: 1 } },
];

/** Baseline lines: `<Provider>/<EventName>, <count>, <XML>` (expected-values.md §2). */
function parseBaseline(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    if (!raw.trim()) continue;
    const m = /^(.*?), (\d+), /.exec(raw);
    if (!m) throw new Error(`unparsable baseline line: ${raw.slice(0, 80)}`);
    out.set(m[1], Number(m[2]));
  }
  return out;
}

function parseInChunks(bytes: Uint8Array, chunk: (i: number) => number): { kinds: Map<string, number>; header: NetTraceHeader | null; summary: NetTraceSummary } {
  const kinds = new Map<string, number>();
  let header: NetTraceHeader | null = null;
  const parser = new NetTraceParser({
    onHeader: (h) => (header = h),
    onEvent: (e) => kinds.set(e.metadata.kind, (kinds.get(e.metadata.kind) ?? 0) + 1),
  });
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = Math.max(1, chunk(i));
    parser.push(bytes.subarray(at, at + n));
    at += n;
  }
  return { kinds, header, summary: parser.end() };
}

describe.skipIf(!FIXTURES_DIR)(`EventPipe fixtures (${FIXTURES_DIR ? 'shared/fixtures/nettrace' : NO_FIXTURES})`, () => {
  for (const x of FILES) {
    const path = fixturePath(`${DIR}/${x.file}`);
    const baselinePath = fixturePath(`${DIR}/${x.file}.baseline.txt`);
    describe.skipIf(!path || !baselinePath)(x.file, () => {
      const bytes = () => new Uint8Array(readFileSync(path!));

      it('reads the header, records and objects of expected-values.md §2', () => {
        const { header, summary } = parseInChunks(bytes(), () => 1 << 20);
        const h = header!;
        expect(h.formatVersion).toBe(x.container);
        expect(h.pointerSize).toBe(x.pointerSize);
        expect(h.processId).toBe(x.pid);
        expect(h.numberOfProcessors).toBe(x.cpus);
        expect(h.expectedCpuSamplingRate).toBe(1_000_000);
        expect(h.syncTimeUtc).toBe(x.syncUtc);
        if (x.syncTicks !== undefined) expect(h.syncTimeTicks).toBe(x.syncTicks);
        expect(h.syncTimeQpc).toBe(x.syncQpc);
        expect(h.qpcFrequency).toBe(x.frequency);
        expect(summary.eventCount).toBe(x.events);
        expect(summary.metadataCount).toBe(x.metadata);
        expect(summary.objectCounts).toEqual(x.objects);
        expect(summary.complete).toBe(true);
        expect(summary.truncated).toBe(false);
        expect(summary.trailingBytes).toBe(0);
        expect(summary.bytesRead).toBe(bytes().length);
        expect(summary.droppedEvents).toBe(0);
        expect(summary.unknownMetadataEvents).toBe(0);
        // each v4 block header states the [min, max] time of its events: an independent check of
        // the delta decoding (including deltas that wrap modulo 2^64)
        expect(summary.outOfRangeTimestamps).toBe(0);
      });

      it('delivers each capture thread\'s events in time order, and all events in order when sorting', () => {
        const last = new Map<number, number>();
        let backwards = 0;
        let prev = -Infinity;
        let unsorted = 0;
        const p = new NetTraceParser(
          {
            onEvent: (e) => {
              if (e.timestamp < prev) unsorted++;
              prev = e.timestamp;
              if (e.timestamp < (last.get(e.captureThreadId) ?? -Infinity)) backwards++;
              last.set(e.captureThreadId, e.timestamp);
            },
          },
          { sort: true },
        );
        p.push(bytes());
        p.end();
        expect(unsorted).toBe(0);
        expect(backwards).toBe(0);
      });

      it('counts every event kind exactly as the upstream baseline', () => {
        const baseline = parseBaseline(readFileSync(baselinePath!, 'utf8'));
        // Odd chunk sizes: blocks and even varints straddle chunk boundaries.
        const { kinds, summary } = parseInChunks(bytes(), (i) => [7, 4093, 65_537, 1][i % 4]);
        for (const [kind, count] of baseline) expect({ kind, count: kinds.get(kind) ?? 0 }).toEqual({ kind, count });
        let folded = 0;
        for (const [kind, count] of kinds) {
          if (baseline.has(kind)) continue;
          expect(FOLDED_BY_TRACELOG.has(kind), `unexpected kind ${kind}`).toBe(true);
          folded += count;
        }
        const inBaseline = [...baseline.values()].reduce((a, b) => a + b, 0);
        expect(inBaseline + folded).toBe(summary.eventCount);
      });
    });
  }
});

describe.skipIf(!fixturePath(`${DIR}/eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace`))('v5 metadata tags (5.0 fixture)', () => {
  it('decodes V2Params array fields and the OpCode tag', () => {
    const bytes = new Uint8Array(readFileSync(fixturePath(`${DIR}/eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace`)!));
    const metas: { provider: string; eventId: number; name: string; opcode: number; fields: unknown }[] = [];
    const p = new NetTraceParser({ onMetadata: (m) => metas.push({ provider: m.provider, eventId: m.eventId, name: m.name, opcode: m.opcode, fields: m.fields }) });
    p.push(bytes);
    p.end();
    const mine = metas.filter((m) => m.provider === 'TestEventSource0');
    expect(mine.map((m) => [m.eventId, m.name, m.opcode])).toEqual([
      [5, 'TestEvent1', 0],
      [6, 'TestEvent2', 0],
      [7, 'TestEvent3/24', 24],
    ]);
    expect(mine[0].fields).toEqual([
      { name: 'arg0', typeCode: 19, elementTypeCode: 10 },
      { name: 'arg1', typeCode: 19, elementTypeCode: 7 },
      { name: 'arg2', typeCode: 11 },
    ]);
  });
});

describe.skipIf(!fixturePath(`${DIR}/eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace`))('worked example (nettrace-format.md §A10)', () => {
  it('decodes the three ExecutionCheckpointDCEnd events byte for byte', () => {
    const bytes = new Uint8Array(readFileSync(fixturePath(`${DIR}/eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace`)!));
    const rows: [number, number, number, number, number, number, number][] = [];
    let stack: Uint8Array | null = null;
    const p = new NetTraceParser({
      onEvent: (e) => {
        rows.push([e.sequenceNumber, e.captureThreadId, e.threadId, e.processorNumber, e.stackId, e.timestamp, e.payloadLength]);
        stack = p.stackFor(e.stackId);
      },
    });
    p.push(bytes);
    p.end();
    // flags 0xCF then 0x80 (ts +172, payload 40) then 0x00 (ts +105, payload reused)
    expect(rows).toEqual([
      [1, 25112, 25112, -1, 1, 11_111_943_296_237, 34],
      [2, 25112, 25112, -1, 1, 11_111_943_296_409, 40],
      [3, 25112, 25112, -1, 1, 11_111_943_296_514, 40],
    ]);
    expect(stack).not.toBeNull();
    expect(stack!.length).toBe(0); // "one empty stack"
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { FileByteSource } from '../../electron/files/file-byte-source.js';
import { readNetTraceSnapshot } from '../../shared/formats/nettrace/read-nettrace-snapshot.js';
import { NetTraceParser } from '../../shared/formats/nettrace/nettrace-parser.js';
import { readSnapshot } from '../../shared/formats/read-snapshot.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../shared/util/byte-source.js';
import { captureIo } from '../helpers/capture-io.js';
import { CLR, gcEnd, gcStart } from '../helpers/clr-event-payloads.js';
import { fixturePath, NO_FIXTURES } from '../helpers/fixtures.js';
import { sampleHeap, writeHeapTrace } from '../helpers/heap-trace.js';
import { NetTraceWriter } from '../helpers/nettrace-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'heapscope-nettrace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  return { code, out: c.out, err: c.err };
}

const trace30 = fixturePath('nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace');

describe.skipIf(!trace30)(`heapscope gc-timeline on the .NET Core 3.0 trace${trace30 ? '' : ` (${NO_FIXTURES})`}`, () => {
  /** Condemned generation of every GCStart, read from the raw payloads (not via the timeline). */
  function rawDepths(): number[] {
    const depths: number[] = [];
    const p = new NetTraceParser({ onEvent: (e) => e.metadata.provider === CLR && e.metadata.eventId === 1 && depths.push(e.view.getUint32(e.payloadOffset + 4, true)) }, { sort: true });
    p.push(new Uint8Array(readFileSync(trace30!)));
    p.end();
    return depths;
  }

  it('lists the 478 GCs of the baseline with per-generation counts (json)', async () => {
    const r = await cli('gc-timeline', trace30!, '--format', 'json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { file: string; summary: { gcCount: number; byGeneration: number[]; pause: { count: number } }; gcs: { number: number; generation: number; pauseMs: number; gen0After: number }[] };
    const depths = rawDepths();
    expect(depths).toHaveLength(478); // GC/Start count in the PerfView baseline
    expect(j.file).toBe('eventpipe-dotnetcore3.0-win-x64-objver4.nettrace');
    expect(j.summary.gcCount).toBe(478);
    expect(j.summary.byGeneration).toEqual([0, 1, 2].map((g) => depths.filter((d) => d === g).length));
    expect(j.summary.pause.count).toBe(478);
    expect(j.gcs).toHaveLength(478);
    expect(j.gcs.map((g) => g.generation)).toEqual(depths);
    expect(Object.keys(j.gcs[0])).toEqual(['number', 'generation', 'type', 'reason', 'startMs', 'pauseMs', 'durationMs', 'gen0After', 'gen1After', 'gen2After', 'lohAfter', 'pohAfter', 'promotedBytes', 'mode']);
  });

  it('prints a table with the summary, and CSV with one line per GC', async () => {
    const t = await cli('gc-timeline', trace30!);
    expect(t.code).toBe(0);
    expect(t.out).toMatch(/^eventpipe-dotnetcore3\.0-win-x64-objver4\.nettrace\n478 GCs \(gen0 /);
    expect(t.out).toMatch(/\npauses: 478 totalling [\d,.]+ ms \([\d.]+% of the trace\); p50 /);
    const c = await cli('gc-timeline', trace30!, '--format', 'csv');
    const lines = c.out.trimEnd().split('\r\n');
    expect(lines).toHaveLength(479);
    expect(lines[0]).toBe('number,generation,type,reason,startMs,pauseMs,durationMs,gen0After,gen1After,gen2After,lohAfter,pohAfter,promotedBytes,mode');
    expect(lines[1]).toMatch(/^1,0,NonConcurrent,AllocSmall,/);
  });
});

describe('heapscope gc-timeline errors', () => {
  it('refuses a file that is not a trace with a coded error (exit 3)', async () => {
    const p = join(dir, 'not-a-trace.bin');
    writeFileSync(p, 'hello');
    const r = await cli('gc-timeline', p);
    expect(r.code).toBe(3);
    expect(r.err).toBe('error format/unknown: not-a-trace.bin is not a known format; gc-timeline reads EventPipe traces (.nettrace, .netperf)\n');
  });
});

describe('heapscope convert', () => {
  const same = (a: HeapGraph, b: HeapGraph) => {
    expect(b.nodeCount).toBe(a.nodeCount);
    expect(b.edgeCount).toBe(a.edgeCount);
    expect(b.rootIndex).toBe(a.rootIndex);
    expect(b.types.names).toEqual(a.types.names);
    expect(b.types.modules).toEqual(a.types.modules);
    expect(Array.from(b.types.sizes)).toEqual(Array.from(a.types.sizes));
    expect(Array.from(b.nodeType)).toEqual(Array.from(a.nodeType));
    expect(Array.from(b.selfSize)).toEqual(Array.from(a.selfSize));
    expect(Array.from(b.firstEdge)).toEqual(Array.from(a.firstEdge));
    expect(Array.from(b.edgeTarget)).toEqual(Array.from(a.edgeTarget));
    expect(Array.from(b.address)).toEqual(Array.from(a.address));
    expect(b.hasGenerationData).toBe(true);
    expect(Array.from(b.generation)).toEqual(Array.from(a.generation));
    expect(b.totalSize).toBe(a.totalSize);
  };

  it('turns the heap dump of a trace into a .gcdump that reads back identical (generations included)', async () => {
    const bytes = writeHeapTrace(sampleHeap(), { nodesPerEvent: 2 });
    const input = join(dir, 'heap.nettrace');
    const output = join(dir, 'heap.gcdump');
    writeFileSync(input, bytes);
    const r = await cli('convert', input, '-o', output);
    expect(r.err).toBe('note: 1 data problem while reading heap.nettrace (see heapscope info)\n'); // the address-0 stack root
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^.*heap\.gcdump: 16 nodes, 21 references, 16 types, [\d,]+ bytes\n$/);
    const want = await readNetTraceSnapshot(new MemoryByteSource(bytes), { weakRoots: 'drop' });
    const src = await FileByteSource.open(output);
    try {
      const got = await readSnapshot(src);
      expect(got.metadata.format).toBe('gcdump');
      expect(got.metadata.creationTool).toBe('heapscope');
      same(want, got);
    } finally {
      await src.close();
    }
  });

  it('converts the heap dump chosen with --select', async () => {
    const input = join(dir, 'two-dumps.nettrace');
    writeFileSync(input, writeHeapTrace(sampleHeap(), { dumps: 2 }));
    const r = await cli('convert', input, '-o', join(dir, 'second.gcdump'), '--select', '1');
    expect(r.code).toBe(0);
    const bad = await cli('convert', input, '-o', join(dir, 'third.gcdump'), '--select', '2');
    expect(bad.code).toBe(3);
    expect(bad.err).toMatch(/^error format\/no-heap-dump: this trace has no GC heap snapshot \(asked for heap dump #2, found 2\)/);
  });

  it('explains a trace without a heap dump, and usage mistakes', async () => {
    const w = new NetTraceWriter();
    const s = w.defineEvent(CLR, 1, { version: 2 });
    const e = w.defineEvent(CLR, 2, { version: 1 });
    w.event(s, gcStart(1, 0, 0, 0), { timestamp: 10 });
    w.event(e, gcEnd(1, 0), { timestamp: 20 });
    const input = join(dir, 'gc-only.nettrace');
    writeFileSync(input, w.finish());
    const r = await cli('convert', input, '-o', join(dir, 'x.gcdump'));
    expect(r.code).toBe(3);
    expect(r.err).toBe('error format/no-heap-dump: this trace has no GC heap snapshot (it can still be shown as a GC timeline)\n');
    expect((await cli('convert', input)).code).toBe(2);
    expect((await cli('convert', input, '-o', input)).code).toBe(2);
  });
});

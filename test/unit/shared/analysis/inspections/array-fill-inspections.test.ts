import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../../shared/analysis/analyze.js';
import { runInspections } from '../../../../../shared/analysis/inspections/index.js';
import { analysisGraph } from '../../../../../electron/workers/share-graph.js';
import { readDumpStream } from '../../../../../shared/formats/dump/dump-graph.js';
import { FILL_ARRAY, FILL_COLLECTION, FILL_NONE } from '../../../../../shared/graph/fill-facts.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../../helpers/dump-stream-writer.js';
import { tinyGraph } from '../../../../helpers/graph-builder.js';

/**
 * A hand-built dump stream with ARRAY_FILL / COLLECTION_FILL records. App.Holder (static root)
 * references:
 *   Item[] 0x2000 length 100, 3 set (824 B)      sparse
 *   Item[] 0x3000 length 16, 4 set = 25% (152 B)  sparse (the bound is inclusive)
 *   Item[] 0x4000 length 16, 5 set (152 B)        not sparse
 *   Item[] 0x5000 length 15, 0 set (144 B)        too short for the rule
 *   Int32[] 0x6000, 0x6100, 0x6200 length 0 (24 B each)   empty
 *   Pair[] 0x6300 length 0 (24 B)                 one empty array of its type: not reported
 *   Pair[] 0x7000 length 64, 10 set, 16-byte elements (1,048 B)   sparse: 54 × 16 = 864 wasted
 *   List<Item> 0x8000 Count 0, capacity 16 (32 B) → _items Item[] 0x9000 length 16, 0 set (152 B)
 *   List<Item> 0x8100 Count 0, capacity 0 (32 B)
 *   List<Item> 0x8200 Count 2, capacity 4 (32 B) → _items Item[] 0x8300 length 4, 2 set (48 B)
 *   Dictionary 0xa000 Count 0, capacity 3 (80 B) → _buckets Int32[] 0xa100 (40 B),
 *                 _entries Entry[] 0xa200 (96 B), _comparer App.Holder 0xa300 (24 B)
 * and unreachable: Item[] 0xb000 length 100, 0 set (824 B); List<Item> 0xb100 Count 0 (32 B).
 */
async function dump(): Promise<HeapGraph> {
  const w = new DumpStreamWriter();
  const types = ['App.Holder', 'App.Item[]', 'System.Int32[]', 'System.Collections.Generic.List<App.Item>', 'App.Pair[]', 'System.Collections.Generic.Dictionary<System.Int32, App.Item>', 'Entry[]'];
  types.forEach((t, i) => w.type(i, t));
  const held = [0x2000, 0x3000, 0x4000, 0x5000, 0x6000, 0x6100, 0x6200, 0x6300, 0x7000, 0x8000, 0x8100, 0x8200, 0xa000];
  w.object(0x1000, 0, 64, 2, held.map((a) => [a, 'f']));
  w.object(0x2000, 1, 824, 2).arrayFill(0x2000, 100, 3, 8);
  w.object(0x3000, 1, 152, 2).arrayFill(0x3000, 16, 4, 8);
  w.object(0x4000, 1, 152, 2).arrayFill(0x4000, 16, 5, 8);
  w.object(0x5000, 1, 144, 2).arrayFill(0x5000, 15, 0, 8);
  for (const a of [0x6000, 0x6100, 0x6200]) w.object(a, 2, 24, 2).arrayFill(a, 0, 0, 4);
  w.object(0x6300, 4, 24, 2).arrayFill(0x6300, 0, 0, 16);
  w.object(0x7000, 4, 1048, 2).arrayFill(0x7000, 64, 10, 16);
  w.object(0x8000, 3, 32, 2, [[0x9000, '_items']]).collectionFill(0x8000, 0, 16);
  w.object(0x8100, 3, 32, 2).collectionFill(0x8100, 0, 0);
  w.object(0x8200, 3, 32, 2, [[0x8300, '_items']]).collectionFill(0x8200, 2, 4);
  w.object(0x8300, 1, 48, 2).arrayFill(0x8300, 4, 2, 8);
  w.object(0x9000, 1, 152, 2).arrayFill(0x9000, 16, 0, 8);
  w.object(0xa000, 5, 80, 2, [
    [0xa100, '_buckets'],
    [0xa200, '_entries'],
    [0xa300, '_comparer'],
  ]).collectionFill(0xa000, 0, 3);
  w.object(0xa100, 2, 40, 2).arrayFill(0xa100, 3, 0, 4);
  w.object(0xa200, 6, 96, 2).arrayFill(0xa200, 3, 0, 24);
  w.object(0xa300, 0, 24, 2);
  w.object(0xb000, 1, 824, 0).arrayFill(0xb000, 100, 0, 8);
  w.object(0xb100, 3, 32, 0).collectionFill(0xb100, 0, 0);
  w.root(1, 'App', 'Holder', 0x1000);
  return readDumpStream(new MemoryByteSource(w.end().finish(), 'fill.stream'));
}

const brief = (f: { title: string; objects: number; bytes: number; shallowBytes: number; examples: { address: string }[]; details: object }) => ({
  title: f.title,
  objects: f.objects,
  bytes: f.bytes,
  shallowBytes: f.shallowBytes,
  examples: f.examples.map((e) => e.address),
  details: f.details,
});

describe('fill records of a dump stream', () => {
  it('become per-node columns: kind, count, capacity, and element size per type', async () => {
    const g = await dump();
    const f = g.fillFacts!;
    const node = (addr: number): number => Array.from(g.address).findIndex((a) => a === BigInt(addr));
    expect([f.kind[node(0x1000)], f.kind[node(0x2000)], f.kind[node(0x8000)], f.kind[g.rootIndex]]).toEqual([FILL_NONE, FILL_ARRAY, FILL_COLLECTION, FILL_NONE]);
    expect([f.count[node(0x2000)], f.capacity[node(0x2000)]]).toEqual([3, 100]);
    expect([f.count[node(0x8200)], f.capacity[node(0x8200)]]).toEqual([2, 4]);
    expect(Array.from(f.elementSize.slice(0, 7))).toEqual([0, 8, 4, 0, 16, 0, 24]);
  });

  it('stay with the session: the analysis children get the graph without them', async () => {
    const g = await dump();
    const a = analysisGraph(g);
    expect(a.fillFacts).toBeUndefined();
    expect(a.edgeTarget).toBe(g.edgeTarget);
    expect(g.fillFacts!.kind.length).toBe(g.nodeCount);
  });

  it('are rejected when they do not follow their object or claim more set elements than the length', async () => {
    const read = (w: DumpStreamWriter) => readDumpStream(new MemoryByteSource(w.end().finish(), 'bad.stream'));
    const base = () => new DumpStreamWriter().type(0, 'App.Item[]').object(0x1000, 0, 40, 2).object(0x2000, 0, 40, 2);
    await expect(read(base().arrayFill(0x1000, 2, 0, 8))).rejects.toMatchObject({ code: 'format/corrupt', message: /not the object just written/ });
    await expect(read(base().arrayFill(0x2000, 2, 3, 8))).rejects.toMatchObject({ code: 'format/corrupt', message: /length 2 with 3 non-default/ });
    await expect(read(base().arrayFill(0x2000, 2, 0, 8).collectionFill(0x2000, 0, 0))).rejects.toMatchObject({ code: 'format/corrupt', message: /two fill records/ });
  });
});

describe('the Sparse arrays, Empty arrays and Empty collections inspections', () => {
  it('report exact counts and bytes on a hand-built dump', async () => {
    const g = await dump();
    const r = runInspections(g, analyzeDominance(g));
    expect(r.findings.filter((f) => f.kind === 'sparse-arrays').map(brief)).toEqual([
      {
        title: '3 sparse App.Item[] (1,000 bytes of default elements)',
        objects: 3,
        bytes: 1128,
        shallowBytes: 1128,
        examples: ['0x2000', '0x3000', '0x9000'],
        details: { type: 'App.Item[]', elements: 132, nonDefaultElements: 7, elementSize: 8, wastedBytes: 1000 },
      },
      {
        title: '1 sparse App.Pair[] (864 bytes of default elements)',
        objects: 1,
        bytes: 1048,
        shallowBytes: 1048,
        examples: ['0x7000'],
        details: { type: 'App.Pair[]', elements: 64, nonDefaultElements: 10, elementSize: 16, wastedBytes: 864 },
      },
    ]);
    expect(r.findings.filter((f) => f.kind === 'empty-arrays').map(brief)).toEqual([
      { title: '3 empty System.Int32[] (72 bytes)', objects: 3, bytes: 72, shallowBytes: 72, examples: ['0x6000', '0x6100', '0x6200'], details: { type: 'System.Int32[]' } },
    ]);
    expect(r.findings.filter((f) => f.kind === 'empty-collections').map(brief)).toEqual([
      {
        title: '1 empty System.Collections.Generic.Dictionary<System.Int32, App.Item> (240 bytes retained)',
        objects: 1,
        bytes: 240,
        shallowBytes: 80,
        examples: ['0xa000'],
        details: { type: 'System.Collections.Generic.Dictionary<System.Int32, App.Item>', withCapacity: 1, backingBytes: 136 },
      },
      {
        title: '2 empty System.Collections.Generic.List<App.Item> (216 bytes retained)',
        objects: 2,
        bytes: 216,
        shallowBytes: 64,
        examples: ['0x8000', '0x8100'],
        details: { type: 'System.Collections.Generic.List<App.Item>', withCapacity: 1, backingBytes: 152 },
      },
    ]);
    expect(r.unavailable).toEqual([{ kind: 'duplicate-strings', title: 'Duplicate strings', reason: expect.stringMatching(/take a full memory dump/) }]);
  });

  it('find nothing and say plainly that a .gcdump needs a dump', () => {
    const t = tinyGraph((b) => {
      b.root('[static vars]').ref('a');
      b.node('a', 824, 'System.Object[]');
    });
    const r = runInspections(t.graph, analyzeDominance(t.graph));
    expect(r.findings.filter((f) => ['sparse-arrays', 'empty-arrays', 'empty-collections'].includes(f.kind))).toEqual([]);
    expect(r.unavailable.map((u) => [u.kind, u.reason])).toEqual([
      ['duplicate-strings', expect.stringMatching(/a \.gcdump or heap-walk trace holds only types, sizes and references\): take a full memory dump/)],
      ['sparse-arrays', expect.stringMatching(/take a full memory dump/)],
      ['empty-collections', expect.stringMatching(/take a full memory dump/)],
    ]);
  });
});

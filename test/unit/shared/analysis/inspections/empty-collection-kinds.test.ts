import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../../shared/analysis/analyze.js';
import { runInspections } from '../../../../../shared/analysis/inspections/index.js';
import { readDumpStream } from '../../../../../shared/formats/dump/dump-graph.js';
import { checkFillFacts, collectionKindName, COLLECTION_KINDS, FILL_COLLECTION, type FillFacts } from '../../../../../shared/graph/fill-facts.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../../helpers/dump-stream-writer.js';

/**
 * COLLECTION records (kind, Count, capacity, storage bytes) on a hand-built dump stream.
 * App.Holder 0x1000 (static root) references:
 *   ConcurrentDictionary 0x2000 (40 B) Count 0, 7 buckets, storage 232: _tables 0x2100 (56 B) →
 *       _buckets 0x2200 (80 B), _locks 0x2300 (40 B) → itself (.NET's first lock) and a lock 0x2310 (24 B),
 *       _countPerLock 0x2400 (32 B)
 *   ConcurrentQueue 0x3000 (40 B) Count 0, 32 slots, storage 768: _head segment 0x3100 (232 B) → _slots 0x3200 (536 B)
 *   ConcurrentQueue 0x3300 (40 B) Count 3: not empty
 *   LinkedList 0x4000, 0x4100 (40 B each) Count 0, capacity 0, storage 0
 *   StringBuilder 0x5000 (48 B) Length 0, capacity 256, storage 536: m_ChunkChars Char[] 0x5100 (536 B)
 *   App.FutureBag 0x6000 (32 B) of kind 200 (unknown to this reader) Count 0, capacity 5, storage 100
 *   List<App.Item> 0x7000 (32 B) by an older helper's COLLECTION_FILL, Count 0, capacity 16:
 *       _items Item[] 0x7100 (152 B): its storage is the arrays in backing fields
 *   List<App.Marker> 0x8000 (32 B) Count 0, capacity 4, storage 56: _items Marker[] 0x8100 (56 B)
 * and unreachable: ConcurrentDictionary 0x9000 (40 B) Count 0.
 */
const TYPES = [
  'App.Holder',
  'System.Collections.Concurrent.ConcurrentDictionary<System.Int32, App.Item>',
  'Tables',
  'System.Object',
  'System.Object[]',
  'System.Int32[]',
  'System.Collections.Concurrent.ConcurrentQueue<App.Item>',
  'ConcurrentQueueSegment',
  'Slot[]',
  'System.Collections.Generic.LinkedList<App.Item>',
  'System.Text.StringBuilder',
  'System.Char[]',
  'App.FutureBag<App.Item>',
  'System.Collections.Generic.List<App.Item>',
  'App.Item[]',
  'System.Collections.Generic.List<App.Marker>',
  'App.Marker[]',
];
const T = Object.fromEntries(TYPES.map((t, i) => [t, i]));
const K = Object.fromEntries(COLLECTION_KINDS.map((k, i) => [k, i]));

function stream(): DumpStreamWriter {
  const w = new DumpStreamWriter();
  TYPES.forEach((t, i) => w.type(i, t));
  const held = [0x2000, 0x3000, 0x3300, 0x4000, 0x4100, 0x5000, 0x6000, 0x7000, 0x8000];
  w.object(0x1000, T['App.Holder'], 64, 2, held.map((a) => [a, 'f']));
  const cd = T['System.Collections.Concurrent.ConcurrentDictionary<System.Int32, App.Item>'];
  w.object(0x2000, cd, 40, 2, [[0x2100, '_tables']]).collection(0x2000, K.ConcurrentDictionary, 0, 7, 232);
  w.object(0x2100, T.Tables, 56, 2, [
    [0x2200, '_buckets'],
    [0x2300, '_locks'],
    [0x2400, '_countPerLock'],
  ]);
  w.object(0x2200, T['System.Object[]'], 80, 2).arrayFill(0x2200, 7, 0, 8);
  w.object(0x2300, T['System.Object[]'], 40, 2, [
    [0x2300, null],
    [0x2310, null],
  ]).arrayFill(0x2300, 2, 2, 8);
  w.object(0x2310, T['System.Object'], 24, 2);
  w.object(0x2400, T['System.Int32[]'], 32, 2).arrayFill(0x2400, 2, 0, 4);
  const cq = T['System.Collections.Concurrent.ConcurrentQueue<App.Item>'];
  w.object(0x3000, cq, 40, 2, [[0x3100, '_head']]).collection(0x3000, K.ConcurrentQueue, 0, 32, 768);
  w.object(0x3100, T.ConcurrentQueueSegment, 232, 2, [[0x3200, '_slots']]);
  w.object(0x3200, T['Slot[]'], 536, 2).arrayFill(0x3200, 32, 31, 16);
  w.object(0x3300, cq, 40, 2).collection(0x3300, K.ConcurrentQueue, 3, 32, 768);
  const ll = T['System.Collections.Generic.LinkedList<App.Item>'];
  w.object(0x4000, ll, 40, 2).collection(0x4000, K.LinkedList, 0, 0, 0);
  w.object(0x4100, ll, 40, 2).collection(0x4100, K.LinkedList, 0, 0, 0);
  w.object(0x5000, T['System.Text.StringBuilder'], 48, 2, [[0x5100, 'm_ChunkChars']]).collection(0x5000, K.StringBuilder, 0, 256, 536);
  w.object(0x5100, T['System.Char[]'], 536, 2).arrayFill(0x5100, 256, 150, 2);
  w.object(0x6000, T['App.FutureBag<App.Item>'], 32, 2).collection(0x6000, 200, 0, 5, 100);
  w.object(0x7000, T['System.Collections.Generic.List<App.Item>'], 32, 2, [[0x7100, '_items']]).collectionFill(0x7000, 0, 16);
  w.object(0x7100, T['App.Item[]'], 152, 2).arrayFill(0x7100, 16, 0, 8);
  w.object(0x8000, T['System.Collections.Generic.List<App.Marker>'], 32, 2, [[0x8100, '_items']]).collection(0x8000, K.List, 0, 4, 56);
  w.object(0x8100, T['App.Marker[]'], 56, 2).arrayFill(0x8100, 4, 0, 8);
  w.object(0x9000, cd, 40, 0).collection(0x9000, K.ConcurrentDictionary, 0, 7, 256);
  w.root(1, 'App', 'Holder', 0x1000);
  return w;
}

const read = (w: DumpStreamWriter): Promise<HeapGraph> => readDumpStream(new MemoryByteSource(w.end().finish(), 'collections.stream'));

describe('COLLECTION records of a dump stream', () => {
  it('become the collection table: one row per collection, nodes ascending, the kind as sent', async () => {
    const g = await read(stream());
    const c = g.fillFacts!.collections!;
    const addr = Array.from(c.node, (n) => Number(g.address[n]).toString(16));
    expect(addr).toEqual(['2000', '3000', '3300', '4000', '4100', '5000', '6000', '8000', '9000']);
    expect(Array.from(c.kind)).toEqual([5, 6, 6, 11, 11, 13, 200, 0, 5]);
    expect(Array.from(c.storage)).toEqual([232, 768, 768, 0, 0, 536, 100, 56, 256]);
    // the older COLLECTION_FILL record of 0x7000 is a collection without a row
    const list = Array.from(g.address).findIndex((a) => a === 0x7000n);
    expect([g.fillFacts!.kind[list], g.fillFacts!.count[list], g.fillFacts!.capacity[list]]).toEqual([FILL_COLLECTION, 0, 16]);
    expect([collectionKindName(5), collectionKindName(13), collectionKindName(200)]).toEqual(['ConcurrentDictionary', 'StringBuilder', 'kind 200']);
  });

  it('are rejected when they do not follow their object, repeat a fill record or are cut off', async () => {
    const base = () => new DumpStreamWriter().type(0, 'System.Text.StringBuilder').object(0x1000, 0, 48, 2).object(0x2000, 0, 48, 2);
    await expect(read(base().collection(0x1000, K.StringBuilder, 0, 16, 56))).rejects.toMatchObject({ code: 'format/corrupt', message: /collection record for 0x1000, which is not the object just written/ });
    await expect(read(base().collectionFill(0x2000, 0, 0).collection(0x2000, K.StringBuilder, 0, 16, 56))).rejects.toMatchObject({ code: 'format/corrupt', message: /two fill records/ });
    const cut = base().collection(0x2000, K.StringBuilder, 0, 16, 56).finish();
    await expect(readDumpStream(new MemoryByteSource(cut.subarray(0, cut.length - 4), 'cut.stream'))).rejects.toMatchObject({ code: 'format/truncated' });
  });

  it('are checked against the graph: rows ascending, each on a collection node', () => {
    const f = (node: number[]): FillFacts => ({
      kind: Uint8Array.of(0, FILL_COLLECTION, FILL_COLLECTION),
      count: new Uint32Array(3),
      capacity: new Uint32Array(3),
      elementSize: new Uint32Array(1),
      collections: { node: Uint32Array.from(node), kind: new Uint8Array(node.length), storage: new Float64Array(node.length) },
    });
    expect(checkFillFacts(f([1, 2]), 3, 1)).toBeNull();
    expect(checkFillFacts(f([2, 1]), 3, 1)).toBe('collection table order');
    expect(checkFillFacts(f([0]), 3, 1)).toBe('collection table row of a node that is not a collection');
    expect(checkFillFacts(f([3]), 3, 1)).toBe('collection table order');
  });
});

describe('collection kinds', () => {
  it('are the values of CollectionFacts.Kind in the dump reader, in order', () => {
    const cs = readFileSync(new URL('../../../../../electron/dump-reader/CollectionFacts.cs', import.meta.url), 'utf8');
    const body = /public enum Kind : byte\s*\{([^}]*)\}/.exec(cs)![1];
    const values = [...body.matchAll(/(\w+) = (\d+)/g)].map((m) => [m[1], Number(m[2])] as const).filter(([name]) => name !== 'None');
    expect(values).toEqual(COLLECTION_KINDS.map((k, i) => [k, i]));
  });
});

describe('the Empty collections inspection with collection kinds', () => {
  it('reports each empty kind with the storage its record gives, exact retained bytes, and the kind', async () => {
    const g = await read(stream());
    const r = runInspections(g, analyzeDominance(g));
    const found = r.findings
      .filter((f) => f.kind === 'empty-collections')
      .map((f) => ({ title: f.title, objects: f.objects, bytes: f.bytes, shallowBytes: f.shallowBytes, examples: f.examples.map((e) => e.address), details: f.details }));
    expect(found).toEqual([
      {
        title: '1 empty System.Collections.Concurrent.ConcurrentQueue<App.Item> (808 bytes retained)',
        objects: 1,
        bytes: 808,
        shallowBytes: 40,
        examples: ['0x3000'],
        details: { type: 'System.Collections.Concurrent.ConcurrentQueue<App.Item>', withCapacity: 1, backingBytes: 768, collectionKind: 'ConcurrentQueue' },
      },
      {
        title: '1 empty System.Text.StringBuilder (584 bytes retained)',
        objects: 1,
        bytes: 584,
        shallowBytes: 48,
        examples: ['0x5000'],
        details: { type: 'System.Text.StringBuilder', withCapacity: 1, backingBytes: 536, collectionKind: 'StringBuilder' },
      },
      {
        title: '1 empty System.Collections.Concurrent.ConcurrentDictionary<System.Int32, App.Item> (272 bytes retained)',
        objects: 1,
        bytes: 272,
        shallowBytes: 40,
        examples: ['0x2000'],
        details: { type: 'System.Collections.Concurrent.ConcurrentDictionary<System.Int32, App.Item>', withCapacity: 1, backingBytes: 232, collectionKind: 'ConcurrentDictionary' },
      },
      {
        title: '1 empty System.Collections.Generic.List<App.Item> (184 bytes retained)',
        objects: 1,
        bytes: 184,
        shallowBytes: 32,
        examples: ['0x7000'],
        details: { type: 'System.Collections.Generic.List<App.Item>', withCapacity: 1, backingBytes: 152 },
      },
      {
        title: '1 empty System.Collections.Generic.List<App.Marker> (88 bytes retained)',
        objects: 1,
        bytes: 88,
        shallowBytes: 32,
        examples: ['0x8000'],
        details: { type: 'System.Collections.Generic.List<App.Marker>', withCapacity: 1, backingBytes: 56, collectionKind: 'List' },
      },
      {
        title: '2 empty System.Collections.Generic.LinkedList<App.Item> (80 bytes retained)',
        objects: 2,
        bytes: 80,
        shallowBytes: 80,
        examples: ['0x4000', '0x4100'],
        details: { type: 'System.Collections.Generic.LinkedList<App.Item>', withCapacity: 0, backingBytes: 0, collectionKind: 'LinkedList' },
      },
      {
        title: '1 empty App.FutureBag<App.Item> (32 bytes retained)',
        objects: 1,
        bytes: 32,
        shallowBytes: 32,
        examples: ['0x6000'],
        details: { type: 'App.FutureBag<App.Item>', withCapacity: 1, backingBytes: 100, collectionKind: 'kind 200' },
      },
    ]);
    const fix = (type: string) => r.findings.find((f) => f.kind === 'empty-collections' && f.details.type === type)!.fix;
    expect(fix('System.Text.StringBuilder')).toMatch(/cleared builder keeps its capacity/);
    expect(fix('System.Collections.Concurrent.ConcurrentQueue<App.Item>')).toMatch(/never shrink/);
    expect(fix('System.Collections.Generic.List<App.Item>')).toMatch(/TrimExcess/);
  });
});

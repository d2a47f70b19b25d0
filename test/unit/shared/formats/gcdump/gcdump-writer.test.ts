import { describe, expect, it } from 'vitest';
import { readGcdump } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import { writeGcdump } from '../../../../../shared/formats/gcdump/gcdump-writer.js';
import { HeapGraphBuilder } from '../../../../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../../../../shared/graph/heap-graph.js';
import { emptyMetadata, type SnapshotMetadata } from '../../../../../shared/graph/metadata.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { tinyGraph } from '../../../../helpers/graph-builder.js';
import { FIXTURES_DIR, NO_FIXTURES } from '../../../../helpers/fixtures.js';
import { mulberry32, randomGraph } from '../../../../helpers/random-graph.js';
import { concat, expectSameGraph, GCDUMP_FIXTURES, loadFixture } from './gcdump-test-utils.js';

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
const ascii = (s: string): string => hex(Uint8Array.from(s, (c) => c.charCodeAt(0)));
const i32 = (v: number): string => hex(new Uint8Array(Int32Array.of(v).buffer));
const FLAGS = NODE_PSEUDO | NODE_UNDEFINED;

async function roundTrip(g: HeapGraph, opts: Parameters<typeof writeGcdump>[1] = {}): Promise<{ bytes: Uint8Array; graph: HeapGraph }> {
  const bytes = concat(writeGcdump(g, opts));
  return { bytes, graph: await readGcdump(new MemoryByteSource(bytes, 'roundtrip.gcdump')) };
}

/** A graph exercising everything the format carries: undefined nodes, 64-bit addresses, sizes equal and unequal to the type's, -1 types, duplicates. */
function richGraph(seed: number, nodes: number): HeapGraph {
  const rnd = mulberry32(seed);
  const int = (k: number): number => Math.floor(rnd() * k);
  const b = new HeapGraphBuilder();
  const rootType = b.addType('[.NET Roots]', null, 0);
  const catType = b.addType('[static vars]', null, 0);
  const types: number[] = [];
  for (let t = 0; t < 12; t++) types.push(b.addType(`Ns.Type${t}<é,日本>`, t % 3 === 0 ? null : `/app/lib${t}.dll`, t === 11 ? -1 : 8 * (t + 1)));
  b.createNodes(nodes);
  b.setRoot(0);
  b.setNode(0, rootType, 0, [1]);
  b.addFlags(0, NODE_PSEUDO);
  b.addFlags(1, NODE_PSEUDO);
  const kids: number[] = [];
  for (let i = 0; i < 5; i++) kids.push(2 + int(nodes - 2));
  b.setNode(1, catType, 0, kids);
  for (let v = 2; v < nodes; v++) {
    if (rnd() < 0.05) continue; // never described: stays UNDEFINED
    const t = types[int(11)];
    const size = rnd() < 0.6 ? 8 * (t - types[0] + 1) : int(5000);
    const refs: number[] = [];
    const k = int(7);
    for (let i = 0; i < k; i++) refs.push(rnd() < 0.1 && refs.length ? refs[0] : int(nodes));
    b.setNode(v, t, size, refs);
    b.setAddressWords(v, (int(0x10000) << 16) | (v & 0xfff0), rnd() < 0.5 ? 0x7fff : 0);
  }
  const m = emptyMetadata('gcdump');
  m.pointerSize = 8;
  return b.finish(m);
}

function richMetadata(m: SnapshotMetadata): void {
  m.processName = 'Dienst.exe — ünïcode';
  m.processId = 4242;
  m.machineName = 'BUILD-01';
  m.timeCollected = '2024-03-01T12:34:56.789';
  m.collectionLog = 'line one\nline two ✓';
  m.totalProcessCommit = 123_456_789_012;
  m.totalProcessWorkingSet = 987_654_321;
  m.averageCountMultiplier = 2.5;
  m.averageSizeMultiplier = 1.25;
  m.countMultipliersByType = Float32Array.from({ length: 14 }, (_, i) => 1 + i / 4);
  m.segments = [
    { start: 0x1000n, end: 0x9000n, gen0End: 0x9000n, gen1End: 0x8000n, gen2End: 0x4000n, gen3End: 0n, gen4End: 0n },
    { start: 0x7fff00000000n, end: 0x7fff10000000n, gen0End: 0n, gen1End: 0n, gen2End: 0n, gen3End: 0x7fff10000000n, gen4End: 0x7fff00001000n },
  ];
  m.interop = {
    rcws: [{ node: 3, refCount: 2, iUnknown: 0x1234n, jupiter: 0n, vtable: 0xfeedn, firstInterface: 0, interfaceCount: 1 }],
    ccws: [{ node: 4, refCount: 1, iUnknown: 0x5678n, handle: 0x9abcn, firstInterface: 1, interfaceCount: 1 }],
    interfaces: [
      { isRcw: true, owner: 0, typeIndex: 5, address: 0x11n, firstVTable: 0x22n, firstFunc: 0x33n },
      { isRcw: false, owner: 0, typeIndex: 6, address: 0x44n, firstVTable: 0x55n, firstFunc: 0x66n },
    ],
    modules: [
      { baseAddress: 0x10000n, fileSize: 4096, timeStamp: 77, fileName: 'a.dll' },
      { baseAddress: 0x20000n, fileSize: 8192, timeStamp: 78, fileName: null },
    ],
  };
  m.extra.jsHeapInfo = 1;
}

describe('writeGcdump', () => {
  it('emits the exact dotnet-gcdump byte structure (§8) for a 3-node graph', () => {
    const b = new HeapGraphBuilder();
    const root = b.addType('[root]', null, 0);
    const a = b.addType('A', 'a.dll', 24);
    b.createNodes(3);
    b.setNode(0, root, 0, [1, 2]);
    b.setNode(1, a, 24, [2, 2]); // size = type size: no explicit size; duplicate child kept
    b.setNode(2, a, 40, [0]); // explicit size, negative delta
    b.setAddress(1, 0x1000);
    b.setAddress(2, 0x1018);
    b.setRoot(0);
    const m = emptyMetadata('synthetic');
    m.pointerSize = 8;
    const bytes = concat(writeGcdump(b.finish(m)));
    const parts = [
      i32(20) + ' ' + ascii('!FastSerialization.1'),
      '04 04 01 ' + i32(10) + ' ' + i32(8) + ' ' + i32(10) + ' ' + ascii('GCHeapDump') + ' 06',
      '04 04 01 ' + i32(1) + ' ' + i32(0) + ' ' + i32(18) + ' ' + ascii('Graphs.MemoryGraph') + ' 06',
      '40 00 00 00 00 00 00 00 ' + i32(0) + ' ' + i32(3), // TotalSize 64, root 0, 3 types
      i32(9) + ' ' + ascii('UNDEFINED') + ' ' + i32(0) + ' ff ff ff ff',
      i32(6) + ' ' + ascii('[root]') + ' ' + i32(0) + ' ff ff ff ff',
      i32(1) + ' ' + ascii('A') + ' ' + i32(24) + ' ' + i32(5) + ' ' + ascii('a.dll'),
      i32(3) + ' ' + i32(2) + ' ' + i32(6) + ' ' + i32(10), // offsets of the 3 records
      i32(14), // blob length
      '00 00', // sentinel
      '02 02 01 02', // node 0: type 1 (size from type), 2 children: +1, +2
      '04 02 01 01', // node 1: type 2 (size from type), children 2, 2
      '05 28 01 7e', // node 2: type 2 + explicit 40, child 0 (delta -2)
      i32(3) + ' 00 00 00 00 00 00 00 00 00 10 00 00 00 00 00 00 18 10 00 00 00 00 00 00',
      '08 01 06', // tagged Is64Bit, end of MemoryGraph
      '01 00 00 80 3f 00 00 80 3f 01 01 ff ff ff ff 00 00 00 00 00 00 00 00 ff ff ff ff ff ff ff ff',
      i32(0) + ' 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 ' + i32(0),
      '0c ' + i32(0) + ' 01', // tagged InteropInfo: SkipRegion, forward ref 0, null
      '0d ' + i32(9) + ' ' + ascii('heapscope'),
      '06 06',
    ];
    const body = parts.join(' ');
    const bodyLength = body.split(' ').length;
    const creationToolAt = bodyLength - 2 - 14;
    const expected = body + ' ' + i32(1) + ' ' + i32(creationToolAt) + ' ' + i32(bodyLength) + ' ' + i32(bodyLength + 8);
    expect(hex(bytes)).toBe(expected);
  });

  it('round-trips tiny hand-built graphs', async () => {
    const t = tinyGraph((b) => {
      b.root('[static vars]').ref('A', 'A');
      b.root('[local vars]').ref('B');
      b.node('A', 16).ref('B', 'Ghost', 'A');
      b.node('B', 24, 'Leaf').ref('A');
    });
    const g = t.graph;
    const { graph: h } = await roundTrip(g);
    expectSameGraph(h, g, { flagsMask: FLAGS, metadata: false });
    expect(h.nodeFlags[t.id('Ghost')] & NODE_UNDEFINED).toBe(NODE_UNDEFINED);
    expect(h.problems.counts).toEqual({ 'undefined-node': 1 });
    expect(h.metadata.creationTool).toBe('heapscope');
    expect(h.metadata.formatVersion).toBe('GCHeapDump v10');
  });

  it('round-trips 40 seeded random graphs, in index order and in shuffled record order', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const g = randomGraph(seed, { nodes: 2 + (seed * 37) % 300, types: 1 + (seed % 9), avgDegree: 1 + (seed % 4) });
      const rnd = mulberry32(seed * 101);
      const order = Uint32Array.from({ length: g.nodeCount }, (_, i) => i);
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(rnd() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
      for (const recordOrder of [undefined, order]) {
        const { graph: h } = await roundTrip(g, { recordOrder, creationTool: null });
        expectSameGraph(h, g, { flagsMask: FLAGS, metadata: false });
        expect(h.metadata.creationTool).toBeNull();
      }
    }
  });

  it('round-trips rich graphs with every metadata field the format carries', async () => {
    for (const seed of [3, 17]) {
      const g = richGraph(seed, 3000);
      richMetadata(g.metadata);
      const { graph: h } = await roundTrip(g, { recordOrder: Uint32Array.from({ length: 3000 }, (_, i) => 2999 - i) });
      // Generations are recomputed from the written segments (the builder did not have them).
      expectSameGraph(h, { ...g, generation: h.generation, hasGenerationData: true }, { flagsMask: FLAGS, metadata: false });
      const m = h.metadata;
      expect(h.hasGenerationData).toBe(true);
      expect(m.segments).toEqual(g.metadata.segments);
      expect(m.interop).toEqual(g.metadata.interop);
      expect(Array.from(m.countMultipliersByType!)).toEqual(Array.from(g.metadata.countMultipliersByType!));
      expect([m.processName, m.processId, m.machineName, m.timeCollected, m.collectionLog]).toEqual([
        'Dienst.exe — ünïcode', 4242, 'BUILD-01', '2024-03-01T12:34:56.789', 'line one\nline two ✓',
      ]);
      expect([m.totalProcessCommit, m.totalProcessWorkingSet, m.averageCountMultiplier, m.averageSizeMultiplier]).toEqual([123_456_789_012, 987_654_321, 2.5, 1.25]);
      expect(m.extra).toEqual({ timeCollectedTicks: '638448932967890000' /* Date.UTC(2024,2,1,12,34,56,789) × 10⁴ + ticks at 1970 */, sizeOfAllSegments: 0x8000 + 0x10000000, jsHeapInfo: 1, memoryGraphVersion: 1 });
      expect(m.pointerSize).toBe(8);
      // Reading its own output again changes nothing at all, metadata included.
      const again = await roundTrip(h, { creationTool: m.creationTool });
      expectSameGraph(again.graph, h);
    }
  });

  it('hints the graph size once, with the exact node count, before the nodes are read (ReadOptions.sizeHint)', async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const g = randomGraph(seed, { nodes: 2 + (seed * 53) % 400, types: 3, avgDegree: 1 + (seed % 3) });
      const bytes = concat(writeGcdump(g));
      const hints: [number, number][] = [];
      const h = await readGcdump(new MemoryByteSource(bytes), { sizeHint: (n, e) => hints.push([n, e]) });
      expect(hints.length).toBe(1);
      expect(hints[0][0]).toBe(h.nodeCount);
      expect(hints[0][1]).toBeGreaterThan(0);
    }
  });

  it('writes 32-bit dumps and refuses sizes a .gcdump cannot store', async () => {
    const g = richGraph(5, 50);
    g.metadata.pointerSize = 4;
    expect((await roundTrip(g)).graph.metadata.pointerSize).toBe(4);
    g.selfSize[3] = 0x80000000;
    expect(() => writeGcdump(g)).toThrow(expect.objectContaining({ code: 'format/size-overflow' }));
  });

  it('returns chunks, not one buffer, for a larger graph', () => {
    const g = richGraph(9, 20_000);
    const chunks = writeGcdump(g, { chunkSize: 64 * 1024 });
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((c) => c.length <= 64 * 1024)).toBe(true);
  });
});

describe.skipIf(!FIXTURES_DIR)(`writeGcdump on every fixture (${FIXTURES_DIR ? 'read → write → read' : NO_FIXTURES})`, () => {
  it.each(GCDUMP_FIXTURES)('%s round-trips exactly', async (name) => {
    const g = await loadFixture(name);
    const { bytes, graph: h } = await roundTrip(g, { creationTool: g.metadata.creationTool });
    expectSameGraph(h, g);
    if (name !== 'perfview_test2') {
      // Same size as the original: the same records, only in index order (test2 gains Gen4End fields).
      expect(bytes.length).toBe((await import('./gcdump-test-utils.js')).fixtureBytes(name)!.length);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { GEN_COLUMNS, generationBreakdown, NO_GENERATION_DATA_MESSAGE } from '../../../../shared/analysis/generation-breakdown.js';
import { HeapGraphBuilder } from '../../../../shared/graph/heap-graph-builder.js';
import { GEN_FROZEN, GEN_UNKNOWN, NODE_PSEUDO } from '../../../../shared/graph/heap-graph.js';
import { emptyMetadata, type SnapshotMetadata } from '../../../../shared/graph/metadata.js';
import { CancelledError } from '../../../../shared/errors.js';
import { CancellationSource } from '../../../../shared/util/cancellation.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { mulberry32 } from '../../../helpers/random-graph.js';

/** root (pseudo) → objects with the given (type, size, generation); generation undefined = not set. */
function withGenerations(objs: [number, number, number | undefined][], types = 3) {
  const b = new HeapGraphBuilder();
  const tr = b.addType('[root]');
  const first = b.typeCount;
  for (let t = 0; t < types; t++) b.addType(`T${t}`, 'x.dll');
  b.createNodes(objs.length + 1);
  b.setNode(0, tr, 0, objs.map((_, i) => i + 1));
  b.addFlags(0, NODE_PSEUDO);
  objs.forEach(([t, size, gen], i) => {
    b.setNode(i + 1, first + t, size, []);
    b.setAddress(i + 1, 0x10000 + i * 0x100);
    if (gen !== undefined) b.setGeneration(i + 1, gen);
  });
  b.setRoot(0);
  return { g: b.finish(emptyMetadata('synthetic')), first };
}

describe('generationBreakdown', () => {
  it('counts objects and bytes per generation and per type × generation', () => {
    const { g, first } = withGenerations([
      [0, 24, 0],
      [0, 32, 0],
      [1, 100, 1],
      [1, 90_000, 3],
      [2, 48, 2],
      [2, 16, 4],
      [0, 8, GEN_UNKNOWN],
      [1, 40, GEN_FROZEN],
      [1, 24, GEN_FROZEN],
    ]);
    const r = generationBreakdown(g);
    expect(r.hasGenerationData).toBe(true);
    expect(r.message).toBeNull();
    expect(r.generations!.map((x) => [x.name, x.count, x.bytes])).toEqual([
      ['gen0', 2, 56],
      ['gen1', 1, 100],
      ['gen2', 1, 48],
      ['LOH', 1, 90_000],
      ['POH', 1, 16],
      ['unknown', 1, 8],
      ['frozen (non-GC heap)', 2, 64],
    ]);
    expect(Array.from(r.typeCount!.subarray(first * GEN_COLUMNS, (first + 1) * GEN_COLUMNS))).toEqual([2, 0, 0, 0, 0, 1, 0]);
    expect(Array.from(r.typeBytes!.subarray((first + 1) * GEN_COLUMNS, (first + 2) * GEN_COLUMNS))).toEqual([0, 100, 0, 90_000, 0, 0, 64]);
    expect(r.largeBySize).toEqual({ count: 1, bytes: 90_000, threshold: 85_000 });
    expect([r.objectCount, r.objectBytes]).toEqual([9, 24 + 32 + 100 + 90_000 + 48 + 16 + 8 + 64]);
  });

  it('names the real creator in the no-generation-data message, worded by what the file is (issue 14 item 8)', () => {
    const g = tinyGraph((b) => {
      b.root('[static vars]').ref('A');
      b.node('A', 24);
    }).graph;
    const as = (format: SnapshotMetadata['format'], creationTool: string | null) =>
      generationBreakdown({ ...g, metadata: { ...emptyMetadata(format), creationTool } }).message;
    expect(as('gcdump', 'dotnet-gcdump')).toBe(NO_GENERATION_DATA_MESSAGE);
    expect(NO_GENERATION_DATA_MESSAGE).toBe('this file carries no generation data (dotnet-gcdump never writes it)');
    // PerfView does not name itself in the file, and writes the segment list only for some captures
    expect(as('gcdump', null)).toBe('this file carries no generation data (it lists no GC segments; the file does not name the tool that wrote it)');
    expect(as('gcdump', 'heapscope')).toBe('this file carries no generation data (written by heapscope, it lists no GC segments)');
    expect(as('nettrace', null)).toBe('this trace carries no generation data (it has no GCGenerationRange events)');
    expect(as('cf-heaplog', null)).toBe('this heap log carries no generation data (Compact Framework heap logs do not record generations)');
    expect(as('synthetic', null)).toBe('this snapshot carries no generation data');
  });

  it('says plainly that there is no generation data, and still flags large objects by size', () => {
    const t = tinyGraph((b) => {
      b.root('[static vars]').ref('A', 'Big', 'Edge');
      b.node('A', 24);
      b.node('Big', 200_000, 'System.Byte[]');
      b.node('Edge', 85_000, 'System.Byte[]');
      b.node('Below', 84_999, 'System.Byte[]');
    });
    const r = generationBreakdown(t.graph);
    expect(r.hasGenerationData).toBe(false);
    expect(r.message).toBe('this snapshot carries no generation data');
    expect([r.generations, r.typeCount, r.typeBytes]).toEqual([null, null, null]);
    expect(r.largeBySize).toEqual({ count: 2, bytes: 285_000, threshold: 85_000 });
    // pseudo-nodes (root, category) are not objects
    expect([r.objectCount, r.objectBytes]).toEqual([4, 24 + 200_000 + 85_000 + 84_999]);
    const c = new CancellationSource();
    c.cancel();
    expect(() => generationBreakdown(t.graph, c.token)).toThrow(CancelledError);
  });

  it('matches a naive per-node tally on random heaps (50 seeds)', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const rnd = mulberry32(seed);
      const gens = [0, 1, 2, 3, 4, GEN_UNKNOWN, GEN_FROZEN];
      const objs: [number, number, number][] = [];
      const n = 1 + Math.floor(rnd() * 60);
      for (let i = 0; i < n; i++) objs.push([Math.floor(rnd() * 4), Math.floor(rnd() * 120_000), gens[Math.floor(rnd() * 7)]]);
      const { g, first } = withGenerations(objs, 4);
      const r = generationBreakdown(g);
      const count = new Array(7).fill(0);
      const bytes = new Array(7).fill(0);
      let large = 0;
      for (const [t, size, gen] of objs) {
        const col = gen === GEN_UNKNOWN ? 5 : gen === GEN_FROZEN ? 6 : gen;
        count[col]++;
        bytes[col] += size;
        if (size >= 85_000) large++;
        expect(r.typeCount![(first + t) * GEN_COLUMNS + col]).toBeGreaterThan(0);
      }
      expect(r.generations!.map((x) => x.count)).toEqual(count);
      expect(r.generations!.map((x) => x.bytes)).toEqual(bytes);
      expect(r.largeBySize.count).toBe(large);
      let sum = 0;
      for (const v of r.typeBytes!) sum += v;
      expect(sum).toBe(objs.reduce((s, o) => s + o[1], 0));
    }
  });
});

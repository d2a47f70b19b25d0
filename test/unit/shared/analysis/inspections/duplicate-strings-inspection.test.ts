import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../../shared/analysis/analyze.js';
import { runInspections } from '../../../../../shared/analysis/inspections/index.js';
import { readDumpStream } from '../../../../../shared/formats/dump/dump-graph.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../../helpers/dump-stream-writer.js';
import { tinyGraph } from '../../../../helpers/graph-builder.js';

/**
 * Object[] → "x" ×3 (600 B each: 1,200 wasted, reported), "y" ×2 (500 B: 500 wasted, under the
 * 1,024-byte threshold), "z" ×5 (300 B: 1,200 wasted, reported); one more "x" is unreachable.
 */
async function dump(): Promise<HeapGraph> {
  const w = new DumpStreamWriter();
  w.type(0, 'System.Object[]').type(1, 'System.String');
  const kept: [number, number, string, number][] = [
    [0x2000, 0, 'x', 600],
    [0x3000, 1, 'y', 500],
    [0x4000, 0, 'x', 600],
    [0x5000, 2, 'z', 300],
    [0x6000, 2, 'z', 300],
    [0x7000, 0, 'x', 600],
    [0x8000, 1, 'y', 500],
    [0x9000, 2, 'z', 300],
    [0xa000, 2, 'z', 300],
    [0xb000, 2, 'z', 300],
  ];
  w.object(0x1000, 0, 104, 2, kept.map(([a]) => [a, null]));
  const seen = new Set<number>();
  for (const [addr, v, text, size] of kept) {
    w.object(addr, 1, size, 2).stringValue(addr, v, seen.has(v) ? null : text, 1);
    seen.add(v);
  }
  w.object(0xc000, 1, 600, 0).stringValue(0xc000, 0, null, 1);
  w.root(1, 'App', 'Items', 0x1000);
  return readDumpStream(new MemoryByteSource(w.end().finish(), 'p.stream'));
}

describe('the Duplicate strings inspection', () => {
  it('reports values whose extra copies waste at least 1,024 bytes, the copies beyond the first as its objects', async () => {
    const g = await dump();
    const r = runInspections(g, analyzeDominance(g));
    const found = r.findings.filter((f) => f.kind === 'duplicate-strings');
    expect(found.map((f) => ({ title: f.title, objects: f.objects, bytes: f.bytes, shallowBytes: f.shallowBytes, examples: f.examples.map((e) => e.address), details: f.details }))).toEqual([
      // equal bytes: more objects first
      {
        title: '5 copies of "z" (1,200 bytes wasted)',
        objects: 4,
        bytes: 1200,
        shallowBytes: 1200,
        examples: ['0x6000', '0x9000', '0xa000'],
        details: { value: 'z', length: 1, truncated: false, copies: 5, totalBytes: 1500, wastedBytes: 1200 },
      },
      {
        title: '3 copies of "x" (1,200 bytes wasted)',
        objects: 2,
        bytes: 1200,
        shallowBytes: 1200,
        examples: ['0x4000', '0x7000'],
        details: { value: 'x', length: 1, truncated: false, copies: 3, totalBytes: 1800, wastedBytes: 1200 },
      },
    ]);
    expect(r.unavailable.map((u) => u.kind)).toEqual(['sparse-arrays', 'empty-collections']);
    expect(r.unavailable[0].reason).toMatch(/need array and collection contents, which this dump's reader did not send/);
  });

  it('finds nothing and says why for a graph without string contents', () => {
    const t = tinyGraph((b) => {
      b.root('[static vars]').ref('s1', 's2');
      b.node('s1', 2000, 'System.String');
      b.node('s2', 2000, 'System.String');
    });
    const r = runInspections(t.graph, analyzeDominance(t.graph));
    expect(r.findings.filter((f) => f.kind === 'duplicate-strings')).toEqual([]);
    expect(r.unavailable.map((u) => u.kind)).toEqual(['duplicate-strings', 'sparse-arrays', 'empty-collections']);
  });
});

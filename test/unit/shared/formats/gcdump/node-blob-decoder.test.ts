import { describe, expect, it } from 'vitest';
import { readGcdump } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import { writeGcdump } from '../../../../../shared/formats/gcdump/gcdump-writer.js';
import { countRuns, radixSort, sortNodesByOffset } from '../../../../../shared/formats/gcdump/offset-order.js';
import { HeapGraphBuilder } from '../../../../../shared/graph/heap-graph-builder.js';
import { NODE_PSEUDO, NODE_UNDEFINED, type HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../../../../shared/graph/metadata.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { mulberry32, randomGraph } from '../../../../helpers/random-graph.js';
import { concat, expectSameGraph } from './gcdump-test-utils.js';

describe('sortNodesByOffset', () => {
  it.each([
    ['one digit (blob < 64 KiB)', 60_000],
    ['two digits', 3_000_000_000],
  ])('matches a plain sort, %s', (_, maxOffset) => {
    const rnd = mulberry32(maxOffset);
    const offsets = new Uint32Array(5000);
    let nonZero = 0;
    for (let i = 0; i < offsets.length; i++) {
      if (rnd() < 0.1) continue; // undefined nodes are left out
      offsets[i] = 1 + Math.floor(rnd() * (maxOffset - 1));
      nonZero++;
    }
    const got = Array.from(sortNodesByOffset(offsets, nonZero, maxOffset));
    const want = Array.from(offsets.keys())
      .filter((i) => offsets[i] !== 0)
      .sort((a, b) => offsets[a] - offsets[b] || a - b); // stable: ties keep index order
    expect(got).toEqual(want);
  });

  it('radix-sorts as a plain stable sort does: tiny and huge offsets, crowded buckets past the scratch', () => {
    const plain = (offsets: Uint32Array) =>
      Array.from(offsets.keys())
        .filter((i) => offsets[i] !== 0)
        .sort((a, b) => offsets[a] - offsets[b] || a - b);
    for (let seed = 1; seed <= 120; seed++) {
      const rnd = mulberry32(seed);
      const n = 1 + Math.floor(rnd() * 3000);
      const maxOffset = [1, 200, 70_000, 2 ** 24 + 3, 2 ** 31 - 1, 0xffffffff][seed % 6];
      // a third of the seeds crowd every offset into one top-8-bit bucket; repeated offsets too
      const crowd = seed % 3 === 0 ? Math.max(1, Math.floor(maxOffset / 512)) : maxOffset;
      const base = crowd === maxOffset ? 0 : maxOffset - crowd;
      const offsets = new Uint32Array(n);
      let nonZero = 0;
      for (let i = 0; i < n; i++) {
        if (rnd() < 0.1) continue;
        offsets[i] = rnd() < 0.05 && i > 0 && offsets[i - 1] !== 0 ? offsets[i - 1] : Math.max(1, base + Math.floor(rnd() * crowd));
        nonZero++;
      }
      const want = plain(offsets);
      for (const scratchLimit of [1 << 20, 8]) {
        const got = radixSort(offsets, nonZero, maxOffset, (length) => new Uint32Array(length), scratchLimit);
        expect(Array.from(got), `seed ${seed}, scratch ${scratchLimit}`).toEqual(want);
      }
    }
  });

  it('merges few runs (the root last, blocks moved, equal offsets) as a plain stable sort does', () => {
    const plain = (offsets: Uint32Array) =>
      Array.from(offsets.keys())
        .filter((i) => offsets[i] !== 0)
        .sort((a, b) => offsets[a] - offsets[b] || a - b);
    const rootLast = Uint32Array.from({ length: 10 }, (_, i) => (i === 0 ? 500 : i * 10));
    expect(countRuns(rootLast)).toBe(2);
    expect(countRuns(Uint32Array.of(5, 4, 3, 2, 1))).toBe(5);
    expect(countRuns(Uint32Array.of(5, 4, 3, 2, 1), 3)).toBe(3); // stops at the limit
    expect(Array.from(sortNodesByOffset(rootLast, 10))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 0]);
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = mulberry32(seed);
      const n = 1 + Math.floor(rnd() * 300);
      // increasing offsets, then blocks of nodes swapped: a few runs; now and then a repeated offset
      const offsets = Uint32Array.from({ length: n }, (_, i) => 1 + 3 * i);
      for (let k = Math.floor(rnd() * 12); k > 0; k--) {
        const a = Math.floor(rnd() * n);
        const b = Math.floor(rnd() * n);
        [offsets[a], offsets[b]] = [offsets[b], offsets[a]];
        if (rnd() < 0.2) offsets[a] = offsets[b];
      }
      let nonZero = 0;
      for (let i = 0; i < n; i++) {
        if (rnd() < 0.1) offsets[i] = 0;
        else nonZero++;
      }
      const runs = countRuns(offsets);
      expect(runs, `seed ${seed}`).toBeLessThanOrEqual(64); // the merge, not the radix sort
      const shared = seed % 2 === 0;
      const got = sortNodesByOffset(offsets, nonZero, 3 * n + 1, shared);
      expect(Array.from(got), `seed ${seed}`).toEqual(plain(offsets));
      expect(got.buffer instanceof SharedArrayBuffer, `seed ${seed}`).toBe(shared);
    }
  });
});

describe('node blob streaming', () => {
  it('decodes records across tiny windows in both the in-order and the sorted path', async () => {
    const rnd = mulberry32(5);
    for (let seed = 1; seed <= 6; seed++) {
      const g = withHoles(randomGraph(seed, { nodes: 400, types: 5, avgDegree: 6 }));
      const h = await readGcdump(new MemoryByteSource(concat(writeGcdump(g)), 'g.gcdump'));
      const shuffled = Uint32Array.from({ length: g.nodeCount }, (_, i) => i).sort(() => rnd() - 0.5);
      for (const recordOrder of [undefined, shuffled]) {
        const bytes = concat(writeGcdump(h, { recordOrder }));
        for (const chunkSize of [16, 33, 1024]) {
          const r = await readGcdump(new MemoryByteSource(bytes, 'g.gcdump'), { chunkSize });
          expectSameGraph(r, h, { flagsMask: NODE_PSEUDO | NODE_UNDEFINED, metadata: false });
        }
      }
    }
  });
});

/** A copy of `g` with every 7th object left undescribed, so both decode paths meet offset-0 nodes. */
function withHoles(g: HeapGraph): HeapGraph {
  const b = new HeapGraphBuilder();
  for (let t = 1; t < g.types.count; t++) b.addType(g.types.names[t], g.types.modules[t], g.types.sizes[t]);
  b.createNodes(g.nodeCount);
  for (let v = 0; v < g.nodeCount; v++) {
    if (v > 4 && v % 7 === 3) continue;
    b.setNode(v, g.nodeType[v], g.selfSize[v], g.edgeTarget, g.firstEdge[v], g.firstEdge[v + 1] - g.firstEdge[v]);
  }
  b.setRoot(g.rootIndex);
  const out = b.finish(emptyMetadata('synthetic'));
  expect(out.problems.counts['undefined-node']).toBeGreaterThan(40);
  return out;
}

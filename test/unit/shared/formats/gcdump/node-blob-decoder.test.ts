import { describe, expect, it } from 'vitest';
import { readGcdump } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import { writeGcdump } from '../../../../../shared/formats/gcdump/gcdump-writer.js';
import { sortNodesByOffset } from '../../../../../shared/formats/gcdump/node-blob-decoder.js';
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

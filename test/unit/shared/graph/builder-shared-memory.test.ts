import { describe, expect, it } from 'vitest';
import { shareGraph } from '../../../../electron/workers/share-graph.js';
import { readGcdump } from '../../../../shared/formats/gcdump/gcdump-reader.js';
import { writeGcdump } from '../../../../shared/formats/gcdump/gcdump-writer.js';
import { HeapGraphBuilder } from '../../../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../../../shared/graph/metadata.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { FIXTURES_DIR, NO_FIXTURES } from '../../../helpers/fixtures.js';
import { mulberry32, syntheticHeap } from '../../../helpers/random-graph.js';
import { concat, expectSameGraph, fixtureBytes } from '../formats/gcdump/gcdump-test-utils.js';

// The app reads with sharedMemory and hands the graph to its analysis threads (shareGraph): the
// builder's columns must be born in SharedArrayBuffers, or the whole graph is copied once more.
const COLUMNS = ['nodeType', 'selfSize', 'firstEdge', 'edgeTarget', 'address', 'nodeFlags'] as const;

function expectShared(g: HeapGraph): void {
  for (const c of COLUMNS) expect(g[c].buffer instanceof SharedArrayBuffer, c).toBe(true);
  const s = shareGraph(g);
  for (const c of COLUMNS) expect(s[c], c).toBe(g[c]); // no copy
}

/** Random nodes, described in a random or in index order, some never described; same calls on both builders. */
function build(seed: number, shared: boolean, inOrder: boolean): HeapGraph {
  const rnd = mulberry32(seed);
  const n = 20 + Math.floor(rnd() * 200);
  const b = new HeapGraphBuilder({ expectedNodes: Math.floor(n / 3), expectedEdges: n, sharedMemory: shared }); // small hints: the columns grow
  const t = [b.addType('A'), b.addType('B')];
  b.createNodes(n);
  const order = Array.from({ length: n }, (_, i) => i);
  if (!inOrder) for (let i = n - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [order[i], order[j]] = [order[j], order[i]]; }
  for (const v of order) {
    if (v !== 0 && rnd() < 0.1) continue; // undefined
    const kids = Array.from({ length: Math.floor(rnd() * 6) }, () => Math.floor(rnd() * n));
    b.setNode(v, t[v % 2], Math.floor(rnd() * 100), kids);
    b.setAddress(v, 0x10000 + 8 * v);
  }
  b.setRoot(0);
  return b.finish(emptyMetadata('synthetic'));
}

describe('HeapGraphBuilder with sharedMemory', () => {
  it('gives the same graph as without, every column in a SharedArrayBuffer (in-order and compacted pools)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const inOrder = seed % 2 === 0;
      const plain = build(seed, false, inOrder);
      const shared = build(seed, true, inOrder);
      expectSameGraph(shared, plain);
      expect(plain.edgeTarget.buffer instanceof SharedArrayBuffer).toBe(false);
      expectShared(shared);
    }
  });
});

describe('readGcdump with sharedMemory (the app’s snapshot worker)', () => {
  it('builds the graph in shared memory, so shareGraph copies nothing, with the same columns', async () => {
    for (const seed of [1, 2]) {
      const bytes = concat(writeGcdump(syntheticHeap(3000, 2.5, seed)));
      const plain = await readGcdump(new MemoryByteSource(bytes, 's.gcdump'));
      const shared = await readGcdump(new MemoryByteSource(bytes, 's.gcdump'), { sharedMemory: true });
      expect(shared.nodeCount).toBe(plain.nodeCount);
      expectSameGraph(shared, plain);
      expectShared(shared);
    }
  });

  it.skipIf(!FIXTURES_DIR)('does so on a real .gcdump too', async () => {
    const bytes = fixtureBytes('perfview_test1');
    if (!bytes) throw new Error(NO_FIXTURES);
    const plain = await readGcdump(new MemoryByteSource(bytes, 'perfview_test1.gcdump'));
    const shared = await readGcdump(new MemoryByteSource(bytes, 'perfview_test1.gcdump'), { sharedMemory: true });
    expect(shared.nodeCount).toBe(plain.nodeCount);
    expectSameGraph(shared, plain);
    expectShared(shared);
  });
});

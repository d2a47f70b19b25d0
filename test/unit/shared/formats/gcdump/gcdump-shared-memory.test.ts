import { describe, expect, it } from 'vitest';
import { readGcdump } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import { writeGcdump } from '../../../../../shared/formats/gcdump/gcdump-writer.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { shareGraph } from '../../../../../electron/workers/share-graph.js';
import { mulberry32, randomGraph } from '../../../../helpers/random-graph.js';
import { concat, fixtureBytes, GCDUMP_FIXTURES } from './gcdump-test-utils.js';

// ReadOptions.sharedMemory for .gcdump (issue 17, the app's load path): the graph's columns are
// born in SharedArrayBuffers, so the snapshot worker's shareGraph copies none of them on the way
// to the analysis children (at 10M objects ~320 MB and as many fresh pages), and the graph is the
// one-thread, plain-memory read's byte for byte.

const COLUMNS = ['nodeType', 'selfSize', 'firstEdge', 'edgeTarget', 'address', 'nodeFlags'] as const;

function bytesOf(col: ArrayBufferView): Buffer {
  return Buffer.from(col.buffer, col.byteOffset, col.byteLength);
}

function expectIdentical(a: HeapGraph, b: HeapGraph): void {
  expect([a.nodeCount, a.edgeCount, a.rootIndex, a.totalSize]).toEqual([b.nodeCount, b.edgeCount, b.rootIndex, b.totalSize]);
  for (const col of [...COLUMNS, 'generation'] as const) expect(bytesOf(a[col]).equals(bytesOf(b[col])), col).toBe(true);
  expect(a.types).toEqual(b.types);
  expect(a.metadata).toEqual(b.metadata);
  expect(a.problems.entries).toEqual(b.problems.entries);
}

async function both(bytes: Uint8Array): Promise<[HeapGraph, HeapGraph]> {
  const plain = await readGcdump(new MemoryByteSource(bytes, 'x.gcdump'));
  const shared = await readGcdump(new MemoryByteSource(bytes, 'x.gcdump'), { sharedMemory: true });
  return [plain, shared];
}

function expectNoCopy(g: HeapGraph): void {
  const s = shareGraph(g);
  // the generation column too: it is the builder's own, filled from the segments in place
  for (const col of [...COLUMNS, 'generation'] as const) {
    expect(g[col].buffer instanceof SharedArrayBuffer, col).toBe(true);
    expect(s[col], col).toBe(g[col]); // shareGraph handed the column on as it is
  }
}

describe('.gcdump with sharedMemory: columns in SharedArrayBuffers, the same graph', () => {
  for (const name of GCDUMP_FIXTURES) {
    it.skipIf(!fixtureBytes(name))(`${name}.gcdump`, async () => {
      const [plain, shared] = await both(fixtureBytes(name)!);
      expectIdentical(shared, plain);
      expectNoCopy(shared);
      expect(plain.nodeType.buffer instanceof SharedArrayBuffer).toBe(false);
    });
  }

  it('synthetic graphs with records in and out of index order (the out-of-order edge column is made anew)', async () => {
    const rnd = mulberry32(5);
    for (const nodes of [1, 50, 3000]) {
      const g = randomGraph(nodes, { nodes, types: 4, avgDegree: 5 });
      const shuffled = Uint32Array.from({ length: g.nodeCount }, (_, i) => i).sort(() => rnd() - 0.5);
      for (const recordOrder of [undefined, shuffled]) {
        const [plain, shared] = await both(concat(writeGcdump(g, { recordOrder })));
        expectIdentical(shared, plain);
        expectNoCopy(shared);
      }
    }
  });
});

import { describe, expect, it } from 'vitest';
import { readDumpStream } from '../../../../../shared/formats/dump/dump-graph.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { shareGraph } from '../../../../../electron/workers/share-graph.js';
import { randomDumpStream } from '../../../../helpers/random-dump-stream.js';

// ReadOptions.sharedMemory for process dumps (the app's load path): the columns shareGraph hands
// to the analysis children are born in SharedArrayBuffers, so the snapshot worker copies none of
// them between the build and the first type rows, and the graph is the plain read's byte for byte.

const COLUMNS = ['nodeType', 'selfSize', 'firstEdge', 'edgeTarget', 'address', 'nodeFlags', 'generation'] as const;

const bytesOf = (col: ArrayBufferView): Buffer => Buffer.from(col.buffer, col.byteOffset, col.byteLength);

function expectIdentical(a: HeapGraph, b: HeapGraph): void {
  expect([a.nodeCount, a.edgeCount, a.rootIndex, a.totalSize]).toEqual([b.nodeCount, b.edgeCount, b.rootIndex, b.totalSize]);
  for (const col of COLUMNS) expect(bytesOf(a[col]).equals(bytesOf(b[col])), col).toBe(true);
  expect(bytesOf(a.edgeFieldName!).equals(bytesOf(b.edgeFieldName!))).toBe(true);
  expect(bytesOf(a.nodeStringValue!).equals(bytesOf(b.nodeStringValue!))).toBe(true);
  expect(a.stringValues).toEqual(b.stringValues);
  expect(a.fieldNames).toEqual(b.fieldNames);
  expect(a.types).toEqual(b.types);
  expect(a.problems.entries).toEqual(b.problems.entries);
}

describe('process dump with sharedMemory: columns in SharedArrayBuffers, the same graph', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`random stream ${seed} (with dropped references, so the edge column is trimmed)`, async () => {
      const bytes = randomDumpStream(seed, 300);
      const plain = await readDumpStream(new MemoryByteSource(bytes));
      const shared = await readDumpStream(new MemoryByteSource(bytes), undefined, undefined, undefined, true);
      expect(plain.problems.counts['dangling-reference']).toBeGreaterThan(0);
      expectIdentical(shared, plain);
      const s = shareGraph(shared);
      for (const col of COLUMNS) {
        expect(shared[col].buffer instanceof SharedArrayBuffer, col).toBe(true);
        expect(s[col], col).toBe(shared[col]); // handed on as it is: no copy
      }
      expect(plain.nodeType.buffer instanceof SharedArrayBuffer).toBe(false);
    });
  }
});

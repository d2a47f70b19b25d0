import { describe, expect, it } from 'vitest';
import { dumpRecordsToGraph } from '../../../../../shared/formats/dump/dump-graph.js';
import { decodeDumpStream, type DumpRecords } from '../../../../../shared/formats/dump/dump-stream.js';
import { NOT_FOUND } from '../../../../../shared/formats/dump/early-references.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { ChunkedByteSource, randomDumpStream } from '../../../../helpers/random-dump-stream.js';

// References resolved while the stream arrives (early-references.ts) must give the graph that
// resolving them all after END gives, byte for byte, and each early answer must be the naive
// one (a Map from address to object). Streams of 20,000 objects: the decoder catches up every
// 4,096 objects, so most references are resolved early and some (above the newest object, or
// within the window of the end) are left for the build.

const decode = (bytes: Uint8Array, early: boolean, chunk = 0): Promise<DumpRecords> =>
  decodeDumpStream(chunk ? new ChunkedByteSource(bytes, chunk) : new MemoryByteSource(bytes), undefined, undefined, undefined, { resolveReferences: early });

const bytesOf = (col: ArrayBufferView): Buffer => Buffer.from(col.buffer, col.byteOffset, col.byteLength);

function expectSameGraph(a: HeapGraph, b: HeapGraph): void {
  expect([a.nodeCount, a.edgeCount, a.totalSize]).toEqual([b.nodeCount, b.edgeCount, b.totalSize]);
  for (const col of ['firstEdge', 'edgeTarget', 'edgeFieldName', 'nodeType', 'address', 'nodeFlags'] as const) expect(bytesOf(a[col]!).equals(bytesOf(b[col]!)), col).toBe(true);
  expect(a.problems.entries).toEqual(b.problems.entries);
}

describe('references resolved while decoding a dump stream', () => {
  for (const [seed, chunk] of [
    [11, 0],
    [12, 4093],
    [13, 65536],
  ] as const) {
    it(`random stream ${seed}, 20,000 objects${chunk ? `, read ${chunk} bytes at a time` : ''}: the same graph, each early answer the naive one`, async () => {
      const bytes = randomDumpStream(seed, 20_000);
      const raw = await decode(bytes, false);
      const early = await decode(bytes, true, chunk);
      expect(raw.referenceResolved).toBeUndefined();
      const n = raw.objectCount;
      const byAddress = new Map<number, number>();
      for (let i = 0; i < n; i++) byAddress.set(raw.objectAddress[2 * i + 1] * 2 ** 32 + raw.objectAddress[2 * i], i);
      const refs = raw.referenceField.length;
      const bits = early.referenceResolved!;
      let resolved = 0;
      let dangling = 0;
      for (let j = 0; j < refs; j++) {
        if (j >>> 3 >= bits.length || (bits[j >>> 3] & (1 << (j & 7))) === 0) {
          // not resolved: still the address
          expect(early.referenceTarget[2 * j]).toBe(raw.referenceTarget[2 * j]);
          continue;
        }
        resolved++;
        const want = byAddress.get(raw.referenceTarget[2 * j + 1] * 2 ** 32 + raw.referenceTarget[2 * j]);
        if (want === undefined) dangling++;
        expect(early.referenceTarget[2 * j], `reference ${j}`).toBe(want ?? NOT_FOUND);
      }
      // Most are resolved early, some are left: both paths of the build run.
      expect(resolved / refs).toBeGreaterThan(0.6);
      expect(resolved).toBeLessThan(refs);
      expect(dangling).toBeGreaterThan(0);
      expectSameGraph(dumpRecordsToGraph(early), dumpRecordsToGraph(raw));
    });
  }
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileByteSource } from '../../../../electron/files/file-byte-source.js';
import { childStretchReader } from '../../../../electron/workers/stretch-reader.js';
import { devWorkerScripts } from '../../../../electron/workers/worker-scripts.js';
import { decodeBlobPart } from '../../../../shared/formats/gcdump/blob-split.js';
import { readGcdump } from '../../../../shared/formats/gcdump/gcdump-reader.js';
import { writeGcdump } from '../../../../shared/formats/gcdump/gcdump-writer.js';
import { NEVER_CANCELLED } from '../../../../shared/util/cancellation.js';
import { randomGraph } from '../../../helpers/random-graph.js';
import { rootLastOrder } from '../../../tools/gen-gcdump.js';
import { concat } from '../../shared/formats/gcdump/gcdump-test-utils.js';

// The second half of a .gcdump node blob decoded by a real child worker (through the tsx shim):
// the part arrives equal to the in-process one and the graph equals a one-thread read.
let dir: string;
let path: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-blob-'));
  path = join(dir, 'g.gcdump');
  writeFileSync(path, concat(writeGcdump(randomGraph(8, { nodes: 5000, types: 6, avgDegree: 4 }))));
  // the same heap with the root's record last, as real producers write it (records out of node order)
  const g = randomGraph(8, { nodes: 5000, types: 6, avgDegree: 4 });
  writeFileSync(join(dir, 'root-last.gcdump'), concat(writeGcdump(g, { recordOrder: rootLastOrder(g.nodeCount, g.rootIndex) })));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const data = { analysis: devWorkerScripts().analysis };

describe('child-worker gcdump blob part', () => {
  it('decodes the second half in a child worker; the graph equals a one-thread read', async () => {
    const reader = childStretchReader(path, data)!;
    const requests: { from: number; to: number }[] = [];
    let fromChild = 0; // parts that came back from the child (a failed one is decoded here silently)
    const blob = reader.gcdumpBlob!;
    reader.gcdumpBlob = (req, token, progress) => {
      requests.push({ from: req.from, to: req.to });
      const part = blob(req, token, progress);
      return {
        cancel: part.cancel,
        result: part.result.then(async (got) => {
          // equal to the same part decoded here
          const source = await FileByteSource.open(path);
          try {
            const want = await decodeBlobPart(source, req, NEVER_CANCELLED);
            expect(Array.from(got.children)).toEqual(Array.from(want.children));
            expect(Array.from(got.type)).toEqual(Array.from(want.type));
            expect(Array.from(got.size)).toEqual(Array.from(want.size));
            expect(Array.from(got.count)).toEqual(Array.from(want.count));
            expect(got.sumOfSizes).toBe(want.sumOfSizes);
            fromChild++;
          } finally {
            await source.close();
          }
          return got;
        }),
      };
    };
    const source = await FileByteSource.open(path);
    try {
      const two = await readGcdump(source, { stretchReader: reader, splitAtVisit: 2400, chunkSize: 4096 });
      const one = await readGcdump(source);
      expect(requests).toEqual([{ from: 2400, to: 5000 }]);
      expect(fromChild).toBe(1);
      for (const col of ['nodeType', 'selfSize', 'firstEdge', 'edgeTarget', 'address', 'nodeFlags', 'generation'] as const) {
        expect(Buffer.from(two[col].buffer, two[col].byteOffset, two[col].byteLength).equals(Buffer.from(one[col].buffer, one[col].byteOffset, one[col].byteLength)), col).toBe(true);
      }
      expect(two.problems).toEqual(one.problems);
      expect(two.edgeCount).toBeGreaterThan(10000);
    } finally {
      await source.close();
    }
  }, 60_000);

  it("writes the builder's shared columns from the child worker (as the app reads); the graph equals a one-thread read", async () => {
    const parts: { direct: boolean; records: number; type: number }[] = [];
    // a reader for `file` (its child opens that file) that notes what each part came back as
    const readerFor = (file: string) => {
      const reader = childStretchReader(file, data)!;
      const blob = reader.gcdumpBlob!;
      reader.gcdumpBlob = (req, token, progress) => {
        const part = blob(req, token, progress);
        return { cancel: part.cancel, result: part.result.then((got) => (parts.push({ direct: got.direct, records: got.records, type: got.type.length }), got)) };
      };
      return reader;
    };
    // in node order, and with the root's record last (the second half then holds node 0's record)
    for (const file of [path, join(dir, 'root-last.gcdump')]) {
      parts.length = 0;
      const source = await FileByteSource.open(file);
      try {
        const two = await readGcdump(source, { stretchReader: readerFor(file), splitAtVisit: 2400, chunkSize: 4096, sharedMemory: true });
        const one = await readGcdump(source);
        // the child wrote 2,600 records into the builder's columns, and kept no arrays of its own for them
        expect(parts).toEqual([{ direct: true, records: 2600, type: 0 }]);
        for (const col of ['nodeType', 'selfSize', 'firstEdge', 'edgeTarget', 'address', 'nodeFlags', 'generation'] as const) {
          expect(Buffer.from(two[col].buffer, two[col].byteOffset, two[col].byteLength).equals(Buffer.from(one[col].buffer, one[col].byteOffset, one[col].byteLength)), col).toBe(true);
        }
        expect(two.problems).toEqual(one.problems);
      } finally {
        await source.close();
      }
    }
    // and the root-last file's graph is the node-order file's
    const [a, b] = await Promise.all([path, join(dir, 'root-last.gcdump')].map(async (f) => {
      const source = await FileByteSource.open(f);
      try {
        return await readGcdump(source);
      } finally {
        await source.close();
      }
    }));
    for (const col of ['nodeType', 'selfSize', 'firstEdge', 'edgeTarget', 'address', 'nodeFlags'] as const) {
      expect(Buffer.from(a[col].buffer, a[col].byteOffset, a[col].byteLength).equals(Buffer.from(b[col].buffer, b[col].byteOffset, b[col].byteLength)), col).toBe(true);
    }
  }, 60_000);
});

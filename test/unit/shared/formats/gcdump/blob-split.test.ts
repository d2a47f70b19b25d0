import { describe, expect, it, vi } from 'vitest';
import { CancelledError, FormatError } from '../../../../../shared/errors.js';
import { decodeCompressedInt } from '../../../../../shared/formats/gcdump/compressed-int.js';
import { decodeBlobPart, type BlobPartReader, type BlobPartRequest } from '../../../../../shared/formats/gcdump/blob-split.js';
import { readGcdump, type GcdumpReadOptions } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import { writeGcdump } from '../../../../../shared/formats/gcdump/gcdump-writer.js';
import type { StretchReader } from '../../../../../shared/formats/read-options.js';
import { HeapGraphBuilder } from '../../../../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../../../../shared/graph/metadata.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { CancellationSource } from '../../../../../shared/util/cancellation.js';
import { mulberry32, randomGraph } from '../../../../helpers/random-graph.js';
import { concat, fixtureBytes, GCDUMP_FIXTURES } from './gcdump-test-utils.js';

// The node blob decoded on two threads (node-blob-decoder.ts, blob-split.ts) must give the graph
// of a one-thread read bit for bit: every column byte for byte, the problems, the metadata.
// The "second thread" here runs in-process on a structured clone of the request, as a worker gets it.

interface Calls {
  requests: BlobPartRequest[];
  cancels: number;
}

function inProcess(bytes: Uint8Array, calls: Calls, behave: 'ok' | 'fail' | 'hang' = 'ok'): StretchReader {
  const cf = (() => {
    throw new Error('not a CF log');
  }) as unknown as StretchReader;
  const blob: BlobPartReader = (req, token) => {
    calls.requests.push(req);
    const clone = structuredClone(req);
    const result =
      behave === 'fail'
        ? Promise.reject(new Error('helper thread died'))
        : behave === 'hang'
          ? new Promise<never>(() => {})
          : decodeBlobPart(new MemoryByteSource(bytes, 'ignored-name'), clone, token);
    return { result, cancel: () => void calls.cancels++ };
  };
  cf.gcdumpBlob = blob;
  return cf;
}

function bytesOf(col: ArrayBufferView): Buffer {
  return Buffer.from(col.buffer, col.byteOffset, col.byteLength);
}

/** Every column byte for byte, and everything else the graph holds. */
function expectIdentical(a: HeapGraph, b: HeapGraph): void {
  expect(a.nodeCount).toBe(b.nodeCount);
  expect(a.edgeCount).toBe(b.edgeCount);
  expect(a.rootIndex).toBe(b.rootIndex);
  expect(a.totalSize).toBe(b.totalSize);
  for (const col of ['nodeType', 'selfSize', 'firstEdge', 'edgeTarget', 'address', 'nodeFlags', 'generation'] as const) {
    expect(bytesOf(a[col]).equals(bytesOf(b[col])), col).toBe(true);
  }
  expect(a.types.names).toEqual(b.types.names);
  expect(a.types.modules).toEqual(b.types.modules);
  expect(bytesOf(a.types.sizes).equals(bytesOf(b.types.sizes))).toBe(true);
  expect(a.hasGenerationData).toBe(b.hasGenerationData);
  expect(a.metadata).toEqual(b.metadata);
  expect(a.problems.entries).toEqual(b.problems.entries);
  expect(a.problems.counts).toEqual(b.problems.counts);
}

async function split(bytes: Uint8Array, opts: GcdumpReadOptions, calls: Calls = { requests: [], cancels: 0 }, behave: 'ok' | 'fail' = 'ok'): Promise<HeapGraph> {
  return readGcdump(new MemoryByteSource(bytes, 'x.gcdump'), { ...opts, stretchReader: inProcess(bytes, calls, behave) });
}

/** A copy of `g` with every 5th object undescribed, and (emptyEvery) some objects without references. */
function withHolesAndLeaves(g: HeapGraph, emptyEvery = 3): HeapGraph {
  const b = new HeapGraphBuilder();
  for (let t = 1; t < g.types.count; t++) b.addType(g.types.names[t], g.types.modules[t], g.types.sizes[t]);
  b.createNodes(g.nodeCount);
  for (let v = 0; v < g.nodeCount; v++) {
    if (v > 4 && v % 5 === 2) continue;
    const n = v > 4 && v % emptyEvery === 0 ? 0 : g.firstEdge[v + 1] - g.firstEdge[v];
    b.setNode(v, g.nodeType[v], g.selfSize[v], g.edgeTarget, g.firstEdge[v], n);
  }
  b.setRoot(g.rootIndex);
  return b.finish(emptyMetadata('synthetic'));
}

describe('two-thread node blob decode', () => {
  it.each(GCDUMP_FIXTURES)('%s: identical to one thread at every kind of split', async (name) => {
    const bytes = fixtureBytes(name);
    if (!bytes) return; // fixtures are optional in a fresh clone (fixtures.ts says where they live)
    const whole = await readGcdump(new MemoryByteSource(bytes, 'x.gcdump'));
    let described = 0;
    for (let i = 0; i < whole.nodeCount; i++) if ((whole.nodeFlags[i] & 2) === 0) described++;
    for (const at of [0, 1, 2, described >> 2, described >> 1, described - 1, described]) {
      for (const chunkSize of [undefined, 4096]) {
        for (const sharedMemory of [false, true]) {
          const calls: Calls = { requests: [], cancels: 0 };
          const got = await split(bytes, { splitAtVisit: at, chunkSize, sharedMemory }, calls);
          expect(calls.requests.length).toBe(1);
          expect(calls.requests[0].from).toBe(Math.min(at, calls.requests[0].to));
          // the builder's own columns go to the part when they are shared
          expect(calls.requests[0].into !== undefined).toBe(sharedMemory);
          expectIdentical(got, whole);
        }
      }
    }
    // the default split (the blob's middle), with the size threshold lowered
    const calls: Calls = { requests: [], cancels: 0 };
    expectIdentical(await split(bytes, { splitMinBlobBytes: 1 }, calls), whole);
    expect(calls.requests.length).toBe(1);
    expect(calls.cancels).toBe(1);
  });

  it('synthetic graphs of 1, 2, 3, 50 and 2000 nodes, in and out of index order, split after every record', async () => {
    const rnd = mulberry32(11);
    let splits = 0;
    let direct = 0;
    for (const [nodes, holes] of [[1, true], [2, true], [3, true], [50, true], [2000, true], [50, false], [2000, false]] as const) {
      const plain = randomGraph(nodes, { nodes, types: 4, avgDegree: 5 });
      const g = holes ? withHolesAndLeaves(plain) : plain;
      const shuffled = Uint32Array.from({ length: g.nodeCount }, (_, i) => i).sort(() => rnd() - 0.5);
      for (const recordOrder of [undefined, shuffled]) {
        const bytes = concat(writeGcdump(g, { recordOrder }));
        const whole = await readGcdump(new MemoryByteSource(bytes, 'x.gcdump'));
        const step = nodes > 100 ? 97 : 1;
        for (let at = 0; at <= nodes + 1; at += step) {
          for (const chunkSize of [16, 1 << 20]) {
            for (const sharedMemory of [false, true]) {
              const calls: Calls = { requests: [], cancels: 0 };
              expectIdentical(await split(bytes, { splitAtVisit: at, chunkSize, sharedMemory }, calls), whole);
              expect(calls.requests[0].into !== undefined).toBe(sharedMemory);
              // (a shuffle of one to three nodes may leave them in order)
              if (calls.requests[0].into && calls.requests[0].order) direct++;
              splits++;
            }
          }
        }
      }
    }
    expect(splits).toBe(2 * 2 * 2 * (3 + 4 + 5 + 52 + 21 + 52 + 21));
    // shared columns written by the part with records out of node order: a quarter of the splits, less the shuffles of 1–3 nodes that stayed in order
    expect(direct).toBeGreaterThanOrEqual(splits / 4 - 2 * 2 * (3 + 4 + 5));
  });

  it('splits at the first record at or past the middle of the blob, never inside one (a big record spans the middle)', async () => {
    // 41 objects: the 20th holds 3000 references, so its record covers the middle of the blob
    const b = new HeapGraphBuilder();
    const t = b.addType('T', 'm.dll', 24);
    b.createNodes(42);
    b.setRoot(41);
    for (let v = 0; v < 41; v++) b.setNode(v, t, 24, v === 20 ? Array.from({ length: 3000 }, (_, i) => i % 41) : [(v + 1) % 41]);
    b.setNode(41, t, 0, Array.from({ length: 41 }, (_, i) => i));
    const g = b.finish(emptyMetadata('synthetic'));
    const bytes = concat(writeGcdump(g));
    const calls: Calls = { requests: [], cancels: 0 };
    const got = await split(bytes, { splitMinBlobBytes: 1, chunkSize: 64 }, calls);
    expectIdentical(got, await readGcdump(new MemoryByteSource(bytes, 'x.gcdump')));
    const req = calls.requests[0];
    const middle = Math.floor(req.blobLength / 2);
    expect(req.offsets[20]).toBeLessThan(middle);
    expect(req.offsets[21]).toBeGreaterThan(middle); // node 20's record spans the middle: the split is after it
    expect(req.order).toBeNull();
    expect([req.from, req.firstNode, req.to]).toEqual([21, 21, 42]);
    expect(got.firstEdge[21] - got.firstEdge[20]).toBe(3000);
  });

  it('a part with nothing to report is marked clean (copied to the builder in bulk); one with a type past the table is not', async () => {
    const bytes = concat(writeGcdump(randomGraph(12, { nodes: 700, types: 4, avgDegree: 3 })));
    const calls: Calls = { requests: [], cancels: 0 };
    await split(bytes, { splitAtVisit: 350 }, calls);
    const req = { ...calls.requests[0], name: 'x.gcdump' };
    const part = await decodeBlobPart(new MemoryByteSource(bytes), req);
    expect(part.clean).toBe(true);
    expect(part.type.length).toBe(req.to - req.from);
    expect(part.children.length).toBe(part.count.reduce((a, b) => a + b, 0));
    const fewerTypes = await decodeBlobPart(new MemoryByteSource(bytes), { ...req, typeSizes: req.typeSizes.subarray(0, 2) });
    expect(fewerTypes.clean).toBe(false);
  });

  it('progress never goes back while both threads report (every report let through)', async () => {
    const bytes = concat(writeGcdump(randomGraph(13, { nodes: 300_000, types: 5, avgDegree: 3 })));
    let clock = 0;
    const now = vi.spyOn(Date, 'now').mockImplementation(() => (clock += 1000));
    try {
      const seen: number[] = [];
      const calls: Calls = { requests: [], cancels: 0 };
      const reader = inProcess(bytes, calls);
      const inner = reader.gcdumpBlob!;
      // the part reports its bytes as a child worker does, in steps
      reader.gcdumpBlob = (req, token, progress) => {
        const part = inner(req, token, progress);
        progress(5000); // while this thread decodes its half
        return { cancel: part.cancel, result: part.result.then((p) => (progress(9000), p)) };
      };
      await readGcdump(new MemoryByteSource(bytes, 'x.gcdump'), { splitAtVisit: 150_000, chunkSize: 4096, stretchReader: reader, progress: (_p, done) => seen.push(done) });
      expect(calls.requests.length).toBe(1);
      // the node blob's reports (the one-thread reader's earlier look-ahead reads jump about already)
      const { blobStart, blobLength } = calls.requests[0];
      const from = seen.findIndex((d) => d > blobStart && d < blobStart + blobLength);
      let to = seen.findIndex((d, i) => i > from && d >= blobStart + blobLength);
      if (to < 0) to = seen.length;
      const blob = seen.slice(from, to + 1);
      expect(blob.length).toBeGreaterThan(3);
      const back = blob.findIndex((d, i) => i > 0 && d < blob[i - 1]);
      expect(back, `went back at report ${back}: ${blob.slice(Math.max(0, back - 2), back + 2).join(', ')}`).toBe(-1);
      expect(seen[seen.length - 1]).toBe(bytes.length);
    } finally {
      now.mockRestore();
    }
  });

  it('one thread below the size threshold (no second thread started)', async () => {
    const bytes = concat(writeGcdump(randomGraph(3, { nodes: 500, types: 3, avgDegree: 3 })));
    const calls: Calls = { requests: [], cancels: 0 };
    await split(bytes, {}, calls);
    expect(calls.requests.length).toBe(0);
  });

  it('a failed second thread: its part is decoded here, same graph', async () => {
    const g = withHolesAndLeaves(randomGraph(9, { nodes: 800, types: 5, avgDegree: 4 }));
    for (const recordOrder of [undefined, Uint32Array.from({ length: g.nodeCount }, (_, i) => g.nodeCount - 1 - i)]) {
      const bytes = concat(writeGcdump(g, { recordOrder }));
      const calls: Calls = { requests: [], cancels: 0 };
      expectIdentical(await split(bytes, { splitAtVisit: 300 }, calls, 'fail'), await readGcdump(new MemoryByteSource(bytes, 'x.gcdump')));
      expect(calls.requests.length).toBe(1);
    }
  });

  it('damage in the second half: the same coded error as one thread, from either side', async () => {
    const g = randomGraph(4, { nodes: 600, types: 3, avgDegree: 4 });
    const bytes = concat(writeGcdump(g));
    const calls: Calls = { requests: [], cancels: 0 };
    await split(bytes, { splitAtVisit: 300 }, calls);
    const req = calls.requests[0];
    // node 450's child count becomes a 4-byte claim of 2^21 children (0x81 0x80 0x80 0x00)
    let at = req.blobStart + req.offsets[450];
    const head = decodeCompressedInt(bytes, at);
    at = head.value & 1 ? decodeCompressedInt(bytes, head.end).end : head.end;
    const bad = bytes.slice();
    bad.set([0x81, 0x80, 0x80, 0x00], at);
    const one = await readGcdump(new MemoryByteSource(bad, 'x.gcdump')).catch((e: unknown) => e);
    expect(one).toBeInstanceOf(FormatError);
    expect((one as FormatError).code).toBe('format/corrupt');
    expect((one as FormatError).message).toContain('node 450 claims 2097152 children, more than the blob can hold');
    const two = await split(bad, { splitAtVisit: 300 }).catch((e: unknown) => e);
    expect(two).toBeInstanceOf(FormatError);
    expect((two as FormatError).message).toBe((one as FormatError).message);
    // the second thread's own error says the same
    const named = { ...req, name: 'x.gcdump' };
    const theirs = await decodeBlobPart(new MemoryByteSource(bad), named).catch((e: unknown) => e);
    expect((theirs as FormatError).message).toBe((one as FormatError).message);
  });

  it("a part written into the builder's shared columns with something to report: decoded again here, same graph and problems as one thread", async () => {
    const g = randomGraph(14, { nodes: 600, types: 3, avgDegree: 4 });
    const bytes = concat(writeGcdump(g));
    const calls: Calls = { requests: [], cancels: 0 };
    await split(bytes, { splitAtVisit: 300, sharedMemory: true }, calls);
    const req = calls.requests[0];
    expect(req.into).toBeDefined();
    const bad = bytes.slice();
    // node 450: type 31 of 3 (its one-byte typeAndSize keeps its size flag)
    const typeAt = req.blobStart + req.offsets[450];
    expect(bad[typeAt] & 0xc0).toBe(0);
    bad[typeAt] = 0x3e | (bad[typeAt] & 1);
    // node 500: its first reference made to point thousands of nodes past the last one (the first
    // byte of its delta gets the largest positive value bits, the int keeps its length)
    let at = req.blobStart + req.offsets[500];
    const head = decodeCompressedInt(bad, at);
    at = head.value & 1 ? decodeCompressedInt(bad, head.end).end : head.end;
    const count = decodeCompressedInt(bad, at);
    expect(count.value).toBeGreaterThan(0);
    bad[count.end] = (bad[count.end] & 0x80) | 0x3f;
    const one = await readGcdump(new MemoryByteSource(bad, 'x.gcdump'));
    expect(one.problems.counts['unknown-type']).toBe(1);
    expect(one.problems.counts['dangling-reference']).toBe(1);
    const calls2: Calls = { requests: [], cancels: 0 };
    expectIdentical(await split(bad, { splitAtVisit: 300, sharedMemory: true }, calls2), one);
    expect(calls2.requests[0].into).toBeDefined();
  });

  it('a file cut in the middle of the blob: a coded error, with or without the second thread', async () => {
    const bytes = concat(writeGcdump(randomGraph(5, { nodes: 2000, types: 3, avgDegree: 4 })));
    const calls: Calls = { requests: [], cancels: 0 };
    await split(bytes, { splitAtVisit: 1000 }, calls);
    const req = calls.requests[0];
    const cut = bytes.subarray(0, req.blobStart + (req.blobLength >> 1));
    const one = (await readGcdump(new MemoryByteSource(cut, 'x.gcdump')).catch((e: unknown) => e)) as FormatError;
    const two = (await split(cut, { splitAtVisit: 1000 }).catch((e: unknown) => e)) as FormatError;
    expect(one).toBeInstanceOf(FormatError);
    expect(one.code).toBe('format/corrupt');
    expect(two.message).toBe(one.message);
  });

  it('cancelled while the second thread runs: CancelledError, and the thread is stopped', async () => {
    const bytes = concat(writeGcdump(randomGraph(6, { nodes: 3000, types: 3, avgDegree: 4 })));
    const source = new CancellationSource();
    const calls: Calls = { requests: [], cancels: 0 };
    const reader = inProcess(bytes, calls, 'hang');
    const hanging = reader.gcdumpBlob!;
    reader.gcdumpBlob = (req, token, progress) => {
      const part = hanging(req, token, progress);
      source.cancel('user closed the tab');
      // as childStretchReader does: a cancelled token rejects the part
      return { result: Promise.reject(new CancelledError('user closed the tab')), cancel: part.cancel };
    };
    const err = await readGcdump(new MemoryByteSource(bytes, 'x.gcdump'), { splitAtVisit: 1500, stretchReader: reader, token: source.token }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledError);
    expect(calls.requests.length).toBe(1);
    expect(calls.cancels).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../../../shared/errors.js';
import { readGcdump } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import { NODE_PSEUDO } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { children } from './gcdump-test-utils.js';
import { currentFile, StreamWriter } from './hand-built-stream.js';

const read = (bytes: Uint8Array) => readGcdump(new MemoryByteSource(bytes, 'hand.gcdump'));
async function failure(bytes: Uint8Array): Promise<FormatError> {
  const e = await read(bytes).then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(FormatError);
  return e as FormatError;
}

describe('FastSerialization container and GCHeapDump versions (hand-built streams)', () => {
  it('reads the tiny current-layout file', async () => {
    const g = await read(currentFile());
    expect([g.nodeCount, g.edgeCount, g.totalSize, g.rootIndex]).toEqual([3, 3, 56, 0]);
    expect([children(g, 0), children(g, 1), children(g, 2)]).toEqual([[1, 2], [2], []]);
    expect(Array.from(g.selfSize)).toEqual([0, 24, 32]);
    expect(Array.from(g.address)).toEqual([0n, 0x1000n, 0x2000n]);
    expect(Array.from(g.nodeFlags)).toEqual([NODE_PSEUDO, 0, 0]);
    expect(g.types.names).toEqual(['UNDEFINED', '[.NET Roots]', 'Foo']);
    expect(g.types.modules).toEqual([null, null, 'foo.dll']);
    const m = g.metadata;
    expect([m.formatVersion, m.creationTool, m.pointerSize, m.processName, m.processId, m.machineName, m.collectionLog]).toEqual(['GCHeapDump v10', 'unit-test', 8, 'app', 77, 'HOST', 'log']);
    expect([m.totalProcessCommit, m.totalProcessWorkingSet, m.timeCollected]).toEqual([1000, 2000, '2015-01-05T10:48:40.375']);
    expect(g.problems.total).toBe(0);
  });

  it('skips fields of newer writers: tagged values, nested unknown objects, skip regions', async () => {
    const bytes = currentFile({
      tail: (w) => {
        w.bytes(0x0a, 1, 0, 0, 0); // tagged Int32
        w.bytes(0x0b, 1, 2, 3, 4, 5, 6, 7, 8); // tagged Int64
        w.bytes(0x09, 1, 2, 0x08, 1, 0x01); // Int16, Byte, NullReference
        w.bytes(0x0d);
        w.s.string('future field');
        w.bytes(4);
        w.typeDesc('Future.Thing', 3, 0);
        w.bytes(0x0a, 5, 0, 0, 0, 6); // its tagged body, EndObject
        w.bytes(0x0c);
        w.s.i32(1); // SkipRegion over raw bytes an old reader cannot parse
        w.bytes(0xff, 0x00, 0xee);
        w.forward[1] = w.offset;
        w.bytes(0x0e);
        w.s.i32(2);
        w.bytes(0x00, 0xff); // Blob
      },
    });
    const g = await read(bytes);
    expect([g.nodeCount, g.metadata.creationTool]).toEqual([3, 'unit-test']);
  });

  it('resolves a ForwardReference through the table at the end, and an ObjectReference to a type', async () => {
    const g = await read(forwardReferenceFile());
    expect(g.metadata.segments).toEqual([
      { start: 0x1000n, end: 0x3000n, gen0End: 0x3000n, gen1End: 0x2800n, gen2End: 0x2000n, gen3End: 0n, gen4End: 0n },
      { start: 0x8000n, end: 0x9000n, gen0End: 0n, gen1End: 0n, gen2End: 0n, gen3End: 0x9000n, gen4End: 0n },
    ]);
    expect(g.metadata.extra.sizeOfAllSegments).toBe(0x3000);
    expect(Array.from(g.generation)).toEqual([255, 2, 1]); // 0x1000 in gen2, 0x2000 in gen1
    expect(g.metadata.pointerSize).toBe(4); // tagged Is64Bit false wins over the legacy true
    expect(g.metadata.creationTool).toBeNull();
    expect(g.problems.total).toBe(0);
  });

  it.each([
    [4, 4],
    [5, 4],
    [6, 4],
    [7, 8],
  ])('reads legacy GCHeapDump v%i (pointer size %i)', async (version, pointerSize) => {
    const w = new StreamWriter();
    w.bytes(4);
    w.typeDesc('GCHeapDump', version, 0);
    w.memoryGraph({ is64Tag: null });
    w.s.i64(0x5000); // SizeOfAllSegments
    w.s.i64(56);
    w.s.i64(3);
    w.bytes(1);
    if (version >= 5) {
      w.s.string('legacy log');
      w.s.i64Big(0n);
      w.s.string('M');
      w.s.string('P');
      w.s.i32(9);
      w.s.i64(1);
      w.s.i64(2);
    }
    if (version >= 6) {
      w.s.i32(2);
      const t = w.segment([0x1000n, 0x3000n, 0x3000n, 0x2800n, 0x2000n, 0n], 0);
      w.segment([0x8000n, 0x9000n, 0n, 0n, 0n, 0x9000n], 0, t);
    }
    if (version >= 7) w.bytes(1);
    w.bytes(6);
    const g = await read(w.finish());
    expect(g.nodeCount).toBe(3);
    const m = g.metadata;
    expect(m.formatVersion).toBe(`GCHeapDump v${version}`);
    expect(m.pointerSize).toBe(pointerSize);
    expect(m.extra.sizeOfAllSegments).toBe(0x5000);
    expect(m.processName).toBe(version >= 5 ? 'P' : null);
    expect(m.processId).toBe(version >= 5 ? 9 : 0);
    expect(m.segments?.length ?? 0).toBe(version >= 6 ? 2 : 0);
    expect(g.hasGenerationData).toBe(version >= 6);
  });

  it.each([
    [8, 8, 'unsupported GCHeapDump version 8'],
    [3, 0, 'unsupported GCHeapDump version 3'],
    [11, 11, 'needs a reader of version 11'],
  ])('refuses GCHeapDump v%i (minimum reader %i)', async (version, dumpMinReader, message) => {
    const e = await failure(currentFile({ version, dumpMinReader }));
    expect(e.code).toBe('format/unsupported-version');
    expect(e.message).toContain(message);
  });

  it('reads a future v11 that older readers may read (min reader 8)', async () => {
    const g = await read(currentFile({ version: 11, dumpMinReader: 8 }));
    expect(g.metadata.formatVersion).toBe('GCHeapDump v11');
  });

  it('refuses a MemoryGraph that needs a newer reader', async () => {
    expect((await failure(currentFile({ minReader: 2 }))).code).toBe('format/unsupported-version');
  });

  it('names deferred types from the DeferedRegion and skips its trailing marker', async () => {
    const bytes = currentFile({
      minReader: 1,
      fooName: null,
      fooModule: null,
      deferred: (w) => {
        w.s.i32(1); // forward reference 1 → the first byte after the region
        w.s.i32(3);
        for (let i = 0; i < 3; i++) {
          w.s.i32(i === 2 ? 0x2a : 0);
          if (i === 2) {
            w.bytes(4);
            w.typeDesc('Graphs.Module', 0, 0);
            w.s.string('/native/app.so');
            w.s.u64(0x400000n);
            w.s.i64(4096);
            w.s.i64(0);
            w.s.string(null);
            for (let k = 0; k < 20; k++) w.bytes(0);
            w.bytes(6);
          } else w.bytes(1);
          w.s.string(i === 2 ? ' (static var)' : null);
        }
        w.bytes(6); // the producer's tagged end marker, not an EndObject
        w.forward[1] = w.offset;
      },
    });
    const g = await read(bytes);
    expect(g.types.names[2]).toBe('TypeID(0x2a)');
    expect(g.types.modules[2]).toBe('/native/app.so');
    expect(g.nodeCount).toBe(3);
  });

  it('reports damaged data as problems, not errors', async () => {
    const g = await read(currentFile({ node1Children: [2, 50], totalSize: 99 }));
    expect(g.problems.counts).toEqual({ 'dangling-reference': 1, 'size-mismatch': 1 });
    expect(children(g, 1)).toEqual([2]);
  });

  it('keeps the graph when only the forward table at the end is damaged', async () => {
    const bytes = currentFile();
    bytes.fill(0, bytes.length - 4);
    const g = await read(bytes);
    expect(g.nodeCount).toBe(3);
    expect(g.problems.counts).toEqual({ truncated: 1 });
  });

  it.each([
    ['empty file', new Uint8Array(0), 'format/bad-magic'],
    ['text', new TextEncoder().encode('this is not a heap dump, just some text that is long enough'), 'format/bad-magic'],
  ])('rejects %s', async (_, bytes, code) => {
    expect((await failure(bytes)).code).toBe(code);
  });

  it('rejects structural damage with a coded error and an offset', async () => {
    for (const r of [7, 3, -1]) {
      const root = await failure(currentFile({ root: r }));
      expect(root.code).toBe('format/corrupt');
      expect(root.message).toContain(`root index ${r} is not one of the 3 nodes`);
    }
    const full = currentFile();
    const cut = await failure(full.subarray(0, 150));
    expect(cut.code).toBe('format/truncated');
    expect(cut.message).toMatch(/hand\.gcdump ended inside the (type table|node table|node blob|MemoryGraph header) at offset 150/);
    expect(typeof cut.detail?.offset).toBe('number');
  });

  it('rejects a hostile node count before allocating', async () => {
    const bytes = currentFile();
    // The node count follows the type table; find it by its value 3 right before the offsets 2, 6.
    const at = findI32Sequence(bytes, [3, 2, 6]);
    new DataView(bytes.buffer).setInt32(at, 0x7fffffff, true);
    const e = await failure(bytes);
    expect(e.code).toBe('format/corrupt');
    expect(e.message).toContain('node count 2147483647 cannot fit');
  });

  it('rejects overlapping node records and reference cycles', async () => {
    const bytes = currentFile();
    const at = findI32Sequence(bytes, [3, 2, 6]);
    new DataView(bytes.buffer).setInt32(at + 8, 3, true); // node 1 starts inside node 0's record
    expect((await failure(bytes)).message).toContain('overlaps');

    const w = new StreamWriter();
    const self = w.offset;
    w.bytes(4, 2);
    w.s.u32(self); // an object whose type is itself
    expect((await failure(w.finish())).message).toMatch(/nested too deeply/);
  });
});

function findI32Sequence(bytes: Uint8Array, values: number[]): number {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  for (let i = 0; i + 4 * values.length <= bytes.length; i++) {
    if (values.every((v, k) => dv.getInt32(i + 4 * k, true) === v)) return i;
  }
  throw new Error('sequence not found');
}

/** The ForwardReference test file, built with its forward-defined DotNetHeapInfo. */
function forwardReferenceFile(): Uint8Array {
  const w = new StreamWriter();
  w.bytes(4);
  w.typeDesc('GCHeapDump', 10, 8);
  w.memoryGraph({ is64Tag: false });
  let typeLabel = 0;
  w.currentFields({
    heapInfo: () => {
      w.bytes(3);
      w.s.i32(0); // forward reference 0, then the type reference: an inline descriptor
      typeLabel = w.typeDesc('DotNetHeapInfo', 0, 0);
    },
  });
  w.bytes(6);
  w.forward[0] = w.offset;
  w.bytes(7);
  w.s.i32(0);
  w.bytes(4, 2);
  w.s.u32(typeLabel);
  w.s.i64(0x3000);
  w.s.i32(2);
  const seg = w.segment([0x1000n, 0x3000n, 0x3000n, 0x2800n, 0x2000n, 0n, 0n], 1);
  w.segment([0x8000n, 0x9000n, 0n, 0n, 0n, 0x9000n, 0n], 1, seg);
  w.bytes(6);
  return w.finish();
}

import { describe, expect, it } from 'vitest';
import { describePath } from '../../../../../shared/analysis/paths-to-roots.js';
import { AppError } from '../../../../../shared/errors.js';
import { dumpRecordsToGraph, readDumpStream } from '../../../../../shared/formats/dump/dump-graph.js';
import { decodeDumpStream } from '../../../../../shared/formats/dump/dump-stream.js';
import { edgeFieldNameOf, NODE_PINNED, NODE_PSEUDO, NODE_WEAK_EDGES, type HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../../helpers/dump-stream-writer.js';
import { codeOf } from '../../../../helpers/error-code.js';

const read = (bytes: Uint8Array): Promise<HeapGraph> => readDumpStream(new MemoryByteSource(bytes, 'test.stream'));

const C_ADDR = 0x7f00_0000_3000n;

/** Three objects (one above 2^32), every root kind the tree has, a dependent handle, dangling bits. */
function handBuilt(): DumpStreamWriter {
  const w = new DumpStreamWriter();
  w.info('pointerSize', '8').info('clrVersion', '10.0.12').info('processId', '42');
  w.type(0, 'Foo', 'app.dll').type(1, 'Bar[]').type(2, 'Baz');
  w.object(0x1000, 0, 24, 0, [
    [0x2000, 'next'],
    [C_ADDR, 'other'],
  ]);
  w.object(0x2000, 1, 40, 2, [
    [C_ADDR, null],
    [0x9999, null], // no object starts there: dropped, counted
  ]);
  w.object(C_ADDR, 2, 100_000, 3);
  w.root(0, '[thread 1 (OS 0x10)]', 'Main()', 0x1000);
  w.root(1, 'App', 'Cache', 0x2000);
  w.root(8, null, null, C_ADDR);
  w.root(4, null, null, 0x2000);
  w.root(9, null, null, C_ADDR);
  w.root(3, null, null, 0x5555); // no such object
  w.dependent(0x1000, C_ADDR);
  w.dependent(0x4444, 0x2000); // key is no object: the value stays a root
  return w;
}

function rows(g: HeapGraph): string[] {
  const out: string[] = [];
  for (let n = 0; n < g.nodeCount; n++) {
    const kids: string[] = [];
    for (let e = g.firstEdge[n]; e < g.firstEdge[n + 1]; e++) kids.push(`${g.edgeTarget[e]}${edgeFieldNameOf(g, e) ? ':' + edgeFieldNameOf(g, e) : ''}`);
    out.push(`${n} ${g.types.names[g.nodeType[n]]} -> ${kids.join(' ')}`);
  }
  return out;
}

describe('dump stream decoder', () => {
  it('turns a hand-built stream into the exact graph: nodes, field names, root categories, flags', async () => {
    const g = await read(handBuilt().end().finish());
    expect(rows(g)).toEqual([
      '0 Foo -> 1:next 2:other 2:(dependent handle)',
      '1 Bar[] -> 2',
      '2 Baz -> ',
      '3 [.NET Roots] -> 4 7 9 10',
      '4 [local vars] -> 5',
      '5 [thread 1 (OS 0x10)] -> 6',
      '6 [Main()] -> 0',
      '7 [static vars] -> 8',
      '8 [static var App.Cache] -> 1',
      '9 [weak Handles] -> 2',
      '10 [other roots] -> 11 12 13',
      '11 [pinning Handles] -> 1',
      '12 [finalizer queue] -> 2',
      '13 [Dependent Handles] -> 1',
    ]);
    expect(g.rootIndex).toBe(3);
    expect(g.edgeCount).toBe(20);
    expect(g.totalSize).toBe(100_064);
    expect([...g.address.subarray(0, 4)]).toEqual([0x1000n, 0x2000n, C_ADDR, 0n]);
    expect([...g.generation.subarray(0, 4)]).toEqual([0, 2, 3, 255]);
    expect(g.hasGenerationData).toBe(true);
    expect(g.nodeFlags[1] & NODE_PINNED).toBe(NODE_PINNED);
    expect(g.nodeFlags[0] & NODE_PINNED).toBe(0);
    expect(g.nodeFlags[9]).toBe(NODE_PSEUDO | NODE_WEAK_EDGES);
    expect(g.nodeFlags[10]).toBe(NODE_PSEUDO);
    expect(g.types.modules[0]).toBe('app.dll');
    expect(g.metadata.format).toBe('dump');
    expect(g.metadata.pointerSize).toBe(8);
    expect(g.metadata.processId).toBe(42);
    expect(g.metadata.extra.clrVersion).toBe('10.0.12');
    expect(g.problems.counts['dangling-reference']).toBe(2);
  });

  it('rejects every cut-off prefix with format/truncated', async () => {
    const full = handBuilt().end().finish();
    const codes = new Set<string>();
    for (let len = 0; len < full.length; len++) codes.add(await codeOf(read(full.subarray(0, len))));
    expect([...codes]).toEqual(['format/truncated']);
  });

  it('survives hostile counts and broken rules with one coded error each', async () => {
    // A reference count of 2^32 − 1 with two references behind it: runs into the end, allocates nothing up front.
    const many = new DumpStreamWriter();
    many.type(0, 'T');
    many.u8(0x04).u64(0x10).u32(0).u64(8).u8(0).u32(0xffffffff).u64(0x10).u32(0xffffffff).u64(0x10).u32(0xffffffff);
    expect(await codeOf(read(many.finish()))).toBe('format/truncated');

    const longString = new DumpStreamWriter().u8(0x01).u32(0).u32(0x7fffffff);
    expect(await codeOf(read(longString.finish()))).toBe('format/corrupt');

    const stringGap = new DumpStreamWriter().u8(0x01).u32(5).u32(0);
    expect(await codeOf(read(stringGap.finish()))).toBe('format/corrupt');

    const badType = new DumpStreamWriter();
    badType.type(0, 'T');
    badType.u8(0x04).u64(0x10).u32(7).u64(8).u8(0).u32(0);
    expect(await codeOf(read(badType.end(1, 0, 0).finish()))).toBe('format/corrupt');

    const descending = new DumpStreamWriter();
    descending.type(0, 'T').object(0x20, 0, 8, 0).object(0x10, 0, 8, 0);
    expect(await codeOf(read(descending.end().finish()))).toBe('format/corrupt');

    const wrongEnd = new DumpStreamWriter();
    wrongEnd.type(0, 'T').object(0x10, 0, 8, 0);
    expect(await codeOf(read(wrongEnd.end(2, 0, 0).finish()))).toBe('format/corrupt');

    const trailing = new DumpStreamWriter();
    trailing.type(0, 'T').object(0x10, 0, 8, 0).root(3, null, null, 0x10).end().u8(0);
    expect(await codeOf(read(trailing.finish()))).toBe('format/corrupt');

    expect(await codeOf(read(new DumpStreamWriter().u8(0x33).finish()))).toBe('format/corrupt');
    expect(await codeOf(read(new DumpStreamWriter('GCDUMP01').end().finish()))).toBe('format/bad-magic');
    // A stream with no objects is no graph.
    expect(await codeOf(read(new DumpStreamWriter().end().finish()))).toBe('format/corrupt');
  });

  it('passes the helper\'s ERROR record on as its coded error (unknown codes: dump/helper-crashed)', async () => {
    const dac = new DumpStreamWriter().error('dump/dac-missing', 'cannot load libmscordaccore.so', 'libmscordaccore.so');
    const e = await read(dac.finish()).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe('dump/dac-missing');
    expect((e as AppError).detail?.file).toBe('libmscordaccore.so');
    expect(await codeOf(read(new DumpStreamWriter().error('dump/no-clr', 'no runtime').finish()))).toBe('dump/no-clr');
    expect(await codeOf(read(new DumpStreamWriter().error('weird/thing', 'boom').finish()))).toBe('dump/helper-crashed');
  });

  it('describePath names the holding field of each step (none for array elements and root edges)', async () => {
    const g = await read(handBuilt().end().finish());
    // [.NET Roots] → [local vars] → [thread …] → [Main()] → Foo -next→ Bar[] -(element)→ Baz
    const p = describePath(g, [3, 4, 5, 6, 0, 1, 2]);
    expect(p.steps.map((s) => s.field ?? null)).toEqual([null, null, null, null, null, 'next', null]);
    // Foo holds Baz twice (field `other`, and the dependent handle): the first reference names it.
    expect(describePath(g, [0, 2]).steps[1].field).toBe('other');
  });

  it('puts thread statics under [thread static vars], one holder per type and field for all threads', async () => {
    const w = new DumpStreamWriter();
    w.type(0, 'System.Threading.Thread').object(0x10, 0, 72, 0).object(0x60, 0, 72, 0);
    w.root(2, 'System.Threading.Thread', 't_currentThread', 0x10).root(2, 'System.Threading.Thread', 't_currentThread', 0x60);
    const g = await read(w.end().finish());
    expect(rows(g)).toEqual([
      '0 System.Threading.Thread -> ',
      '1 System.Threading.Thread -> ',
      '2 [.NET Roots] -> 3',
      '3 [thread static vars] -> 4',
      '4 [static var System.Threading.Thread.t_currentThread] -> 0 1',
    ]);
  });

  it('clamps a size above 32 bits and reports it', async () => {
    const w = new DumpStreamWriter();
    w.type(0, 'Huge').object(0x10, 0, 2n ** 33n, 3).root(3, null, null, 0x10);
    const g = await read(w.end().finish());
    expect(g.selfSize[0]).toBe(0xffffffff);
    expect(g.problems.counts['size-overflow']).toBe(1);
  });

  it('sizes the object and reference columns from INFO smallObjectHeapBytes (capped), with the same graph', async () => {
    // 3,000 objects of 32 bytes, each holding the next: the guess (32 bytes, 2 references per
    // object) fits them without a doubling; without the INFO the columns double from 1,024.
    const stream = (soh: string | null): Uint8Array => {
      const w = new DumpStreamWriter();
      if (soh !== null) w.info('smallObjectHeapBytes', soh);
      w.type(0, 'Node');
      for (let i = 0; i < 3000; i++) w.object(0x1000 + 32 * i, 0, 32, 0, i < 2999 ? [[0x1000 + 32 * (i + 1), 'next']] : []);
      w.root(3, null, null, 0x1000);
      return w.end().finish();
    };
    const decode = (soh: string | null) => decodeDumpStream(new MemoryByteSource(stream(soh), 'test.stream'));
    const plain = await decode(null);
    expect(plain.objectType.buffer.byteLength).toBe(4096 * 4);
    const sized = await decode(String(3000 * 32));
    expect(sized.objectType.buffer.byteLength).toBe(3000 * 4);
    expect(sized.objectAddress.buffer.byteLength).toBe(2 * 3000 * 4);
    expect(sized.referenceTarget.buffer.byteLength).toBe(2 * 2 * 3000 * 4);
    expect(sized.referenceField.buffer.byteLength).toBe(2 * 3000 * 4);
    expect(sized.objectCount).toBe(3000);
    expect(sized.referenceField.length).toBe(2999);
    // A hostile value reserves at most 2^23 objects' worth (address space until written).
    const hostile = await decode('99999999999999999999');
    expect(hostile.objectType.buffer.byteLength).toBe(2 ** 23 * 4);
    // A tiny heap still starts at 1,024 entries.
    expect((await decode('64')).objectType.buffer.byteLength).toBe(4096 * 4);
    const a = dumpRecordsToGraph(plain);
    for (const r of [sized, hostile]) {
      const b = dumpRecordsToGraph(r);
      expect(rows(b)).toEqual(rows(a));
      expect(Array.from(b.selfSize)).toEqual(Array.from(a.selfSize));
      expect(Array.from(b.address)).toEqual(Array.from(a.address));
    }
  });
});

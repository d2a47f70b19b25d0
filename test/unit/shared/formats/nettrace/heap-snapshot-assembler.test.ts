import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../../../shared/errors.js';
import { HeapSnapshotAssembler } from '../../../../../shared/formats/nettrace/heap-snapshot-assembler.js';
import { NetTraceParser } from '../../../../../shared/formats/nettrace/nettrace-parser.js';
import { readNetTraceSnapshot } from '../../../../../shared/formats/nettrace/read-nettrace-snapshot.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { GEN_UNKNOWN, NODE_PINNED, NODE_PSEUDO, NODE_UNDEFINED, NODE_WEAK_EDGES } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { CLR, gcEnd, gcStart } from '../../../../helpers/clr-event-payloads.js';
import type { SyntheticHeap } from '../../../../helpers/heap-trace.js';
import { sampleHeap, writeHeapTrace } from '../../../../helpers/heap-trace.js';
import { NetTraceWriter } from '../../../../helpers/nettrace-writer.js';

const read = (bytes: Uint8Array, opts: Parameters<typeof readNetTraceSnapshot>[1] = {}) => readNetTraceSnapshot(new MemoryByteSource(bytes, 'test.nettrace'), opts);

function rows(g: HeapGraph): string[] {
  const out: string[] = [];
  for (let n = 0; n < g.nodeCount; n++) {
    const kids = Array.from(g.edgeTarget.subarray(g.firstEdge[n], g.firstEdge[n + 1]));
    out.push(`${n} ${g.types.names[g.nodeType[n]]} ${g.selfSize[n]} [${kids.join(',')}]`);
  }
  return out;
}

const CORELIB = '/usr/share/dotnet/System.Private.CoreLib.dll';

describe('HeapSnapshotAssembler: the sample heap, by hand (nettrace-format.md Part C)', () => {
  it('numbers pseudo-nodes in creation order, then objects by address, then other addresses; types as dotnet-gcdump', async () => {
    const g = await read(writeHeapTrace(sampleHeap(), { nodesPerEvent: 2, edgesPerEvent: 2 }));
    // Pseudo-nodes as created: root events make [static vars] 1, [local vars] 2, [other roots] 3
    // and its handle categories 4–6 (weak E skipped); C5 [COM/WinRT Objects] 7; C6 the two
    // static fields 8, 9; our [weak Handles] last (10). Objects A < B < C < D < E are 11–15;
    // the address-0 stack root is the one other address (16).
    expect(rows(g)).toEqual([
      '0 [.NET Roots] 0 [1,2,3,7,10]',
      '1 [static vars] 0 [8,9]',
      '2 [local vars] 0 [11,16]',
      '3 [other roots] 0 [4,5,6]',
      '4 [strong Handles] 0 [12]',
      '5 [pinning Handles] 0 [13]',
      '6 [finalizer Handles] 0 [14]',
      '7 [COM/WinRT Objects] 0 []',
      '8 [static var System.Collections.Generic.Dictionary<System.String,System.Object>.s_dataStore] 0 [11]',
      '9 [static var System.String.s_name] 0 [12]',
      '10 [weak Handles] 0 [15]',
      '11 System.Collections.Generic.Dictionary<System.String,System.Object> 80 [12,13,14]',
      '12 System.String 30 []',
      '13 System.Byte[] (Bytes > 1K) 4120 []',
      '14 App.Node 24 [14,12]',
      '15 App.Node 24 []',
      '16 UNDEFINED 0 []',
    ]);
    expect(g.types.names).toEqual([
      'UNDEFINED',
      'System.String',
      'System.Collections.Generic.Dictionary<System.String,System.Object>',
      'System.Byte[]',
      'App.Node',
      'System.Byte[] (Bytes > 1K)',
      '[.NET Roots]',
      '[static vars]',
      '[static var System.Collections.Generic.Dictionary<System.String,System.Object>.s_dataStore]',
      '[static var System.String.s_name]',
      '[local vars]',
      '[other roots]',
      '[strong Handles]',
      '[pinning Handles]',
      '[finalizer Handles]',
      '[COM/WinRT Objects]',
      '[weak Handles]',
    ]);
    expect(Array.from(g.types.sizes)).toEqual([0, 30, 80, -1, 24, 4120, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(g.types.modules.slice(0, 6)).toEqual([null, CORELIB, CORELIB, CORELIB, 'Module(0x7ff000002000)', CORELIB]);
    expect(g.rootIndex).toBe(0);
    expect(g.edgeCount).toBe(23);
    expect(g.totalSize).toBe(80 + 30 + 4120 + 24 + 24);
    expect(Array.from(g.address.subarray(11, 17), (a) => a - 0x2000_0000_0000n)).toEqual([0x1000n, 0x1040n, 0x1080n, 0x3000n, 0x3100n, -0x2000_0000_0000n]);
    expect(g.nodeFlags[16] & NODE_UNDEFINED).toBe(NODE_UNDEFINED);
    expect(g.nodeFlags[10]).toBe(NODE_PSEUDO | NODE_WEAK_EDGES);
    expect(g.nodeFlags[13] & NODE_PINNED).toBe(NODE_PINNED);
    expect(g.nodeFlags[12] & NODE_PINNED).toBe(0);
    expect(g.problems.counts).toEqual({ 'undefined-node': 1 });
  });

  it('assigns generations from the post-GC generation ranges', async () => {
    const g = await read(writeHeapTrace(sampleHeap()));
    expect(g.hasGenerationData).toBe(true);
    expect(g.metadata.segments).toHaveLength(2);
    expect([11, 12, 13, 14, 15].map((n) => g.generation[n])).toEqual([2, 2, 2, 0, 0]);
    expect(g.generation[0]).toBe(GEN_UNKNOWN);
    expect(g.metadata).toMatchObject({ format: 'nettrace', formatVersion: 'NetTrace v4', processId: 4242, pointerSize: 8 });
    expect(g.metadata.extra).toMatchObject({ gcNumber: 5, objectsInDump: 5, referencesInDump: 5, heapDumpsInTrace: 1 });
  });

  it('drops weak-handle roots with weakRoots: "drop" (dotnet-gcdump exactly)', async () => {
    const g = await read(writeHeapTrace(sampleHeap()), { weakRoots: 'drop' });
    expect(g.nodeCount).toBe(16);
    expect(rows(g)[0]).toBe('0 [.NET Roots] 0 [1,2,3,7]');
    expect(g.types.names).not.toContain('[weak Handles]');
  });

  it('gives the same graph however the events are split, when types come after the GC, and for 32-bit', async () => {
    const ref = rows(await read(writeHeapTrace(sampleHeap())));
    expect(rows(await read(writeHeapTrace(sampleHeap(), { nodesPerEvent: 1, edgesPerEvent: 1 })))).toEqual(ref);
    expect(rows(await read(writeHeapTrace(sampleHeap(), { typesAfterGc: true })))).toEqual(ref);
    const g32 = await read(writeHeapTrace(sampleHeap(4), { pointerSize: 4, nodesPerEvent: 3 }));
    expect(rows(g32)).toEqual(ref);
    expect(g32.metadata.pointerSize).toBe(4);
    expect(g32.address[11]).toBe(0x0200_1000n);
    expect([11, 14].map((n) => g32.generation[n])).toEqual([2, 0]);
  });

  it('skips an induced GC without a heap walk and selects later dumps', async () => {
    const bytes = writeHeapTrace(sampleHeap(), { dumps: 2, inducedGcBefore: true });
    const first = await read(bytes);
    const second = await read(bytes, { select: '1' });
    expect(rows(second)).toEqual(rows(first));
    expect(first.metadata.extra.gcNumber).toBe(6);
    expect(second.metadata.extra.gcNumber).toBe(7);
    await expect(read(bytes, { select: '2' })).rejects.toMatchObject({ code: 'format/no-heap-dump', message: expect.stringContaining('found 2') });
  });

  it('says when a trace has no heap dump, and when a dump never ended', async () => {
    const w = new NetTraceWriter();
    const s = w.defineEvent(CLR, 1, { version: 2 });
    const e = w.defineEvent(CLR, 2, { version: 1 });
    w.event(s, gcStart(1, 0, 0, 0), { timestamp: 10 });
    w.event(e, gcEnd(1, 0), { timestamp: 20 });
    const err = await read(w.finish()).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(FormatError);
    expect(err).toMatchObject({ code: 'format/no-heap-dump', message: 'this trace has no GC heap snapshot (it can still be shown as a GC timeline)' });
    await expect(read(writeHeapTrace(sampleHeap(), { cutAfterNodes: true }))).rejects.toMatchObject({ code: 'format/truncated' });
  });

  it('keeps a dump whose trace was cut after it, with a truncated problem', async () => {
    const g = await read(writeHeapTrace(sampleHeap(), { endMarker: false }));
    expect(g.nodeCount).toBe(17);
    expect(g.problems.counts.truncated).toBe(1);
  });

  it('can be fed event by event from a stream arriving in small pieces', async () => {
    const bytes = writeHeapTrace(sampleHeap());
    const a = new HeapSnapshotAssembler();
    const states: string[] = [];
    const p = new NetTraceParser({ onHeader: (h) => a.setHeader(h), onEvent: (e) => (a.onEvent(e), states.at(-1) !== a.state && states.push(a.state)) }, { sort: true });
    for (let i = 0; i < bytes.length; i += 61) p.push(bytes.subarray(i, i + 61));
    p.end();
    expect(states).toEqual(['waiting', 'collecting', 'complete']);
    expect(rows(a.finish())).toEqual(rows(await read(bytes)));
  });
});

describe('HeapSnapshotAssembler: interop, statics and odd types', () => {
  const MOD = 0x10_0000;
  const heap: SyntheticHeap = {
    modules: [{ id: MOD, path: 'C:\\app\\App.dll' }],
    types: [
      { id: 0x100, module: MOD, name: '', nameId: 0x0200_00ab },
      { id: 0x200, module: MOD, name: '', nameId: 0x0200_00cd, flags: 8 },
      { id: 0x300, module: MOD, name: 'App.ComThing', flags: 4 },
      { id: 0x400, module: MOD, name: 'System.Collections.Generic.List`1[System.Int32][]' },
    ],
    objects: [
      { address: 0x5000, size: 24, type: 0x100, refs: [0x5100] },
      { address: 0x5100, size: 2_000_000, type: 0x200, refs: [] },
      { address: 0x5200, size: 40, type: 0x300, refs: [] },
      { address: 0x5300, size: 48, type: 0x999, refs: [0x5000, 0x5000] },
      { address: 0x5400, size: 3000, type: 0x999, refs: [] },
      { address: 0x5500, size: 64, type: 0x400, refs: [] },
    ],
    roots: [{ address: 0x5300, kind: 3, flags: 0 }],
    statics: [
      { object: 0x5000, type: 0x100, field: 's_a', flags: 1 },
      { object: 0x5500, type: 0x888, field: 's_b' },
      { object: 0x5400, type: 0x100, field: 's_a', flags: 1 },
    ],
    ccws: [
      { object: 0x5000, type: 0x100, iUnknown: 0xc000 },
      { object: 0x5100, type: 0x100, iUnknown: 0 },
    ],
    rcws: [{ object: 0x5200, type: 0x300, iUnknown: 0xd000 }],
    dependent: [
      { key: 0x5000, value: 0x5500 },
      { key: 0, value: 0x5400 },
    ],
  };

  it('builds CCW, RCW, dependent-handle, thread-static and UNKNOWN/bucket types in dotnet-gcdump order', async () => {
    const g = await read(writeHeapTrace(heap), { dependentHandles: 'roots' });
    // Derivation. Pseudo-nodes as created (§C2 root events, C5 CCWs, C6 statics): [static vars] 1;
    // kind 3 → [other roots] 2 / [other Handles] 3; dependent handle → [Dependent Handles] 4 (the
    // key-0 entry is skipped); [COM/WinRT Objects] 5; [thread static vars] 6, its field s_a 7
    // (two objects); s_b (type 0x888 unknown) 8 under [static vars]. Objects 0x5000 … 0x5500 are
    // 9–14; then the other addresses: the CCW's IUnknown 0xc000 (15, described by the CCW,
    // child 0x5000) and the RCW's IUnknown 0xd000 (16, never described). 0x5200 is the RCW
    // (+1000 bytes, child 16).
    expect(rows(g)).toEqual([
      '0 [.NET Roots] 0 [1,2,5,6]',
      '1 [static vars] 0 [8]',
      '2 [other roots] 0 [3,4]',
      '3 [other Handles] 0 [12]',
      '4 [Dependent Handles] 0 [14]',
      '5 [COM/WinRT Objects] 0 [15]',
      '6 [thread static vars] 0 [7]',
      '7 [static var Type(0x20000ab).s_a] 0 [9,13]',
      '8 [static var Type(0x888).s_b] 0 [14]',
      '9 Type(0x20000ab) 24 [10]',
      '10 ArrayType(0x20000cd) (Bytes > 1M) 2000000 []',
      '11 [RCW App.ComThing] 1040 [16]',
      '12 UNKNOWN 0x999 48 [9,9]',
      '13 UNKNOWN 0x999 (Bytes > 1K) 3000 []',
      '14 System.Collections.Generic.List<System.Int32>[] 64 []',
      '15 [CCW 0xc000 for type Type(0x20000ab)] 200 [9]',
      '16 UNDEFINED 0 []',
    ]);
    expect(g.types.names.slice(0, 9)).toEqual([
      'UNDEFINED',
      'Type(0x20000ab)',
      'ArrayType(0x20000cd)',
      '[RCW App.ComThing]',
      'System.Collections.Generic.List<System.Int32>[]',
      '[CCW 0xc000 for type Type(0x20000ab)]',
      'ArrayType(0x20000cd) (Bytes > 1M)',
      'UNKNOWN 0x999',
      'UNKNOWN 0x999 (Bytes > 1K)',
    ]);
    expect(g.types.modules.slice(0, 9)).toEqual([null, 'C:\\app\\App.dll', 'C:\\app\\App.dll', 'C:\\app\\App.dll', 'C:\\app\\App.dll', null, 'C:\\app\\App.dll', null, null]);
    expect(Array.from(g.address.subarray(9))).toEqual([0x5000n, 0x5100n, 0x5200n, 0x5300n, 0x5400n, 0x5500n, 0xc000n, 0xd000n]);
  });
});

describe('HeapSnapshotAssembler: numbering by address when the walk is not in address order', () => {
  const T = 0x7000;
  // Queue order: a run at 0x3000, then a run at 0x1000 (runs out of address order), then
  // 0x1000 again (a second description: the last wins). References to a stray address and to 0.
  const heap = (base: number): SyntheticHeap => ({
    modules: [{ id: 0x10, path: 'a.dll' }],
    types: [{ id: T, module: 0x10, name: 'App.T' }],
    objects: [
      { address: base + 0x3000, size: 24, type: T, refs: [base + 0x1000, base + 0x5000] },
      { address: base + 0x3040, size: 32, type: T, refs: [0] },
      { address: base + 0x1000, size: 40, type: T, refs: [base + 0x3040] },
      { address: base + 0x1040, size: 56, type: T, refs: [] },
      { address: base + 0x1000, size: 48, type: T, refs: [base + 0x1040] },
    ],
    roots: [{ address: base + 0x1040, kind: 0, flags: 0 }],
  });

  it('numbers pseudo-nodes, then objects by address, then other addresses; a second description wins', async () => {
    for (const [P, base] of [[8, 0x2000_0000_0000], [4, 0x0100_0000]] as const) {
      const g = await read(writeHeapTrace(heap(base), { pointerSize: P, nodesPerEvent: 2, edgesPerEvent: 2 }));
      // Pseudo-nodes: root 0, [static vars] 1 and [local vars] 2 (root event), [COM/WinRT Objects] 3.
      // Objects 0x1000, 0x1040, 0x3000, 0x3040 are 4–7; other addresses 0 (8) and base + 0x5000 (9).
      expect(rows(g)).toEqual([
        '0 [.NET Roots] 0 [1,2,3]',
        '1 [static vars] 0 []',
        '2 [local vars] 0 [5]',
        '3 [COM/WinRT Objects] 0 []',
        '4 App.T 48 [5]',
        '5 App.T 56 []',
        '6 App.T 24 [4,9]',
        '7 App.T 32 [8]',
        '8 UNDEFINED 0 []',
        '9 UNDEFINED 0 []',
      ]);
      expect(Array.from(g.address.subarray(4))).toEqual([0x1000, 0x1040, 0x3000, 0x3040, -base, 0x5000].map((a) => BigInt(base + a)));
      expect(g.problems.entries.map((p) => p.message)).toEqual(['node 4 was described twice; the last description wins', '2 nodes are referenced but never described (shown as UNDEFINED, size 0)']);
      expect(g.types.sizes[1]).toBe(24); // a type's size is its first object's in arrival order
    }
  });

  it('stops at the node cap where dotnet-gcdump does: the same objects, numbered by address', async () => {
    const base = 0x2000_0000_0000;
    // dotnet-gcdump's count: 4 pseudo-nodes + the root's object = 5; row 0x3000 touches itself,
    // 0x1000 and 0x5000 (8); row 0x3040 touches itself and 0 (10 ≥ 9): it stops after that row.
    const g = await read(writeHeapTrace(heap(base), { nodesPerEvent: 2 }), { maxNodes: 9 });
    expect(rows(g)).toEqual([
      '0 [.NET Roots] 0 [1,2,3]',
      '1 [static vars] 0 []',
      '2 [local vars] 0 [8]',
      '3 [COM/WinRT Objects] 0 []',
      '4 App.T 24 [7,9]',
      '5 App.T 32 [6]',
      '6 UNDEFINED 0 []',
      '7 UNDEFINED 0 []',
      '8 UNDEFINED 0 []',
      '9 UNDEFINED 0 []',
    ]);
    expect(Array.from(g.address.subarray(4))).toEqual([0x3000, 0x3040, -base, 0x1000, 0x1040, 0x5000].map((a) => BigInt(base + a)));
    expect(g.problems.counts['node-cap-reached']).toBe(1);
    expect(g.metadata.extra.truncatedAtNodes).toBe(9);
    // The count jumps from 8 to 10 during row 0x3040, so a cap of 10 cuts there too; with 11 the
    // later rows touch nothing new (10 nodes < 11): the whole heap, no cap problem.
    expect(rows(await read(writeHeapTrace(heap(base), { nodesPerEvent: 2 }), { maxNodes: 10 }))).toEqual(rows(g));
    const all = await read(writeHeapTrace(heap(base), { nodesPerEvent: 2 }), { maxNodes: 11 });
    expect(rows(all)).toEqual(rows(await read(writeHeapTrace(heap(base), { nodesPerEvent: 2 }))));
    expect(all.problems.counts['node-cap-reached']).toBeUndefined();
  });
});

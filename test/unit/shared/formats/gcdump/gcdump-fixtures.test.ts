import { describe, expect, it } from 'vitest';
import { CancelledError } from '../../../../../shared/errors.js';
import { readGcdump } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import { GEN_UNKNOWN, NODE_PSEUDO, NODE_UNDEFINED } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { CancellationSource } from '../../../../../shared/util/cancellation.js';
import { FileByteSource } from '../../../../../electron/files/file-byte-source.js';
import { FIXTURES_DIR, fixturePath, NO_FIXTURES } from '../../../../helpers/fixtures.js';
import { children, countNodes, expectSameGraph, fixtureBytes, loadFixture, rootChildren, topTypesByBytes } from './gcdump-test-utils.js';

// Oracles: /work/shared/spec/expected-values.md §1 (UP = PerfView upstream, RR = reference reader).
const dir = FIXTURES_DIR && fixturePath('gcdump') ? FIXTURES_DIR : null;
const isPseudo = (f: number): boolean => (f & NODE_PSEUDO) !== 0;

describe.skipIf(!dir)(`gcdump fixtures (${dir ? 'shared/fixtures/gcdump' : NO_FIXTURES})`, () => {
  it('perfview_test1: JavaScript heap, 32-bit, PerfView baseline numbers', async () => {
    const g = await loadFixture('perfview_test1');
    expect([g.nodeCount, g.types.count, g.edgeCount, g.totalSize]).toEqual([6482, 1994, 15020, 1_009_270]);
    expect(g.metadata.declaredTotalSize).toBe(1_009_270);
    expect(countNodes(g, (n) => (g.nodeFlags[n] & NODE_UNDEFINED) !== 0)).toBe(0);
    expect(countNodes(g, (n) => g.selfSize[n] !== g.types.sizes[g.nodeType[n]])).toBe(262); // nodes with an explicit size
    expect(Math.max(...Array.from({ length: g.nodeCount }, (_, n) => g.firstEdge[n + 1] - g.firstEdge[n]))).toBe(585);
    expect(g.rootIndex).toBe(0);
    expect(g.nodeType[0]).toBe(1993);
    expect(g.types.names[1993]).toBe('[JS Roots]');
    expect(children(g, 0)).toEqual([1, 3175]);
    expect(rootChildren(g)).toEqual(['(Type  JSGlobal) 502', '(Type  JSGlobal) 470']);
    expect([g.selfSize[1], g.selfSize[3175]]).toEqual([256, 256]);
    expect([g.types.names[0], g.types.sizes[0], g.types.modules[0]]).toEqual(['UNDEFINED', 0, null]);
    expect([g.types.names[1], g.types.sizes[1]]).toEqual(['(Type  JSGlobal)', 256]);
    expect([g.types.names[2], g.types.sizes[2]]).toEqual(['RegExp (Type  JSFunction)', 112]);
    expect(g.types.modules.every((m) => m === null)).toBe(true);
    // §9.2 records: node 1 (502 children 2,3,4,…) and node 586 (explicit size 16, children 56 and 515)
    expect(children(g, 1).slice(0, 4)).toEqual([2, 3, 4, 5]);
    expect([g.nodeType[586], g.selfSize[586], g.types.sizes[511]]).toEqual([511, 16, 32]);
    expect(children(g, 586)).toEqual([56, 515]);
    expect([g.nodeType[6481], g.types.names[1992], g.selfSize[6481], g.address[6481]]).toEqual([1992, 'langChooser_params (Type  JSObject)', 16, 0x6d1be90n]);
    expect(children(g, 6481)).toEqual([515]);
    expect(topTypesByBytes(g, 1)).toEqual([['(Type  HTMLStyleElement <|tagName:STYLE|>)', 13, 167_540]]);
    // Only the root is a pseudo-node (JS heaps have no categories); no generations.
    expect(countNodes(g, (n) => isPseudo(g.nodeFlags[n]))).toBe(1);
    expect(g.hasGenerationData).toBe(false);
    expect(g.problems.total).toBe(0);

    const m = g.metadata;
    expect(m.format).toBe('gcdump');
    expect(m.formatVersion).toBe('GCHeapDump v10');
    expect(m.pointerSize).toBe(4);
    expect([m.averageCountMultiplier, m.averageSizeMultiplier, m.countMultipliersByType]).toEqual([1, 1, null]);
    expect(m.extra.timeCollectedTicks).toBe('635560517203755198');
    expect(m.timeCollected).toBe('2015-01-05T10:48:40.375');
    expect([m.machineName, m.processName, m.processId]).toEqual(['MBRAUDE141201', 'Idle', 0]);
    expect([m.totalProcessCommit, m.totalProcessWorkingSet]).toEqual([0, 8192]);
    expect(m.collectionLog?.length).toBe(900);
    expect(m.collectionLog?.startsWith('Process Has DotNet: False Has JScript: True')).toBe(true);
    expect([m.creationTool, m.segments, m.interop]).toEqual([null, null, null]);
  });

  it('perfview_test2: .NET Framework WPF heap with segments and interop', async () => {
    const g = await loadFixture('perfview_test2');
    expect([g.nodeCount, g.types.count, g.edgeCount, g.totalSize]).toEqual([140_391, 3333, 235_137, 4_147_128]);
    const undefinedNodes: number[] = [];
    for (let n = 0; n < g.nodeCount; n++) if (g.nodeFlags[n] & NODE_UNDEFINED) undefinedNodes.push(n);
    expect(undefinedNodes.length).toBe(18);
    expect(undefinedNodes.slice(0, 4)).toEqual([4347, 4349, 4350, 14208]);
    expect(undefinedNodes.every((n) => g.nodeType[n] === 0 && g.selfSize[n] === 0 && g.firstEdge[n + 1] === g.firstEdge[n])).toBe(true);
    expect(g.problems.counts).toEqual({ 'undefined-node': 18 });
    expect(countNodes(g, (n) => !(g.nodeFlags[n] & NODE_UNDEFINED) && g.selfSize[n] !== g.types.sizes[g.nodeType[n]])).toBe(138_204);
    expect([g.rootIndex, g.nodeType[0], g.types.names[1178]]).toEqual([0, 1178, '[.NET Roots]']);
    expect(rootChildren(g)).toEqual([
      '[static vars] 2148',
      '[Strong handles] 22',
      '[Pinned handles] 9',
      '[COM/WinRT Objects] 8',
      '[Pinned local vars] 2',
      '[local vars] 3',
    ]);
    expect(topTypesByBytes(g, 1)).toEqual([['System.Threading.TimerQueueTimer', 15_418, 801_736]]);
    expect(g.types.names).toContain('System.Int32[] (Bytes > 1K,NoPtrs,ElemSize=4)');
    // The root, the categories and one "[static var …]" holder per static: all address 0, no module.
    expect(countNodes(g, (n) => isPseudo(g.nodeFlags[n]))).toBe(2155);
    expect(countNodes(g, (n) => g.address[n] === 0n && !(g.nodeFlags[n] & NODE_UNDEFINED))).toBe(2155);

    const m = g.metadata;
    expect(m.pointerSize).toBe(4);
    expect([m.processName, m.processId, m.machineName]).toEqual(['WpfApplication2', 8660, 'PAL-DEV01']);
    expect(m.extra.timeCollectedTicks).toBe('635360997932706710');
    expect(m.timeCollected).toBe('2014-05-19T12:36:33.270');
    expect([m.totalProcessCommit, m.totalProcessWorkingSet]).toEqual([292_249_600, 57_380_864]);
    expect(m.creationTool).toBeNull();
    expect(m.extra.sizeOfAllSegments).toBe(4_149_296);
    expect(m.segments).toEqual([
      { start: 46534656n, end: 50613288n, gen0End: 50613288n, gen1End: 49048604n, gen2End: 47966148n, gen3End: 46534656n, gen4End: 0n },
      { start: 63311872n, end: 63382536n, gen0End: 63382536n, gen1End: 63382536n, gen2End: 63382536n, gen3End: 63382536n, gen4End: 0n },
    ]);
    const interop = m.interop!;
    expect([interop.rcws.length, interop.ccws.length, interop.interfaces.length, interop.modules.length]).toEqual([6, 21, 48, 56]);
    expect(interop.rcws[0]).toEqual({ node: 95, refCount: 1, iUnknown: 18543312n, jupiter: 0n, vtable: 1965559220n, firstInterface: 0, interfaceCount: 1 });
    for (let i = 1; i < interop.modules.length; i++) expect(interop.modules[i - 1].baseAddress <= interop.modules[i].baseAddress).toBe(true);
  });

  it('perfview_test2: generations from its two version-0 segments', async () => {
    const g = await loadFixture('perfview_test2');
    expect(g.hasGenerationData).toBe(true);
    const count = [0, 0, 0, 0, 0, 0];
    const bytes = [0, 0, 0, 0, 0, 0];
    for (let n = 0; n < g.nodeCount; n++) {
      const k = g.generation[n] === GEN_UNKNOWN ? 5 : g.generation[n];
      count[k]++;
      bytes[k] += g.selfSize[n];
    }
    // gen0, gen1, gen2, LOH, POH, unknown (pseudo-nodes, undefined slots, 8 CCWs outside the GC heap)
    expect(count).toEqual([55_585, 38_599, 44_014, 17, 0, 2176]);
    expect(bytes).toEqual([1_557_084, 1_082_456, 1_435_348, 70_640, 0, 1600]);
    // Naive oracle (PerfView's GenerationFor with BigInt compares) for every node, and every
    // non-pseudo node inside a segment has a known generation.
    const segs = g.metadata.segments!;
    let inside = 0;
    for (let n = 0; n < g.nodeCount; n++) {
      const a = g.address[n];
      const s = a === 0n ? undefined : segs.find((x) => x.start <= a && a < x.end);
      let want = GEN_UNKNOWN;
      if (s) want = a < s.gen4End ? 4 : a < s.gen3End ? 3 : a < s.gen2End ? 2 : a < s.gen1End ? 1 : a < s.gen0End ? 0 : GEN_UNKNOWN;
      if (g.generation[n] !== want) throw new Error(`node ${n}: generation ${g.generation[n]}, oracle ${want}`);
      if (s && !isPseudo(g.nodeFlags[n])) {
        inside++;
        expect(g.generation[n]).not.toBe(GEN_UNKNOWN);
      }
    }
    expect(inside).toBe(55_585 + 38_599 + 44_014 + 17);
    // Unknown = 2155 pseudo-nodes + 13 undefined slots whose address lies between or below the
    // segments + 8 CCWs (PerfView gives them native addresses below the GC heap).
    const outside = [];
    for (let n = 0; n < g.nodeCount; n++) {
      if (g.generation[n] === GEN_UNKNOWN && !(g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED))) outside.push(g.types.names[g.nodeType[n]]);
    }
    expect(outside.length).toBe(8);
    expect(outside.every((name) => name.startsWith('[CCW for '))).toBe(true);
    expect(countNodes(g, (n) => (g.nodeFlags[n] & NODE_UNDEFINED) !== 0 && g.generation[n] === GEN_UNKNOWN)).toBe(13);
  });

  it('mono_android_20231108_150515_31024: dotnet-gcdump layout of pseudo-nodes', async () => {
    const g = await loadFixture('mono_android_20231108_150515_31024');
    expect([g.nodeCount, g.types.count, g.edgeCount, g.totalSize]).toEqual([27_570, 3930, 49_775, 1_780_688]);
    expect(countNodes(g, (n) => (g.nodeFlags[n] & NODE_UNDEFINED) !== 0)).toBe(0);
    expect(countNodes(g, (n) => g.address[n] === 0n)).toBe(1813);
    expect(countNodes(g, (n) => isPseudo(g.nodeFlags[n]))).toBe(1813);
    expect(Array.from(g.types.sizes).filter((s) => s === -1).length).toBe(665);
    expect([g.nodeType[0], g.types.names[2117]]).toEqual([2117, '[.NET Roots]']);
    expect(g.types.names.slice(3924, 3930)).toEqual(['[strong Handles]', '[other Handles]', '[finalizer Handles]', '[Dependent Handles]', '[local vars]', '[COM/WinRT Objects]']);
    expect(g.types.names[g.nodeType[1]]).toBe('[static vars]');
    expect(rootChildren(g)).toEqual(['[static vars] 1804', '[other roots] 4', '[local vars] 2', '[COM/WinRT Objects] 0']);
    const otherRoots = children(g, 0).find((c) => g.types.names[g.nodeType[c]] === '[other roots]')!;
    expect(children(g, otherRoots).map((c) => `${g.types.names[g.nodeType[c]]} ${g.firstEdge[c + 1] - g.firstEdge[c]}`)).toEqual([
      '[strong Handles] 16',
      '[other Handles] 13135',
      '[finalizer Handles] 16',
      '[Dependent Handles] 16',
    ]);
    expect(topTypesByBytes(g, 1)).toEqual([['System.String', 4174, 285_248]]);
    const m = g.metadata;
    expect([m.pointerSize, m.creationTool, m.timeCollected, m.machineName, m.processName, m.processId]).toEqual([8, 'dotnet-gcdump', null, null, null, 0]);
    expect([m.totalProcessCommit, m.totalProcessWorkingSet, m.segments, m.interop, m.collectionLog]).toEqual([0, 0, null, null, null]);
    expect(g.problems.total).toBe(0);
  });

  it('mono_android_20231108_150644_31024', async () => {
    const g = await loadFixture('mono_android_20231108_150644_31024');
    expect([g.nodeCount, g.types.count, g.edgeCount, g.totalSize]).toEqual([27_914, 4033, 50_262, 1_814_480]);
    expect(countNodes(g, (n) => (g.nodeFlags[n] & NODE_UNDEFINED) !== 0)).toBe(0);
    expect(rootChildren(g)).toEqual(['[static vars] 1844', '[other roots] 4', '[local vars] 18', '[COM/WinRT Objects] 0']);
    expect(g.types.names[g.nodeType[1]]).toBe('[static vars]');
    expect(topTypesByBytes(g, 1)).toEqual([['System.String', 4230, 292_088]]);
    expect([g.metadata.pointerSize, g.metadata.creationTool]).toEqual([8, 'dotnet-gcdump']);
  });

  it('monovm_ios_sample', async () => {
    const g = await loadFixture('monovm_ios_sample');
    expect([g.nodeCount, g.types.count, g.edgeCount, g.totalSize]).toEqual([24_062, 430, 32_349, 1_309_128]);
    expect(countNodes(g, (n) => (g.nodeFlags[n] & NODE_UNDEFINED) !== 0)).toBe(0);
    expect(rootChildren(g)).toEqual(['[static vars] 143', '[other roots] 5', '[local vars] 16', '[COM/WinRT Objects] 0']);
    expect(Array.from(g.types.sizes).filter((s) => s === -1).length).toBe(98);
    expect(topTypesByBytes(g, 3)).toEqual([
      ['System.RuntimeType', 16_249, 649_960],
      ['System.String', 3425, 224_696],
      ['System.String (Bytes > 10K)', 1, 74_312],
    ]);
    expect([g.metadata.pointerSize, g.metadata.creationTool]).toEqual([8, 'dotnet-gcdump']);
    expect(g.problems.total).toBe(0);
  });

  it('gives the same graph with 64-byte windows, from a real file source, with monotonic progress', async () => {
    for (const name of ['perfview_test1', 'monovm_ios_sample']) {
      const reference = await loadFixture(name);
      const small = await readGcdump(new MemoryByteSource(fixtureBytes(name)!, name), { chunkSize: 64 });
      expectSameGraph(small, reference);
      const file = await FileByteSource.open(fixturePath(`gcdump/${name}.gcdump`)!);
      const seen: number[] = [];
      try {
        const g = await readGcdump(file, { chunkSize: 4096, progress: (phase, done, total) => {
          expect([phase, total]).toEqual(['parse', file.size]);
          seen.push(done);
        } });
        expectSameGraph(g, reference);
      } finally {
        await file.close();
      }
      expect(seen[seen.length - 1]).toBe(file.size);
    }
  });

  it('is registered: readSnapshot detects a .gcdump and reads it with readGcdump', async () => {
    await import('../../../../../shared/formats/all-readers.js');
    const { readSnapshot } = await import('../../../../../shared/formats/read-snapshot.js');
    const g = await readSnapshot(new MemoryByteSource(fixtureBytes('monovm_ios_sample')!, 'monovm_ios_sample.gcdump'));
    expectSameGraph(g, await loadFixture('monovm_ios_sample'));
  });

  it('stops with CancelledError when cancelled', async () => {
    const src = new CancellationSource();
    src.cancel('user closed the tab');
    const err = await readGcdump(new MemoryByteSource(fixtureBytes('perfview_test2')!), { token: src.token }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledError);
  });
});

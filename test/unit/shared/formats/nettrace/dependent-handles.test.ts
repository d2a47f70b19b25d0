import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../../shared/analysis/analyze.js';
import { readGcdump } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import { writeGcdump } from '../../../../../shared/formats/gcdump/gcdump-writer.js';
import { insertDependentReferences, resolveDependentPairs } from '../../../../../shared/formats/nettrace/dependent-edges.js';
import { readNetTraceSnapshot } from '../../../../../shared/formats/nettrace/read-nettrace-snapshot.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { NEVER_CANCELLED } from '../../../../../shared/util/cancellation.js';
import type { SyntheticHeap } from '../../../../helpers/heap-trace.js';
import { writeHeapTrace } from '../../../../helpers/heap-trace.js';
import { concat } from '../gcdump/gcdump-test-utils.js';

/**
 * Dependent handles (ConditionalWeakTable entries; issue 13 item 6): a value is alive only while
 * its key is, so the key → value pair is a reference of the key, and the value is no root.
 */
const read = (bytes: Uint8Array, opts: Parameters<typeof readNetTraceSnapshot>[1] = {}) => readNetTraceSnapshot(new MemoryByteSource(bytes, 'cwt.nettrace'), opts);

function rows(g: HeapGraph): string[] {
  const out: string[] = [];
  for (let n = 0; n < g.nodeCount; n++) out.push(`${n} ${g.types.names[g.nodeType[n]]} ${g.selfSize[n]} [${Array.from(g.edgeTarget.subarray(g.firstEdge[n], g.firstEdge[n + 1])).join(',')}]`);
  return out;
}

describe('dependent handles as key → value references', () => {
  const MOD = 0x10;
  // A static Holder → Key1, Key2; dependent handles Key1 → Value1 (→ Payload), Key2 → Value2,
  // Key1 → Value3, and a key that is no object of the walk (0x9000) → Value4.
  const heap: SyntheticHeap = {
    modules: [{ id: MOD, path: '/app/App.dll' }],
    types: [
      { id: 0x100, module: MOD, name: 'App.Holder' },
      { id: 0x200, module: MOD, name: 'App.CwtKey' },
      { id: 0x300, module: MOD, name: 'App.CwtValue' },
      { id: 0x400, module: MOD, name: 'System.Byte[]' },
    ],
    objects: [
      { address: 0x1000, size: 40, type: 0x100, refs: [0x1100, 0x1200] },
      { address: 0x1100, size: 24, type: 0x200, refs: [] },
      { address: 0x1200, size: 24, type: 0x200, refs: [] },
      { address: 0x1300, size: 32, type: 0x300, refs: [0x1600] },
      { address: 0x1400, size: 32, type: 0x300, refs: [] },
      { address: 0x1500, size: 32, type: 0x300, refs: [] },
      { address: 0x1600, size: 224, type: 0x400, refs: [] },
      { address: 0x1700, size: 32, type: 0x300, refs: [] },
    ],
    roots: [],
    statics: [{ object: 0x1000, type: 0x100, field: 's_holder' }],
    dependent: [
      { key: 0x1100, value: 0x1300 },
      { key: 0x1200, value: 0x1400 },
      { key: 0, value: 0x1500 }, // a freed handle: skipped, as dotnet-gcdump does
      { key: 0x1100, value: 0x1500 },
      { key: 0x9000, value: 0x1700 },
    ],
  };

  it('appends each value to its key\'s references; only a value whose key is no object stays under [Dependent Handles]', async () => {
    const g = await read(writeHeapTrace(heap, { nodesPerEvent: 3, edgesPerEvent: 2 }));
    // Derivation: no root event, so the dependent-handle event creates [other roots] 1 and
    // [Dependent Handles] 2; C5 [COM/WinRT Objects] 3; C6 [static vars] 4, s_holder 5. Objects
    // by address: Holder 6, Key1 7, Key2 8, Value1 9, Value2 10, Value3 11, Payload 12, Value4 13.
    // Key1 gets Value1 and Value3 (arrival order) after its own references; the key-0 entry is
    // skipped; 0x9000 is no object, so Value4 stays a root and 0x9000 is no node.
    expect(rows(g)).toEqual([
      '0 [.NET Roots] 0 [1,3,4]',
      '1 [other roots] 0 [2]',
      '2 [Dependent Handles] 0 [13]',
      '3 [COM/WinRT Objects] 0 []',
      '4 [static vars] 0 [5]',
      '5 [static var App.Holder.s_holder] 0 [6]',
      '6 App.Holder 40 [7,8]',
      '7 App.CwtKey 24 [9,11]',
      '8 App.CwtKey 24 [10]',
      '9 App.CwtValue 32 [12]',
      '10 App.CwtValue 32 []',
      '11 App.CwtValue 32 []',
      '12 System.Byte[] 224 []',
      '13 App.CwtValue 32 []',
    ]);
    expect(g.edgeCount).toBe(13);
    const a = analyzeDominance(g);
    // Key1 retains itself, Value1 + its payload, Value3: 24 + 32 + 224 + 32; Key2 24 + 32.
    expect(a.retainedSize[7]).toBe(312);
    expect(a.retainedSize[8]).toBe(56);
    expect(a.retainedSize[6]).toBe(40 + 312 + 56);
    expect([9, 11, 12].map((n) => a.idom[n])).toEqual([7, 7, 9]);
    expect(a.idom[13]).toBe(2);
    expect(a.retainedSize[g.rootIndex]).toBe(408 + 32);
  });

  it('keeps dotnet-gcdump\'s roots with dependentHandles: "roots" (the same nodes; keys then retain only themselves)', async () => {
    const g = await read(writeHeapTrace(heap), { dependentHandles: 'roots' });
    expect(rows(g).slice(0, 3)).toEqual(['0 [.NET Roots] 0 [1,3,4]', '1 [other roots] 0 [2]', '2 [Dependent Handles] 0 [9,10,11,13]']);
    expect(rows(g)[7]).toBe('7 App.CwtKey 24 []');
    expect(g.nodeCount).toBe(14);
    expect(g.edgeCount).toBe(13);
    expect(analyzeDominance(g).retainedSize[7]).toBe(24);
  });

  it('gives the same graph, references and dominators when the graph is written as a .gcdump and read back', async () => {
    const g = await read(writeHeapTrace(heap, { nodesPerEvent: 1 }));
    const back = await readGcdump(new MemoryByteSource(concat(writeGcdump(g)), 'cwt.gcdump'));
    expect(rows(back)).toEqual(rows(g));
    const a = analyzeDominance(g);
    const b = analyzeDominance(back);
    expect(Array.from(b.idom)).toEqual(Array.from(a.idom));
    expect(Array.from(b.retainedSize)).toEqual(Array.from(a.retainedSize));
  });

  it('inserts into the CSR columns in place: several keys, a key with two values, the last row', () => {
    // rows: 0 → [1], 1 → [], 2 → [0, 1], 3 → [2]; handles 2→3, 0→2, 3→0, 2→1 (room for 4)
    const firstEdge = Uint32Array.of(0, 1, 1, 3, 4);
    const edgeTarget = new Uint32Array(8);
    edgeTarget.set([1, 0, 1, 2]);
    const pairs = [2, 3, 0, 2, 3, 0, 2, 1, 7, 1]; // as pids; pid 7 is no object
    const refs = resolveDependentPairs(pairs, (pid) => (pid < 4 ? pid : -1), (pid) => pid);
    expect(Array.from(refs.keys)).toEqual([0, 2, 2, 3]);
    expect(Array.from(refs.values)).toEqual([2, 3, 1, 0]);
    expect(refs.orphans).toEqual([1]);
    expect(insertDependentReferences(firstEdge, edgeTarget, 4, 4, refs, NEVER_CANCELLED)).toBe(8);
    expect(Array.from(firstEdge)).toEqual([0, 2, 2, 6, 8]);
    expect(Array.from(edgeTarget)).toEqual([1, 2, 0, 1, 3, 1, 2, 0]);
    expect(() => insertDependentReferences(Uint32Array.of(0, 0), new Uint32Array(0), 1, 0, { keys: Uint32Array.of(0), values: Uint32Array.of(0), orphans: [] }, NEVER_CANCELLED)).toThrow(RangeError);
  });
});

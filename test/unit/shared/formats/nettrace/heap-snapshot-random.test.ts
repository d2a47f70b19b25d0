import { describe, expect, it } from 'vitest';
import { readNetTraceSnapshot } from '../../../../../shared/formats/nettrace/read-nettrace-snapshot.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import type { SyntheticHeap } from '../../../../helpers/heap-trace.js';
import { writeHeapTrace } from '../../../../helpers/heap-trace.js';
import type { NaiveGraph } from '../../../../helpers/naive-gcdump.js';
import { naiveGcdump } from '../../../../helpers/naive-gcdump.js';
import { mulberry32 as rng } from '../../../../helpers/prng.js';


/**
 * `windows` > 1 (64-bit): the objects are spread, in address order, over that many 4 GiB
 * windows, and strays are misaligned
 * too, so PackedReferences needs every window it has and escapes the rest.
 */
function randomHeap(seed: number, P: 4 | 8, windows = 1): SyntheticHeap {
  const r = rng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: T[]) => xs[int(xs.length)];
  const base = P === 8 ? 0x1_0000_0000 * (1 + int(0x7fff)) : 0x1000_0000;
  const names = ['System.String', 'System.Object[]', 'App.Item', 'System.Collections.Generic.List`1[App.Item]', '', 'Dictionary`2[System.Int32,System.String]', 'App.Com'];
  const types = Array.from({ length: 1 + int(names.length) }, (_, i) => ({
    id: 0x7000 + i * 0x40,
    module: pick([0x10, 0x20, 0x30]),
    nameId: 0x0200_0000 + i,
    name: names[i],
    flags: names[i] === '' ? pick([0, 8]) : names[i] === 'App.Com' ? 4 : 0,
  }));
  const typeIds = [...types.map((t) => t.id), 0x9990, 0x9998]; // two ids no BulkType defines
  const n = 1 + int(150);
  const addr = (i: number) => base + i * 0x20 + Math.floor((i * windows) / n) * 2 ** 32; // ascending: the in-place path
  const stray = () => base + 0x10_0000 + int(5) * 8 + (windows > 1 ? int(windows) * 2 ** 32 + pick([0, 4, 1]) : 0); // referenced, never described
  const sizes = [0, 24, 56, 1001, 9999, 10_000, 150_000, 2_500_000, 24];
  const objects = Array.from({ length: n }, (_, i) => ({
    address: addr(i),
    size: pick(sizes),
    type: pick(typeIds),
    refs: Array.from({ length: int(4) }, () => (r() < 0.08 ? stray() : addr(int(n)))),
  }));
  const target = () => (r() < 0.05 ? 0 : r() < 0.05 ? stray() : addr(int(n)));
  const roots = Array.from({ length: int(20) }, () => ({ address: target(), kind: int(6), flags: pick([0, 0, 1, 2, 3, 5, 8]) }));
  const statics = Array.from({ length: int(10) }, () => ({ object: addr(int(n)), type: pick(typeIds), field: pick(['s_a', 's_b', 's_c']), flags: pick([0, 0, 1]) }));
  const ccws = Array.from({ length: int(3) }, () => ({ object: addr(int(n)), type: pick(typeIds), iUnknown: pick([0, 0xc000 + int(4) * 8]) }));
  const rcws = Array.from({ length: int(3) }, () => ({ object: addr(int(n)), type: types[0].id, iUnknown: 0xd000 + int(3) * 8 }));
  const dependent = Array.from({ length: int(4) }, () => ({ key: pick([0, addr(int(n)), addr(int(n)), stray()]), value: addr(int(n)) }));
  return { types, modules: [{ id: 0x10, path: 'a.dll' }, { id: 0x20, path: 'b.dll' }], objects, roots, statics, ccws, rcws, dependent };
}

/**
 * Our node numbering is not dotnet-gcdump's (pseudo-nodes first, then objects by address, then
 * other addresses; see heap-graph-from-dump.ts): naive node i is our node map[i], pseudo-nodes
 * matched in order and every other node by its address (one node per address in both).
 */
function compare(g: HeapGraph, want: NaiveGraph): void {
  expect(g.nodeCount).toBe(want.nodes.length);
  expect(g.types.names).toEqual(want.types.map((t) => t.name));
  expect(g.types.modules).toEqual(want.types.map((t) => t.module));
  expect(Array.from(g.types.sizes)).toEqual(want.types.map((t) => t.size));
  const isPseudo = (name: string) => name.startsWith('[') && !name.startsWith('[RCW ') && !name.startsWith('[CCW ');
  const ours = new Map<bigint, number>();
  const ourPseudo: number[] = [];
  for (let n = 0; n < g.nodeCount; n++) {
    if (g.nodeFlags[n] & NODE_PSEUDO) ourPseudo.push(n);
    else ours.set(g.address[n], n);
  }
  let p = 0;
  const map = want.nodes.map((w) => (isPseudo(want.types[w.type].name) ? ourPseudo[p++] : ours.get(w.address)) ?? -1);
  expect({ unmapped: map.indexOf(-1), distinct: new Set(map).size, pseudo: p }).toEqual({ unmapped: -1, distinct: g.nodeCount, pseudo: ourPseudo.length });
  for (let i = 0; i < g.nodeCount; i++) {
    const w = want.nodes[i];
    const n = map[i];
    const got = {
      i,
      type: g.nodeType[n],
      size: g.selfSize[n],
      address: g.address[n],
      kids: Array.from(g.edgeTarget.subarray(g.firstEdge[n], g.firstEdge[n + 1])),
      undefined: (g.nodeFlags[n] & NODE_UNDEFINED) !== 0,
    };
    const expected = { i, type: w.type, size: w.size, address: w.address, kids: w.children.map((k) => map[k]), undefined: !w.defined };
    // A cheap check first (an expect per node took ~0.2 ms); the first difference fails with both nodes shown.
    if (key(got) !== key(expected)) expect(got).toEqual(expected);
  }
}

function key(x: { type: number; size: number; address: bigint; kids: number[]; undefined: boolean }): string {
  return `${x.type}|${x.size}|${x.address}|${x.kids.join(',')}|${x.undefined}`;
}

describe('heap snapshots of random heaps equal a naive Part C implementation', () => {
  it('for 60 seeded heaps, 32- and 64-bit, with and without weak roots, dependent handles as references and as roots', async () => {
    for (let seed = 1; seed <= 60; seed++) {
      const P = seed % 3 === 0 ? 4 : 8;
      const heap = randomHeap(seed, P);
      const keepWeak = seed % 2 === 0;
      const bytes = writeHeapTrace(heap, { pointerSize: P, nodesPerEvent: 1 + (seed % 17), edgesPerEvent: 1 + (seed % 23) });
      const dependentHandles = seed % 4 < 2 ? 'references' : 'roots';
      const g = await readNetTraceSnapshot(new MemoryByteSource(bytes), { weakRoots: keepWeak ? 'category' : 'drop', dependentHandles });
      compare(g, naiveGcdump(heap, keepWeak, undefined, dependentHandles));
    }
  });

  it('for heaps over 1–12 windows of 4 GiB, with misaligned strays (packed references: windows and escapes), in shared and plain memory', async () => {
    for (let seed = 200; seed < 230; seed++) {
      const windows = 1 + (seed % 12);
      const heap = randomHeap(seed, 8, windows);
      const bytes = writeHeapTrace(heap, { pointerSize: 8, nodesPerEvent: 1 + (seed % 17), edgesPerEvent: 1 + (seed % 23) });
      // Both storages: SharedArrayBuffers (for a host that shares the graph), plain memory.
      const sharedMemory = seed % 2 === 0;
      const g = await readNetTraceSnapshot(new MemoryByteSource(bytes), { weakRoots: 'drop', sharedMemory });
      compare(g, naiveGcdump(heap, false));
      // The objects arrive in address order here, so the columns are the collection's own.
      for (const column of [g.edgeTarget, g.nodeType, g.selfSize, g.firstEdge]) expect(column.buffer instanceof SharedArrayBuffer).toBe(sharedMemory);
    }
  });

  it('with more pseudo-nodes and root references than the columns keep room for in front (FRONT, HEAD)', async () => {
    // 70K static vars, each its own pseudo-node, and 70K stack roots: the row columns and the
    // packed references move up once to make room (RowColumns.column, PackedReferences.column).
    const base = 0x7f00_0000_0000;
    const n = 70_000;
    const r = rng(9);
    const objects = Array.from({ length: n }, (_, i) => ({ address: base + i * 0x20, size: 24 + (i % 5) * 8, type: 0x7000, refs: [base + Math.floor(r() * n) * 0x20] }));
    const heap: SyntheticHeap = {
      types: [{ id: 0x7000, module: 0x10, nameId: 0x0200_0000, name: 'App.Item', flags: 0 }],
      modules: [{ id: 0x10, path: 'a.dll' }],
      objects,
      roots: objects.map((o) => ({ address: o.address, kind: 0, flags: 0 })),
      statics: objects.map((o, i) => ({ object: o.address, type: 0x7000, field: `s_${i}`, flags: 0 })),
    };
    const g = await readNetTraceSnapshot(new MemoryByteSource(writeHeapTrace(heap, { nodesPerEvent: 1000, edgesPerEvent: 1000 })), { weakRoots: 'drop' });
    expect(g.nodeCount).toBeGreaterThan(2 * n); // the objects and more than 70K pseudo-nodes
    compare(g, naiveGcdump(heap, false));
  });

  it('stops at the node cap exactly where dotnet-gcdump does (the same nodes, numbered by address)', async () => {
    let capped = 0;
    for (let seed = 100; seed < 120; seed++) {
      const heap = randomHeap(seed, 8);
      const full = naiveGcdump(heap, false);
      const cap = 1 + Math.floor(full.nodes.length / 2);
      const g = await readNetTraceSnapshot(new MemoryByteSource(writeHeapTrace(heap, { nodesPerEvent: 7 })), { weakRoots: 'drop', maxNodes: cap });
      const want = naiveGcdump(heap, false, cap);
      compare(g, want);
      if (want.nodes.length < full.nodes.length) {
        capped++;
        expect(g.problems.counts['node-cap-reached']).toBe(1);
      }
    }
    expect(capped).toBeGreaterThan(10);
  });
});

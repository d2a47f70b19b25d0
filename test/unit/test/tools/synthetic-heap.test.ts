import { describe, expect, it } from 'vitest';
import { makeSyntheticHeap } from '../../../tools/synthetic-heap.js';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { computeTypeStats } from '../../../../shared/analysis/type-stats.js';
import { rootCategories } from '../../../../shared/analysis/root-categories.js';
import { GEN_UNKNOWN, LOH_THRESHOLD, NODE_PSEUDO, NONE, type HeapGraph } from '../../../../shared/graph/heap-graph.js';

const OBJECTS = 50_000;
const g = makeSyntheticHeap({ objects: OBJECTS, seed: 7 });

function sameGraph(a: HeapGraph, b: HeapGraph): boolean {
  const eq = (x: ArrayLike<number | bigint>, y: ArrayLike<number | bigint>) => x.length === y.length && Array.prototype.every.call(x, (v, i) => v === y[i]);
  return (
    eq(a.nodeType, b.nodeType) && eq(a.selfSize, b.selfSize) && eq(a.firstEdge, b.firstEdge) && eq(a.edgeTarget, b.edgeTarget) &&
    eq(a.address, b.address) && eq(a.generation, b.generation) && a.types.names.join('\n') === b.types.names.join('\n')
  );
}

describe('makeSyntheticHeap', () => {
  it('is deterministic per seed and differs between seeds', () => {
    expect(sameGraph(g, makeSyntheticHeap({ objects: OBJECTS, seed: 7 }))).toBe(true);
    expect(sameGraph(g, makeSyntheticHeap({ objects: OBJECTS, seed: 8 }))).toBe(false);
  });

  it('has exactly the requested heap objects, ~2.5 references each, and no problems', () => {
    const s = computeTypeStats(g);
    expect(s.objectCount).toBe(OBJECTS);
    expect(s.undefinedNodeCount).toBe(0);
    expect(g.nodeCount).toBe(OBJECTS + s.pseudoNodeCount);
    expect(g.problems.total).toBe(0);
    let objectEdges = 0;
    for (let i = 0; i < g.nodeCount; i++) if ((g.nodeFlags[i] & NODE_PSEUDO) === 0) objectEdges += g.firstEdge[i + 1] - g.firstEdge[i];
    expect(objectEdges / OBJECTS).toBeGreaterThan(2.45);
    expect(objectEdges / OBJECTS).toBeLessThan(2.6);
    expect(g.metadata.declaredTotalSize).toBe(g.totalSize);
  });

  it('gives pseudo-nodes address 0, size 0 and a null module; objects increasing addresses', () => {
    let last = 0n;
    for (let i = 0; i < g.nodeCount; i++) {
      if (g.nodeFlags[i] & NODE_PSEUDO) {
        expect([g.address[i], g.selfSize[i], g.types.modules[g.nodeType[i]]]).toEqual([0n, 0, null]);
        expect(g.types.names[g.nodeType[i]]).toMatch(/^\[.*\]$/);
      } else {
        if (g.address[i] <= last) throw new Error(`address of node ${i} does not increase`);
        last = g.address[i];
      }
    }
  });

  it('hangs the dotnet-gcdump root categories below [.NET Roots]', () => {
    const r = rootCategories(g);
    expect(r.rootName).toBe('[.NET Roots]');
    expect(r.categories.map((c) => c.name)).toEqual(['[static vars]', '[other roots]', '[local vars]', '[COM/WinRT Objects]']);
    expect(r.categories[1].children!.map((c) => c.name)).toEqual(['[strong Handles]', '[pinning Handles]']);
    expect(r.categories[1].children![1].childCount).toBe(4);
    const holder = g.edgeTarget[g.firstEdge[r.categories[0].node]];
    expect(g.types.names[g.nodeType[holder]]).toMatch(/^\[static var SyntheticApp\.Generated\.Module\d+\.Type\d+\.s_field0\]$/);
  });

  it('populates every generation, puts large arrays in the LOH with size-bucket names', () => {
    expect(g.hasGenerationData).toBe(true);
    const perGen = [0, 0, 0, 0, 0];
    for (let i = 0; i < g.nodeCount; i++) {
      const gen = g.generation[i];
      if (gen === GEN_UNKNOWN) {
        expect(g.nodeFlags[i] & NODE_PSEUDO).toBe(NODE_PSEUDO);
        continue;
      }
      perGen[gen]++;
      if (g.selfSize[i] >= LOH_THRESHOLD) {
        expect(gen).toBe(3);
        expect(g.types.names[g.nodeType[i]]).toMatch(/^System\.(Byte|Object)\[\] \(Bytes > 10+K\)$/);
      }
    }
    expect(perGen.every((n) => n > 0)).toBe(true);
    expect(perGen[2]).toBeGreaterThan(perGen[1]);
    expect(perGen[1]).toBeGreaterThan(perGen[0] - 100);
  });

  it('has a few unreachable objects, cycles and dominator chains thousands deep', () => {
    const a = analyzeGraph(g);
    expect(a.unreachableCount).toBe(5); // max(3, round(50,000 / 10,000))
    // a doubly-linked list: next and prev point at each other
    const node = g.types.names.indexOf('System.Collections.Generic.LinkedListNode`1[System.String]');
    let cycles = 0;
    for (let i = 0; i < g.nodeCount && cycles === 0; i++) {
      if (g.nodeType[i] !== node) continue;
      const next = g.edgeTarget[g.firstEdge[i]];
      for (let e = g.firstEdge[next]; e < g.firstEdge[next + 1]; e++) if (g.edgeTarget[e] === i) cycles++;
    }
    expect(cycles).toBeGreaterThan(0);
    let deepest = 0;
    for (let i = 0; i < g.nodeCount; i++) {
      let d = 0;
      for (let v = i; a.idom[v] !== NONE && d <= 1000; v = a.idom[v]) d++;
      if (d > deepest) deepest = d;
      if (deepest > 1000) break;
    }
    expect(deepest).toBeGreaterThan(1000);
  });

  it('refuses fewer than 100 objects', () => {
    expect(() => makeSyntheticHeap({ objects: 99 })).toThrow(RangeError);
  });
});

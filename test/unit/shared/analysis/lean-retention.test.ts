import { describe, expect, it } from 'vitest';
import { analyzeDominance, analyzeTypeRetention } from '../../../../shared/analysis/analyze.js';
import { buildOrderTree } from '../../../../shared/analysis/dominator-tree.js';
import { computeDominators } from '../../../../shared/analysis/dominators.js';
import { computeOrderRetained, computeRetainedSizes, retainedByNode } from '../../../../shared/analysis/retained-sizes.js';
import { sharedChildHeap } from '../../../helpers/tiny-heaps.js';
import { randomGraph, syntheticHeap } from '../../../helpers/random-graph.js';

// heapscope report's analysis (analyzeTypeRetention) builds the per-node retained sizes in the
// memory of the per-type pass's position tree, so the two never take memory together.
describe('analyzeTypeRetention: the per-node retained sizes reuse the position tree’s memory', () => {
  // [root] → A(10) → B(20) → C(30); A → D(5); [root] → E(7) → D; Dead(1000) → A (unreachable)
  const t = sharedChildHeap();

  it('gives exact retained sizes, garbage keeping its own size', () => {
    const a = analyzeTypeRetention(t.graph);
    const at = (name: string) => a.retainedSize[t.id(name)];
    expect([at('A'), at('B'), at('C'), at('D'), at('E'), at('Dead')]).toEqual([60, 50, 30, 5, 7, 1000]);
    expect(a.retainedSize[t.graph.rootIndex]).toBe(72);
    expect(a.reachableSize).toBe(72);
  });

  it('lays the per-node column over the tree’s buffer: 8 bytes per node and one word more, not a column of its own', () => {
    const g = syntheticHeap(5000, 2.5, 3);
    const a = analyzeTypeRetention(g);
    expect(a.retainedSize.length).toBe(g.nodeCount);
    expect(a.retainedSize.buffer.byteLength).toBe(8 * (g.nodeCount + 1));
  });

  it('keeps the phases in order, each ending at its total', () => {
    const calls: [string, number, number][] = [];
    analyzeTypeRetention(syntheticHeap(3000, 2.5, 5), { progress: (p, d, tot) => calls.push([p, d, tot]) });
    const phases = calls.map((c) => c[0]).filter((p, i, all) => i === 0 || all[i - 1] !== p);
    expect(phases).toEqual(['dominators', 'retained', 'types']);
    for (const phase of phases) {
      const mine = calls.filter((c) => c[0] === phase);
      expect(mine[mine.length - 1][1], phase).toBe(mine[mine.length - 1][2]);
    }
  });

  it('matches analyzeDominance bit for bit on random heaps with unreachable parts', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const g = seed % 2 ? randomGraph(seed, { nodes: 400, types: 5, avgDegree: 1.5 }) : syntheticHeap(1500, 2.5, seed);
      const lean = analyzeTypeRetention(g);
      const full = analyzeDominance(g);
      expect(lean.reachableCount).toBeLessThanOrEqual(g.nodeCount);
      expect(Array.from(lean.retainedSize)).toEqual(Array.from(full.retainedSize));
      expect(Array.from(lean.typeRetained)).toEqual(Array.from(full.typeRetained));
    }
  });
});

describe('buildOrderTree and retainedByNode in caller-given storage', () => {
  it('give the same arrays as their own allocations, and ignore storage that is too small', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const g = randomGraph(seed, { nodes: 300, types: 4, avgDegree: 2 });
      const dom = computeDominators(g);
      const r = dom.order.length;
      const own = buildOrderTree(dom);
      const storage = new ArrayBuffer(8 * (g.nodeCount + 1));
      const inside = buildOrderTree(dom, undefined, false, storage);
      expect(inside.firstOrderChild.buffer).toBe(storage);
      expect(inside.orderChild.buffer).toBe(storage);
      expect(Array.from(inside.firstOrderChild)).toEqual(Array.from(own.firstOrderChild));
      expect(Array.from(inside.orderChild)).toEqual(Array.from(own.orderChild));
      const small = buildOrderTree(dom, undefined, false, new ArrayBuffer(4 * 2 * r));
      expect(small.firstOrderChild.buffer).not.toBe(storage);
      expect(Array.from(small.orderChild)).toEqual(Array.from(own.orderChild));

      const both = computeRetainedSizes(g.selfSize, dom);
      const orderRetained = computeOrderRetained(g.selfSize, dom);
      expect(Array.from(orderRetained)).toEqual(Array.from(both.orderRetained));
      // the storage still holds the tree's words: every entry must be overwritten
      const byNode = retainedByNode(g.selfSize, dom.order, orderRetained, undefined, null, storage);
      expect(byNode.buffer).toBe(storage);
      expect(Array.from(byNode)).toEqual(Array.from(both.retainedSize));
      const tooSmall = retainedByNode(g.selfSize, dom.order, orderRetained, undefined, null, new ArrayBuffer(8 * g.nodeCount - 8));
      expect(Array.from(tooSmall)).toEqual(Array.from(both.retainedSize));
    }
  });
});

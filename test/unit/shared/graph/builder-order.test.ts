import { describe, expect, it } from 'vitest';
import { HeapGraphBuilder } from '../../../../shared/graph/heap-graph-builder.js';
import { emptyMetadata } from '../../../../shared/graph/metadata.js';
import { mulberry32 } from '../../../helpers/prng.js';

/**
 * The builder keeps no count column while nodes come in ordinal order (its start column becomes
 * firstEdge) and derives one when the order breaks: these check both paths, and the switch
 * between them at any point, against per-node reference lists.
 */
describe('HeapGraphBuilder in-order and out-of-order CSR', () => {
  it('in order, nodes never described after the last described one start at the pool end', () => {
    const b = new HeapGraphBuilder({ expectedNodes: 5 });
    const t = b.addType('T');
    b.createNodes(5);
    b.setNode(0, t, 8, [1, 2]);
    b.setNode(1, t, 8, [4]);
    b.setRoot(0);
    const g = b.finish(emptyMetadata('synthetic'));
    expect(Array.from(g.firstEdge)).toEqual([0, 2, 3, 3, 3, 3]);
    expect(Array.from(g.edgeTarget)).toEqual([1, 2, 4]);
    expect(g.problems.counts['undefined-node']).toBe(3);
  });

  it('in order with a pool slack up to the used length, the edge column is a view of the pool (no trimmed copy)', () => {
    for (const [hint, view] of [[17, true], [24, true], [32, true], [33, false], [40, false]] as const) {
      const b = new HeapGraphBuilder({ expectedNodes: 4, expectedEdges: hint });
      const t = b.addType('T');
      b.createNodes(4);
      for (let i = 0; i < 4; i++) b.setNode(i, t, 1, [0, 1, 2, 3]); // 16 references
      b.setRoot(0);
      const g = b.finish(emptyMetadata('synthetic'));
      expect(g.edgeCount).toBe(16);
      expect(g.edgeTarget.buffer.byteLength, `hint ${hint}`).toBe(view ? hint * 4 : 16 * 4);
      expect(Array.from(g.firstEdge)).toEqual([0, 4, 8, 12, 16]);
      expect(Array.from(g.edgeTarget)).toEqual([0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]);
    }
  });

  it('an in-order prefix, then a jump back: counts of the prefix come from its starts', () => {
    const b = new HeapGraphBuilder();
    const t = b.addType('T');
    b.createNodes(5);
    b.setNode(0, t, 1, [1, 2, 3]);
    b.setNode(1, t, 2, []);
    b.setNode(2, t, 3, [4, 4]); // the last in order: its count is the pool's end minus its start
    b.setNode(4, t, 5, [0]); // skips 3: the order breaks here
    b.setNode(3, t, 4, [1]);
    b.setRoot(0);
    const g = b.finish(emptyMetadata('synthetic'));
    expect(Array.from(g.firstEdge)).toEqual([0, 3, 3, 5, 6, 7]);
    expect(Array.from(g.edgeTarget)).toEqual([1, 2, 3, 4, 4, 1, 0]);
  });

  it('matches per-node lists for random orders, entry points and break points', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const r = mulberry32(seed);
      const n = 1 + Math.floor(r() * 40);
      const lists: number[][] = [];
      for (let i = 0; i < n; i++) lists.push(Array.from({ length: Math.floor(r() * 4) }, () => Math.floor(r() * n)));
      // describe 0 … k − 1 in order, then the rest shuffled (k = n: all in order); some never described
      const k = Math.floor(r() * (n + 1));
      const rest = Array.from({ length: n - k }, (_, i) => k + i);
      for (let i = rest.length - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1));
        [rest[i], rest[j]] = [rest[j], rest[i]];
      }
      const described = [...Array.from({ length: k }, (_, i) => i), ...rest.filter(() => r() < 0.8)];
      const b = new HeapGraphBuilder({ expectedNodes: n, sharedMemory: seed % 2 === 0 });
      const t = b.addType('T');
      b.createNodes(n);
      for (const node of described) {
        const c = lists[node];
        const how = r();
        if (how < 0.4) b.setNode(node, t, node, c);
        else if (how < 0.7) {
          const room = b.edgeRoom(c.length);
          room.set(c, b.edgePoolLength);
          b.setNodeFromPool(node, t, node, c.length, true);
        } else b.setCheckedNodes(node, Int32Array.of(t), Int32Array.of(node), Uint32Array.of(c.length), Uint32Array.from(c));
      }
      b.setRoot(0);
      const g = b.finish(emptyMetadata('synthetic'));
      const isDescribed = new Set(described);
      const expectedFirst = [0];
      const expectedTargets: number[] = [];
      for (let i = 0; i < n; i++) {
        if (isDescribed.has(i)) expectedTargets.push(...lists[i]);
        expectedFirst.push(expectedTargets.length);
      }
      expect(Array.from(g.firstEdge), `seed ${seed}`).toEqual(expectedFirst);
      expect(Array.from(g.edgeTarget), `seed ${seed}`).toEqual(expectedTargets);
      expect(g.firstEdge.buffer instanceof SharedArrayBuffer, `seed ${seed}`).toBe(seed % 2 === 0);
    }
  });
});

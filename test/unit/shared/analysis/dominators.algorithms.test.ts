import { describe, expect, it } from 'vitest';
import type { DfsLayout, DominatorAlgorithm } from '../../../../shared/analysis/dominators.js';
import { computeDominators, prepareDominatorScratch } from '../../../../shared/analysis/dominators.js';
import { HeapGraphBuilder } from '../../../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NONE } from '../../../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../../../shared/graph/metadata.js';
import { naiveAnalysis } from '../../../helpers/naive-dominators.js';
import { mulberry32, randomGraph } from '../../../helpers/random-graph.js';

/**
 * Both last steps (SEMI-NCA and Lengauer–Tarjan buckets) against the oracle, and SEMI-NCA on the
 * shape that makes its plain climb quadratic.
 */
describe('prepared scratch (DominatorScratch)', () => {
  it('gives the same dominators when big enough for the graph, and is ignored when too small or of the wrong kind', () => {
    const rnd = mulberry32(4242);
    let used = 0;
    for (let c = 0; c < 600; c++) {
      const seed = Math.floor(rnd() * 2 ** 31);
      const g = randomGraph(seed, { nodes: 1 + Math.floor(rnd() * 70), types: 2, avgDegree: 0.5 + rnd() * 2.5 });
      const want = computeDominators(g);
      const shared = c % 2 === 0;
      // a hint below, at or above the graph's real size, and references estimated low or high
      const nodes = Math.max(0, g.nodeCount + Math.floor(rnd() * 7) - 3);
      const edges = Math.floor(g.edgeCount * (0.5 + rnd()));
      const scratch = prepareDominatorScratch(nodes, edges, c % 3 === 0);
      const d = computeDominators(g, undefined, undefined, 'auto', 'auto', shared, scratch);
      expect(Array.from(d.idom), `seed ${seed}`).toEqual(Array.from(want.idom));
      expect(Array.from(d.order)).toEqual(Array.from(want.order));
      expect(Array.from(d.orderIdom)).toEqual(Array.from(want.orderIdom));
      expect(d.order.buffer instanceof SharedArrayBuffer).toBe(shared);
      if (d.order.buffer === scratch.vertex.buffer) used++;
    }
    expect(used).toBeGreaterThan(100); // the scratch really was used in many cases
  });
});

describe('dominator algorithms', () => {
  for (const algorithm of ['semi-nca', 'lengauer-tarjan'] as DominatorAlgorithm[]) {
    for (const layout of ['compact', 'inline'] as DfsLayout[]) {
      it(`${algorithm}, ${layout} DFS records, matches the naive dominators on 1500 random graphs`, () => {
        const rnd = mulberry32(algorithm.length * 31 + layout.length);
        for (let c = 0; c < 1500; c++) {
          const seed = Math.floor(rnd() * 2 ** 31);
          const g = randomGraph(seed, { nodes: 1 + Math.floor(rnd() * 70), types: 2, avgDegree: 0.5 + rnd() * 2.5 });
          const d = computeDominators(g, undefined, undefined, algorithm, layout);
          expect(d.algorithm).toBe(algorithm);
          expect(Array.from(d.idom), `seed ${seed}`).toEqual(Array.from(naiveAnalysis(g).idom));
        }
      });
    }
  }

  it('both DFS record layouts give the same numbering, order and dominators (random graphs with weak roots, 0–6 references per node)', () => {
    const rnd = mulberry32(77);
    for (let c = 0; c < 400; c++) {
      const seed = Math.floor(rnd() * 2 ** 31);
      const g = randomGraph(seed, { nodes: 1 + Math.floor(rnd() * 400), types: 3, avgDegree: rnd() * 6 });
      const a = computeDominators(g, undefined, undefined, 'semi-nca', 'compact');
      const b = computeDominators(g, undefined, undefined, 'semi-nca', 'inline');
      expect(Array.from(b.order), `seed ${seed}`).toEqual(Array.from(a.order));
      expect(Array.from(b.orderIdom), `seed ${seed}`).toEqual(Array.from(a.orderIdom));
      expect(Array.from(b.idom), `seed ${seed}`).toEqual(Array.from(a.idom));
    }
  });

  it('SEMI-NCA stays fast on the shape that makes the plain NCA climb quadratic, with the same result as Lengauer–Tarjan', { timeout: 60_000 }, () => {
    // k = m = 3000 took ~k²/2 = 4.5M climb steps one idom at a time; the jump pointers need
    // O(m log k). At k = m = 100,000 the plain climb would take 5·10⁹ steps (minutes): this
    // finishing inside the timeout is the "never hangs" check.
    for (const k of [3000, 100_000]) {
      const g = listWithSharedTail(k, k);
      const auto = computeDominators(g);
      expect(auto.algorithm).toBe('semi-nca');
      const lt = computeDominators(g, undefined, undefined, 'lengauer-tarjan');
      expect(lt.algorithm).toBe('lengauer-tarjan');
      expect(Array.from(auto.idom)).toEqual(Array.from(lt.idom));
      // every tail object is also reachable through C, so only S dominates it
      const s = 1;
      for (let j = 0; j < k; j++) expect(auto.idom[2 + k + j]).toBe(s);
      expect(auto.idom[2 + k - 1]).toBe(2 + k - 2); // the list stays a chain
      expect(auto.idom[2 + 2 * k]).toBe(s); // C
      expect(auto.idom[0]).toBe(NONE);
    }
  });

  it('uses SEMI-NCA on ordinary graphs', () => {
    expect(computeDominators(randomGraph(5, { nodes: 300, types: 3, avgDegree: 2 })).algorithm).toBe('semi-nca');
  });
});

/**
 * root → S; S → L1 → … → Lk (a list the DFS walks first); Lk → B1 … Bm; S → C → B1 … Bm.
 * Each Bj has parent Lk but semidominator S, so SEMI-NCA climbs the whole list for each of them.
 */
function listWithSharedTail(k: number, m: number): HeapGraph {
  const b = new HeapGraphBuilder();
  const pseudo = b.addType('[pseudo]');
  const t = b.addType('Obj', 'x.dll');
  const n = 2 + k + m + 1;
  b.createNodes(n);
  const list = (i: number): number => 2 + i;
  const tail = (j: number): number => 2 + k + j;
  const c = 2 + k + m;
  b.setNode(0, pseudo, 0, [1]);
  b.setNode(1, pseudo, 0, [list(0), c]);
  b.addFlags(0, NODE_PSEUDO);
  b.addFlags(1, NODE_PSEUDO);
  for (let i = 0; i < k; i++) b.setNode(list(i), t, 8, i + 1 < k ? [list(i + 1)] : Array.from({ length: m }, (_, j) => tail(j)));
  for (let j = 0; j < m; j++) b.setNode(tail(j), t, 8, []);
  b.setNode(c, t, 8, Array.from({ length: m }, (_, j) => tail(j)));
  b.setRoot(0);
  return b.finish(emptyMetadata('synthetic'));
}

import { describe, expect, it } from 'vitest';
import { groupLaterPredecessors, numberByDfs, numberByDfsInline } from '../../../../shared/analysis/dominators-dfs.js';
import { countLaterPredecessors, laterPredecessorsByRescan, RESCAN_PAD, RUN_START } from '../../../../shared/analysis/dominators-rescan.js';
import type { DfsLayout } from '../../../../shared/analysis/dominators.js';
import { computeDominatorPositions, computeDominators, inlineFits } from '../../../../shared/analysis/dominators.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { NEVER_CANCELLED } from '../../../../shared/util/cancellation.js';
import { NO_PROGRESS } from '../../../../shared/util/progress.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { sameThreadHelper } from '../../../helpers/same-thread-helper.js';
import { mulberry32, randomGraph, syntheticHeap } from '../../../helpers/random-graph.js';

/** The DFS of dominators.ts on its own, with or without its pair buckets. */
function dfs(g: HeapGraph, inline: boolean, collectPairs: boolean) {
  const n = g.nodeCount;
  const rec = new Uint32Array((inline ? 4 : 2) * (n + 1));
  const vertex = new Uint32Array(n + 1);
  const parent = new Uint32Array(n + 1);
  const semi = new Uint32Array(n + 1);
  const run = (inline ? numberByDfsInline : numberByDfs)(g, rec, vertex, parent, semi, NEVER_CANCELLED, NO_PROGRESS, 2 * n, collectPairs);
  return { rec, vertex, parent, semi, run };
}

/** dfs() with the records in a SharedArrayBuffer and RESCAN_PAD words past them, as a helper needs. */
function dfsShared(g: HeapGraph, inline: boolean) {
  const n = g.nodeCount;
  const words = (inline ? 4 : 2) * (n + 1);
  const rec = new Uint32Array(new SharedArrayBuffer(4 * (words + RESCAN_PAD)));
  const vertex = new Uint32Array(n + 1);
  const parent = new Uint32Array(n + 1);
  const semi = new Uint32Array(n + 1);
  const run = (inline ? numberByDfsInline : numberByDfs)(g, rec, vertex, parent, semi, NEVER_CANCELLED, NO_PROGRESS, 2 * n, false);
  return { rec, vertex, parent, semi, run };
}

/** A random graph of up to 300 nodes, or (`big`) a .NET-like heap of 3,000 to 23,000. */
function randomCase(rnd: () => number, big: boolean): { seed: number; g: HeapGraph } {
  const seed = Math.floor(rnd() * 2 ** 31);
  const g = big ? syntheticHeap(3000 + Math.floor(rnd() * 20000), 1 + rnd() * 3, seed) : randomGraph(seed, { nodes: 1 + Math.floor(rnd() * 300), types: 3, avgDegree: rnd() * 5 });
  return { seed, g };
}

/** Later predecessors per preorder number, each list sorted, from the marked runs. */
function decodeMarked(pred: Uint32Array, semi: Uint32Array, count: number): Map<number, number[]> {
  const out = new Map<number, number[]>();
  let at = 0;
  for (let u = 1; u <= count; u++) {
    if (semi[u] < RUN_START) continue;
    expect(pred[at] >= RUN_START, `run of ${u} starts marked`).toBe(true);
    const run = [pred[at++] - RUN_START];
    while (at < pred.length && pred[at] < RUN_START) run.push(pred[at++]);
    out.set(u, run.sort((a, b) => a - b));
  }
  expect(at).toBe(pred.length);
  return out;
}

/** The same from the buckets' grouping (run starts in forest slot 1 of each 2-word record). */
function decodeGrouped(g: HeapGraph, inline: boolean): Map<number, number[]> {
  const d = dfs(g, inline, true);
  const forest = new Uint32Array(2 * (g.nodeCount + 1));
  const pred = groupLaterPredecessors(d.run, forest, 2, NEVER_CANCELLED);
  const out = new Map<number, number[]>();
  for (let u = 1; u <= d.run.count; u++) {
    const end = u === d.run.count ? pred.length : forest[2 * (u + 1) + 1];
    const run = Array.from(pred.subarray(forest[2 * u + 1], end)).sort((a, b) => a - b);
    if (run.length > 0) out.set(u, run);
  }
  return out;
}

describe('laterPredecessorsByRescan', () => {
  it('finds the cross and back references of a tiny graph, one marked run per target', () => {
    // [root] → R → A → B → A (back); R → C → B, C → A (cross); C → D (tree), D → D (self)
    const t = tinyGraph((b) => {
      b.root('R').ref('A', 'C');
      b.node('A', 10).ref('B');
      b.node('B', 20).ref('A');
      b.node('C', 30).ref('B', 'A', 'D');
      b.node('D', 5).ref('D');
    });
    const g = t.graph;
    const d = dfs(g, false, false);
    expect(d.run.pairCount).toBe(0); // no pair stored by the DFS
    const pred = laterPredecessorsByRescan(g, d.rec, 2, d.vertex, d.semi, d.run.count, NEVER_CANCELLED);
    expect(pred.length).toBe(3);
    const num = (name: string) => d.rec[2 * t.id(name)];
    const runs = decodeMarked(pred, d.semi, d.run.count);
    expect([...runs.keys()].sort((a, b) => a - b)).toEqual([num('A'), num('B')]);
    expect(runs.get(num('A'))).toEqual([num('B'), num('C')].sort((a, b) => a - b));
    expect(runs.get(num('B'))).toEqual([num('C')]);
    // the marks come off in the semidominator pass; the values under them are the DFS's semi
    expect(d.semi[num('A')] - RUN_START).toBe(num('R'));
    expect(d.semi[num('C')]).toBe(num('R'));
  });

  it('gives the buckets’ pairs, run for run, on random graphs with weak roots and dead parts, both record layouts', () => {
    const rnd = mulberry32(9001);
    for (let c = 0; c < 300; c++) {
      const { seed, g } = randomCase(rnd, c % 10 === 9);
      for (const inline of [false, true]) {
        const d = dfs(g, inline, false);
        const pred = laterPredecessorsByRescan(g, d.rec, inline ? 4 : 2, d.vertex, d.semi, d.run.count, NEVER_CANCELLED);
        expect(decodeMarked(pred, d.semi, d.run.count), `seed ${seed} inline ${inline}`).toEqual(decodeGrouped(g, inline));
      }
    }
  });
});

describe('the rescan’s progress', () => {
  // 300,000 nodes: each pass reports every 65,536 nodes, so each reports more than once
  const g = syntheticHeap(300_000, 2.5, 17);
  const n = g.nodeCount;

  it('reports its passes from 0 to 1, in order, several times each', () => {
    const d = dfs(g, false, false);
    const seen: number[] = [];
    laterPredecessorsByRescan(g, d.rec, 2, d.vertex, d.semi, d.run.count, NEVER_CANCELLED, null, (f) => seen.push(f));
    expect(seen.length).toBeGreaterThanOrEqual(12); // 5 + 5 + 5 block reports at 300k, and the end
    for (let i = 1; i < seen.length; i++) expect(seen[i], `report ${i}`).toBeGreaterThanOrEqual(seen[i - 1]);
    expect(seen[0]).toBeGreaterThanOrEqual(0);
    expect(seen.filter((f) => f > 0 && f < 0.3).length, 'count pass').toBeGreaterThanOrEqual(3);
    expect(seen.filter((f) => f > 0.5 && f < 1).length, 'fill pass').toBeGreaterThanOrEqual(3);
    expect(seen[seen.length - 1]).toBe(1);
  });

  it('computeDominators with the rescan: the DFS fills the first quarter, the rescan the second, the bar never goes back', () => {
    const calls: number[] = [];
    computeDominators(g, NEVER_CANCELLED, (phase, done, total) => {
      expect(phase).toBe('dominators');
      expect(total).toBe(2 * n);
      calls.push(done);
    }, 'auto', 'auto', false, null, 'rescan');
    for (let i = 1; i < calls.length; i++) expect(calls[i], `report ${i}`).toBeGreaterThanOrEqual(calls[i - 1]);
    expect(calls[calls.length - 1]).toBe(2 * n);
    // what the rescan reported: strictly inside (n/2, n), where neither the DFS (≤ n/2) nor the
    // semidominator pass (≥ n) reports
    expect(calls.filter((d) => d > n / 2 && d < n).length).toBeGreaterThanOrEqual(6);
  });
});

describe('laterPredecessorsByRescan with a helper thread’s share', () => {
  it('gives one thread’s runs and marks, on random graphs and heaps of up to 23,000 nodes (both shares busy), both record layouts', () => {
    const rnd = mulberry32(4242);
    for (let c = 0; c < 60; c++) {
      const { seed, g } = randomCase(rnd, c % 4 === 3);
      for (const inline of [false, true]) {
        const one = dfs(g, inline, false);
        const want = laterPredecessorsByRescan(g, one.rec, inline ? 4 : 2, one.vertex, one.semi, one.run.count, NEVER_CANCELLED);
        const two = dfsShared(g, inline);
        const helper = sameThreadHelper(g);
        const got = laterPredecessorsByRescan(g, two.rec, inline ? 4 : 2, two.vertex, two.semi, two.run.count, NEVER_CANCELLED, helper);
        expect(helper.jobs).toEqual(['rescan-count', 'touch-pages', 'rescan-fill']);
        expect(got.length, `seed ${seed} inline ${inline}`).toBe(want.length);
        expect(decodeMarked(got, two.semi, two.run.count), `seed ${seed} inline ${inline}`).toEqual(decodeMarked(want, one.semi, one.run.count));
        expect(Array.from(two.semi)).toEqual(Array.from(one.semi));
      }
    }
  });

  it('splits the targets: on a heap of 20,000 nodes each share counts some pairs, and together all', () => {
    const g = syntheticHeap(20000, 2.5, 77);
    const one = dfs(g, false, false);
    const all = laterPredecessorsByRescan(g, one.rec, 2, one.vertex, one.semi, one.run.count, NEVER_CANCELLED).length;
    const counts = [0, 1].map((part) => {
      const d = dfsShared(g, false);
      d.rec.fill(0x7fffffff, 2 * (g.nodeCount + 1)); // both dummies
      for (let t = 0; t < g.nodeCount; t++) d.rec[2 * t + 1] = 0;
      return countLaterPredecessors(g, d.rec, 2, part, 1, NEVER_CANCELLED);
    });
    expect(counts[0]).toBeGreaterThan(all / 4);
    expect(counts[1]).toBeGreaterThan(all / 4);
    expect(counts[0] + counts[1]).toBe(all);
  });

  it('refuses records that another thread cannot read, or without the dummy records’ words', () => {
    const g = syntheticHeap(3000, 2, 5);
    const d = dfs(g, false, false);
    expect(() => laterPredecessorsByRescan(g, d.rec, 2, d.vertex, d.semi, d.run.count, NEVER_CANCELLED, sameThreadHelper(g))).toThrow(/shared/);
  });

  it('computeDominatorPositions with a helper: the same order and dominators as the buckets', () => {
    const rnd = mulberry32(777);
    for (let c = 0; c < 60; c++) {
      const seed = Math.floor(rnd() * 2 ** 31);
      const g = c % 5 === 4 ? syntheticHeap(5000 + Math.floor(rnd() * 20000), 0.5 + rnd() * 3, seed) : randomGraph(seed, { nodes: 1 + Math.floor(rnd() * 200), types: 2, avgDegree: rnd() * 4 });
      const want = computeDominators(g, undefined, undefined, 'semi-nca', 'auto', false, null, 'buckets');
      const helper = sameThreadHelper(g);
      const got = computeDominatorPositions(g, undefined, undefined, 'semi-nca', 'auto', false, null, 'rescan', helper);
      // the DFS's page touches, the helper's share of each rescan pass (and the list's page
      // touches between them), then its look-ahead for the semidominator pass
      expect(helper.jobs).toEqual(['touch-pages', 'rescan-count', 'touch-pages', 'rescan-fill', 'semi-prefetch']);
      expect(Array.from(got.order), `seed ${seed}`).toEqual(Array.from(want.order));
      expect(Array.from(got.orderIdom), `seed ${seed}`).toEqual(Array.from(want.orderIdom));
      expect(got.spare!.forest.buffer).toBeInstanceOf(SharedArrayBuffer);
      // the DFS's other scratch too, for the page touches
      expect(got.spare!.semi.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(got.order.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(got.orderIdom.buffer).toBeInstanceOf(SharedArrayBuffer);
    }
  });
});

describe("computeDominators with later predecessors 'rescan'", () => {
  it('gives exactly the buckets’ dominators, order and positions (compact and inline records)', () => {
    const rnd = mulberry32(31337);
    for (let c = 0; c < 500; c++) {
      const seed = Math.floor(rnd() * 2 ** 31);
      const g = c % 20 === 19 ? syntheticHeap(5000 + Math.floor(rnd() * 30000), 0.5 + rnd() * 3, seed) : randomGraph(seed, { nodes: 1 + Math.floor(rnd() * 200), types: 2, avgDegree: rnd() * 4 });
      for (const layout of ['compact', 'inline', 'auto'] as DfsLayout[]) {
        const want = computeDominators(g, undefined, undefined, 'semi-nca', layout, false, null, 'buckets');
        const got = computeDominators(g, undefined, undefined, 'semi-nca', layout, false, null, 'rescan');
        expect(Array.from(got.idom), `seed ${seed} ${layout}`).toEqual(Array.from(want.idom));
        expect(Array.from(got.reachable)).toEqual(Array.from(want.reachable));
        expect(Array.from(got.order)).toEqual(Array.from(want.order));
        expect(Array.from(got.orderIdom)).toEqual(Array.from(want.orderIdom));
      }
    }
    expect(inlineFits(10, 20)).toBe(true); // 'auto' above took the inline records for sparse graphs
  });

  it('keeps idom in the memory of its scratch semidominators: n + 1 words, not a fresh n', () => {
    const g = syntheticHeap(4000, 2.5, 3);
    const d = computeDominators(g);
    expect(d.idom.length).toBe(g.nodeCount);
    expect(d.idom.buffer.byteLength).toBe(4 * (g.nodeCount + 1));
  });
});

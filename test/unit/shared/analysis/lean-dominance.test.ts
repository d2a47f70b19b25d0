import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeDominance, leanDominanceAnalysis, type DominanceAnalysis } from '../../../../shared/analysis/analyze.js';
import { invertOrderInPlace } from '../../../../shared/analysis/dominator-tree.js';
import { readGcdump } from '../../../../shared/formats/gcdump/gcdump-reader.js';
import { NONE } from '../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { fixturePath, NO_FIXTURES } from '../../../helpers/fixtures.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { sameThreadHelper } from '../../../helpers/same-thread-helper.js';
import { sharedChildHeap } from '../../../helpers/tiny-heaps.js';
import { mulberry32, randomGraph, syntheticHeap } from '../../../helpers/random-graph.js';

// The app's low-memory plan (issue 17): the whole dominance result in the dominators' dead
// buffers. It must give exactly what the fast plan gives, every column.

const COLUMNS = ['idom', 'retainedSize', 'reachable', 'treePosition', 'treeChildStart', 'domChildren', 'typeRetained', 'typeReachableCount', 'typeReachableShallow', 'typeUnreachableCount', 'typeUnreachableShallow'] as const;
const FIGURES = ['reachableCount', 'reachableSize', 'unreachableCount', 'unreachableSize', 'reachableObjectCount', 'unreachableObjectCount', 'unreachableObjectSize', 'unreachableFrozenCount', 'unreachableFrozenSize'] as const;

function expectSame(lean: DominanceAnalysis, full: DominanceAnalysis, label: string): void {
  for (const c of COLUMNS) expect(Array.from(lean[c]), `${label}: ${c}`).toEqual(Array.from(full[c]));
  for (const f of FIGURES) expect(lean[f], `${label}: ${f}`).toBe(full[f]);
}

describe('leanDominanceAnalysis', () => {
  // [root] → A(10) → B(20) → C(30); A → D(5); [root] → E(7) → D; Dead(1000) → A (unreachable); Lost(3)
  const t = sharedChildHeap((b) => b.node('Lost', 3, 'T3'));

  it('gives the exact tree and sizes of a hand-built graph', () => {
    const a = leanDominanceAnalysis(t.graph);
    const id = (name: string) => t.id(name);
    const children = (name: string) => {
      const p = a.treePosition[id(name)];
      return Array.from(a.domChildren.subarray(a.treeChildStart[p], a.treeChildStart[p + 1]));
    };
    expect(['A', 'B', 'C', 'D', 'E', 'Dead', 'Lost'].map((x) => a.retainedSize[id(x)])).toEqual([60, 50, 30, 5, 7, 1000, 3]);
    expect(a.retainedSize[t.graph.rootIndex]).toBe(72);
    // children by retained size desc
    expect(children('R')).toEqual([id('A'), id('E'), id('D')]);
    expect(children('A')).toEqual([id('B')]);
    expect(a.idom[id('D')]).toBe(id('R'));
    expect(a.idom[id('Dead')]).toBe(NONE);
    expect(a.treePosition[id('Dead')]).toBe(NONE);
    // the forest roots: the root, then the unreachable nodes by size desc
    expect(Array.from(a.domChildren.subarray(a.treeChildStart[a.treeChildStart.length - 1]))).toEqual([t.graph.rootIndex, id('Dead'), id('Lost')]);
    expectSame(a, analyzeDominance(t.graph), 'tiny');
  });

  it('matches analyzeDominance column for column on random heaps, with unreachable parts and both DFS layouts', () => {
    for (let seed = 1; seed <= 16; seed++) {
      const g = seed % 2 ? randomGraph(seed, { nodes: 300 + 37 * seed, types: 5, avgDegree: 1.2 + (seed % 5) * 0.5 }) : syntheticHeap(1200 + 50 * seed, 2.5, seed);
      expectSame(leanDominanceAnalysis(g), analyzeDominance(g), `seed ${seed}`);
    }
  });

  it('sorts a run of thousands of children and the unreachable run reading keys by node: the same order, ties by ordinal', () => {
    const t = wideRoot();
    const a = leanDominanceAnalysis(t.graph);
    expectSame(a, analyzeDominance(t.graph), 'wide');
    expectSortedRun(a, t.id('R'));
  });

  it('puts the result in the dominators’ buffers: domChildren in the later predecessors when they hold n words, treePosition in the preorder', () => {
    const g = syntheticHeap(5000, 2.5, 3);
    const a = leanDominanceAnalysis(g);
    const n = g.nodeCount;
    // preorder (n + 1 words), DFS parents (n + 1), semidominators (n + 1), DFS records (2 words per node + 2)
    expect(a.treePosition.buffer.byteLength).toBe(4 * (n + 1));
    expect(a.idom.buffer.byteLength).toBe(4 * (n + 1));
    expect(a.treeChildStart.buffer.byteLength).toBe(4 * (n + 1));
    expect(a.retainedSize.buffer.byteLength).toBe(8 * (n + 1));
    // the later predecessors of this heap outnumber its nodes: domChildren is in their list, not its own n words
    expect(a.domChildren.buffer.byteLength).toBeGreaterThan(4 * n);
  });

  it.skipIf(!fixturePath('gcdump/perfview_test2.gcdump'))(`matches analyzeDominance on a real dump (${fixturePath('gcdump') ? 'perfview_test2' : NO_FIXTURES})`, async () => {
    const path = fixturePath('gcdump/perfview_test2.gcdump')!;
    const g = await readGcdump(new MemoryByteSource(new Uint8Array(readFileSync(path)), 'perfview_test2.gcdump'));
    const a = leanDominanceAnalysis(g);
    expect(a.reachableCount).toBeGreaterThan(1000);
    expectSame(a, analyzeDominance(g), 'perfview_test2');
  });
});

/**
 * The root holds 20,000 objects, most of three sizes (segments of thousands of ties, sorted by
 * ordinal in place), the rest of 40 sizes, each fifth with a child; 700 unreachable of 7 sizes.
 */
function wideRoot() {
  const rnd = mulberry32(5);
  return tinyGraph((b) => {
    const kids: string[] = [];
    for (let i = 0; i < 20_000; i++) kids.push(`k${i}`);
    b.root('R').ref(...kids);
    for (let i = 0; i < 20_000; i++) {
      const size = i % 7 === 0 ? 8 * (1 + Math.floor(rnd() * 40)) : [24, 32, 4096][Math.floor(rnd() * 3)];
      const node = b.node(`k${i}`, size, `T${i % 3}`);
      if (i % 5 === 0) {
        node.ref(`c${i}`);
        b.node(`c${i}`, 16 * (1 + Math.floor(rnd() * 4)), 'C');
      }
    }
    for (let i = 0; i < 700; i++) b.node(`dead${i}`, 24 * (1 + (i % 7)), 'D');
  });
}

function expectSortedRun(a: DominanceAnalysis, parent: number): void {
  const p = a.treePosition[parent];
  const run = Array.from(a.domChildren.subarray(a.treeChildStart[p], a.treeChildStart[p + 1]));
  expect(run).toHaveLength(20_000);
  for (let i = 1; i < run.length; i++) {
    const [x, y] = [a.retainedSize[run[i - 1]], a.retainedSize[run[i]]];
    expect(x > y || (x === y && run[i - 1] < run[i]), `position ${i}`).toBe(true);
  }
}

// With a second thread (helper-thread.ts), run here on the same thread at each join: the jobs'
// shares are disjoint, so this is what two threads compute.
describe('leanDominanceAnalysis with a helper thread', () => {
  it('hands over both rescan passes and the widest run’s sort, and gives the same columns, in shared memory', () => {
    const t = wideRoot();
    const helper = sameThreadHelper(t.graph);
    const a = leanDominanceAnalysis(t.graph, { helper });
    expect(helper.jobs).toEqual(['touch-pages', 'rescan-count', 'touch-pages', 'rescan-fill', 'semi-prefetch', 'sort-run']);
    expectSame(a, analyzeDominance(t.graph), 'wide, helped');
    expectSortedRun(a, t.id('R'));
    expect(a.retainedSize.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(a.domChildren.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('counts the helper’s sort of the widest run in the tree phase, with the unreachable run and the inversion, and reports while waiting for it', () => {
    const t = wideRoot();
    const inner = sameThreadHelper(t.graph);
    // the job runs at join here, so the report made while "waiting" comes after it: all placed
    const helper = { start: inner.start, join: (waiting?: () => void) => { const c = inner.join(); waiting?.(); return c; } };
    const tree: [number, number][] = [];
    const a = leanDominanceAnalysis(t.graph, { helper, progress: (phase, done, total) => phase === 'tree' && tree.push([done, total]) });
    expectSame(a, analyzeDominance(t.graph), 'wide, progress');
    const n = t.graph.nodeCount;
    // the positions (reachable), the unreachable run's sort, the inversion (every node), and the
    // root's 20,000 children, placed by the helper
    const work = a.reachableCount + (n - a.reachableCount) + n + 20_000;
    expect(tree.at(-1)).toEqual([work, work]);
    expect(tree.filter(([d, w]) => d === work && w === work)).toHaveLength(2); // the wait's report and the end
    for (let i = 1; i < tree.length; i++) expect(tree[i][0] / tree[i][1]).toBeGreaterThanOrEqual(tree[i - 1][0] / tree[i - 1][1]);
  });

  it('moves the tree phase’s bar through the inversion too (1.2M nodes, no helper), never back', () => {
    const g = syntheticHeap(1_200_000, 2.5, 9);
    const tree: [number, number][] = [];
    leanDominanceAnalysis(g, { progress: (phase, done, total) => phase === 'tree' && tree.push([done, total]) });
    const n = g.nodeCount;
    expect(tree.at(-1)).toEqual([2 * n, 2 * n]); // positions + unreachable run = n, then the inversion's n
    expect(tree.filter(([d]) => d > n && d < 2 * n).length).toBeGreaterThan(0);
    for (let i = 1; i < tree.length; i++) expect(tree[i][0] / tree[i][1]).toBeGreaterThanOrEqual(tree[i - 1][0] / tree[i - 1][1]);
  });

  it('matches analyzeDominance on random heaps (the runs too short to hand over: the passes only)', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const g = seed % 2 ? randomGraph(seed, { nodes: 300 + 37 * seed, types: 5, avgDegree: 1.2 + (seed % 5) * 0.5 }) : syntheticHeap(3000 + 500 * seed, 2.5, seed);
      const helper = sameThreadHelper(g);
      expectSame(leanDominanceAnalysis(g, { helper }), analyzeDominance(g), `seed ${seed}`);
      expect(helper.jobs.slice(0, 4)).toEqual(['touch-pages', 'rescan-count', 'touch-pages', 'rescan-fill']);
    }
  });

  it.skipIf(!fixturePath('gcdump/perfview_test2.gcdump'))(`matches analyzeDominance on a real dump (${fixturePath('gcdump') ? 'perfview_test2' : NO_FIXTURES})`, async () => {
    const path = fixturePath('gcdump/perfview_test2.gcdump')!;
    const g = await readGcdump(new MemoryByteSource(new Uint8Array(readFileSync(path)), 'perfview_test2.gcdump'));
    expectSame(leanDominanceAnalysis(g, { helper: sameThreadHelper(g) }), analyzeDominance(g), 'perfview_test2, helped');
  });
});

describe('invertOrderInPlace', () => {
  it('gives each node’s position in the order, NONE for the others, in the order’s own buffer', () => {
    // nodes 0..5; order = [4, 0, 5] starting one word into a 7-word buffer, as the dominators' preorder does
    const buffer = new Uint32Array([99, 4, 0, 5, 7, 7, 7]);
    const order = buffer.subarray(1, 4);
    const reachable = Uint8Array.of(1, 0, 0, 0, 1, 1);
    const pos = invertOrderInPlace(order, reachable);
    expect(pos.buffer).toBe(buffer.buffer);
    expect(Array.from(pos)).toEqual([1, NONE, NONE, NONE, 0, 2]);
  });

  it('inverts random orders of random subsets', () => {
    const rnd = mulberry32(17);
    for (let trial = 0; trial < 50; trial++) {
      const n = 1 + Math.floor(rnd() * 200);
      const nodes = Array.from({ length: n }, (_, i) => i);
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(rnd() * (i + 1));
        [nodes[i], nodes[j]] = [nodes[j], nodes[i]];
      }
      const r = Math.floor(rnd() * (n + 1));
      const chosen = nodes.slice(0, r);
      const reachable = new Uint8Array(n);
      for (const v of chosen) reachable[v] = 1;
      const buffer = new Uint32Array(n + 1);
      buffer.set(chosen, 1);
      const want = new Array<number>(n).fill(NONE);
      chosen.forEach((v, p) => (want[v] = p));
      expect(Array.from(invertOrderInPlace(buffer.subarray(1, r + 1), reachable))).toEqual(want);
    }
  });

  // several walks at once (dominator-tree.ts invertCycles): one cycle through every node (all walks
  // on it), only fixed points (a walk per node), and many cycles of every length
  it('inverts one long cycle, fixed points and mixed cycles of 100,000 nodes', () => {
    const rnd = mulberry32(5);
    const n = 100_000;
    const sattolo = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rnd() * i);
      [sattolo[i], sattolo[j]] = [sattolo[j], sattolo[i]];
    }
    const shuffled = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
    }
    const identity = Array.from({ length: n }, (_, i) => i);
    for (const order of [sattolo, identity, shuffled]) {
      const want = new Array<number>(n);
      order.forEach((v, p) => (want[v] = p));
      const got = invertOrderInPlace(Uint32Array.from(order), new Uint8Array(n).fill(1));
      expect(Array.from(got)).toEqual(want);
    }
  });
});

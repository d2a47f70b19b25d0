import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { buildDominatorTree, buildOrderTree, dominatorChildCount, dominatorChildren, dominatorPath, forestRoots } from '../../../../shared/analysis/dominator-tree.js';
import { NONE } from '../../../../shared/graph/heap-graph.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';

describe('dominator tree', () => {
  const t = tinyGraph((b) => {
    b.root('S').ref('A', 'B', 'C', 'D');
    b.node('A', 5);
    b.node('B', 30).ref('B1', 'B2', 'B3');
    b.node('C', 5);
    b.node('D', 40);
    b.node('B1', 1);
    b.node('B2', 2);
    b.node('B3', 2).ref('B31');
    b.node('B31', 7);
    b.node('Dead1', 3).ref('A');
    b.node('Dead2', 9);
    b.node('Dead3', 3);
  });
  const a = analyzeGraph(t.graph);
  const tree = { treePosition: a.treePosition, treeChildStart: a.treeChildStart, domChildren: a.domChildren };
  const names = (nodes: Uint32Array): string[] => Array.from(nodes, (v) => t.name(v));

  it('sorts children by retained size desc, ties by ordinal', () => {
    // B retains 30 + 1 + 2 + 9 = 42 > D 40; A and C tie at 5 and keep ordinal order
    expect(names(dominatorChildren(tree, t.id('S'), 0, 100))).toEqual(['B', 'D', 'A', 'C']);
    expect(names(dominatorChildren(tree, t.id('B'), 0, 100))).toEqual(['B3', 'B2', 'B1']);
    expect(names(dominatorChildren(tree, t.id('[root]'), 0, 100))).toEqual(['S']);
    expect(dominatorChildCount(tree, t.id('B31'))).toBe(0);
  });

  it('windows clip to the child list', () => {
    expect(names(dominatorChildren(tree, t.id('S'), 1, 3))).toEqual(['D', 'A']);
    expect(names(dominatorChildren(tree, t.id('S'), 3, 99))).toEqual(['C']);
    expect(names(dominatorChildren(tree, t.id('S'), 7, 9))).toEqual([]);
    expect(names(dominatorChildren(tree, t.id('S'), -5, 1))).toEqual(['B']);
    expect(names(dominatorChildren(tree, t.id('Dead1'), 0, 10))).toEqual([]);
  });

  it('lists the root, then unreachable nodes by size desc, as forest roots', () => {
    expect(names(forestRoots(tree))).toEqual(['[root]', 'Dead2', 'Dead1', 'Dead3']);
    expect(a.treeChildStart[a.reachableCount]).toBe(a.reachableCount - 1);
    expect(a.treePosition[t.id('Dead1')]).toBe(NONE);
    expect(dominatorChildCount(tree, t.id('Dead2'))).toBe(0);
  });

  it('gives the dominator chain from the root', () => {
    expect(names(dominatorPath(a.idom, t.id('B31')))).toEqual(['[root]', 'S', 'B', 'B3', 'B31']);
    expect(names(dominatorPath(a.idom, t.id('[root]')))).toEqual(['[root]']);
    expect(names(dominatorPath(a.idom, t.id('Dead1')))).toEqual(['Dead1']);
  });

  // A star: the root (node 0) dominates every other node directly. Nodes sit at shuffled
  // preorder positions so the ordinal tie-break cannot come for free from the input order.
  function star(values: number[], byNode = false): { order: number[]; children: number[] } {
    const k = values.length;
    const n = k + 1;
    const order = [0, ...Array.from({ length: k }, (_, i) => 1 + ((i * 7919) % k))];
    const orderIdom = Uint32Array.from(order, (_, j) => (j === 0 ? NONE : 0));
    const idom = new Uint32Array(n).fill(0);
    idom[0] = NONE;
    const dom = { idom, reachable: new Uint8Array(n).fill(1), order: Uint32Array.from(order), orderIdom, algorithm: 'semi-nca' as const };
    const orderRetained = Float64Array.from(order, (v) => (v === 0 ? 0 : values[v - 1]));
    // byNode: retained sizes by node too, so runs of 4,096+ go through the ordinal bitmap
    const retainedByNode = byNode ? Float64Array.from({ length: n }, (_, v) => (v === 0 ? 0 : values[v - 1])) : null;
    const tr = buildDominatorTree(dom, buildOrderTree(dom), orderRetained, new Uint32Array(n), 0, undefined, undefined, retainedByNode);
    return { order, children: Array.from(dominatorChildren(tr, 0, 0, n)) };
  }
  const bySizeThenOrdinal = (values: number[]): number[] =>
    values
      .map((v, i) => ({ v, node: i + 1 }))
      .sort((x, y) => y.v - x.v || x.node - y.node)
      .map((x) => x.node);

  it('sorts a short run (insertion sort) by size desc, then ordinal', () => {
    const values = [5, 2 ** 40, 5, 0, 2 ** 32, 2 ** 32 - 1, 5];
    expect(star(values).children).toEqual([2, 5, 6, 1, 3, 7, 4]);
  });

  it('sorts a long run (radix sort) exactly, sizes beyond 2^32 and ties included', () => {
    const base = [0, 2 ** 52 + 1, 2 ** 52, 2 ** 33 + 7, 2 ** 33 + 7, 2 ** 32 - 1, 2 ** 32, 2 ** 41 + 2 ** 22, 2 ** 41 + 2 ** 21, 12, 2 ** 43, 12, 12];
    const values = Array.from({ length: 400 }, (_, i) => base[i % base.length] + (i % 3 === 0 ? 0 : i % 5));
    const { order, children } = star(values);
    expect(order.slice(1, 6)).toEqual([1, 320, 239, 158, 77]); // really shuffled
    expect(children).toEqual(bySizeThenOrdinal(values));
  });

  it('sorts a run of 4,096+ children (put in ordinal order through a bitmap, then by size) exactly', () => {
    const values = Array.from({ length: 6000 }, (_, i) => (i % 4 === 0 ? 24 : i % 4 === 1 ? 2 ** 33 + (i % 7) : (i * 2654435761) % 100_000));
    const want = bySizeThenOrdinal(values);
    expect(star(values, true).children).toEqual(want);
    expect(star(values, false).children).toEqual(want);
  });
});

describe('unreachable objects after the root', () => {
  it('a long run of them (radix sort on size only: they are collected in ordinal order) keeps ties in ordinal order', () => {
    const t = tinyGraph((b) => {
      b.root('S').ref('A');
      b.node('A', 5);
      for (let i = 0; i < 300; i++) b.node(`D${i}`, [8, 24, 2 ** 20, 24][i % 4]);
    });
    const a = analyzeGraph(t.graph);
    const roots = Array.from(forestRoots(a), (v) => t.name(v));
    const dead = Array.from({ length: 300 }, (_, i) => ({ name: `D${i}`, size: [8, 24, 2 ** 20, 24][i % 4], node: t.id(`D${i}`) }));
    dead.sort((x, y) => y.size - x.size || x.node - y.node);
    expect(roots).toEqual(['[root]', ...dead.map((d) => d.name)]);
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../../shared/analysis/analyze.js';
import { retainerSignatures } from '../../../../../shared/analysis/dominator-signatures.js';
import { baselineOf, runInspections } from '../../../../../shared/analysis/inspections/index.js';
import { tinyGraph, type TinyGraph } from '../../../../helpers/graph-builder.js';

/**
 * Growth at dominator level against a baseline (issue 16), by hand:
 *   [static var App.Items] → List(32) → Arr(Item[], 40) → 2 Items (30 each) before, 4 after:
 *     List 132 → 192, Arr 100 → 160 (one chain: only List is reported)
 *   [static var App.Log] → Log(64): absent before (a retainer that appears)
 *   [local vars] → Holder(10) → A(Byte[], 100 → 200), B(Char[], 100 → 20): Holder 210 → 230;
 *     A grew more than its dominator, so both are reported
 *   [static var App.Cache] → Cache(100): unchanged, not reported
 */
function heap(after: boolean): TinyGraph {
  return tinyGraph((b) => {
    b.root('[static var App.Items]').ref('List');
    b.root('[static var App.Cache]').ref('Cache');
    b.root('[local vars]').ref('Holder');
    b.node('List', 32, 'List<Item>').ref('Arr');
    const arr = b.node('Arr', 40, 'Item[]');
    for (let i = 1; i <= (after ? 4 : 2); i++) {
      arr.ref(`I${i}`);
      b.node(`I${i}`, 30, 'Item');
    }
    b.node('Cache', 100, 'Dictionary');
    b.node('Holder', 10, 'Holder').ref('A', 'B');
    b.node('A', after ? 200 : 100, 'System.Byte[]');
    b.node('B', after ? 20 : 100, 'System.Char[]');
    if (after) {
      b.root('[static var App.Log]').ref('Log');
      b.node('Log', 64, 'Log');
    }
  });
}

describe('growth-retainer findings', () => {
  it('reports growing retainers once per chain, by growth, with baseline and growth bytes', () => {
    const before = heap(false);
    const ab = analyzeDominance(before.graph);
    const base = { ...baselineOf(before.graph, ab, 'before'), retainers: retainerSignatures(before.graph, ab, 'before', { minBytes: 0 }) };
    const now = heap(true);
    const fs = runInspections(now.graph, analyzeDominance(now.graph), { baseline: base }).findings.filter((f) => f.kind === 'growth-retainer');
    expect(fs.map((f) => [f.details.signature, f.bytes, f.details.baselineBytes, f.details.growthBytes, f.examples.map((e) => e.node)])).toEqual([
      ['[local vars] › Holder › System.Byte[]', 200, 100, 100, [now.id('A')]],
      ['[static var App.Log] › Log', 64, 0, 64, [now.id('Log')]],
      ['[static var App.Items] › List<Item>', 192, 132, 60, [now.id('List')]],
      ['[local vars] › Holder', 230, 210, 20, [now.id('Holder')]],
    ]);
    expect(fs[2]).toMatchObject({ objects: 1, shallowBytes: 32, title: 'List<Item> retains 60 bytes more (132 → 192)' });
  });

  it('uses the default threshold of the baseline: nothing in a heap under 1 KiB', () => {
    const before = heap(false);
    const base = baselineOf(before.graph, analyzeDominance(before.graph), 'before');
    expect(base.retainers!.minBytes).toBe(1024);
    const now = heap(true);
    expect(runInspections(now.graph, analyzeDominance(now.graph), { baseline: base }).findings.filter((f) => f.kind === 'growth-retainer')).toEqual([]);
  });
});

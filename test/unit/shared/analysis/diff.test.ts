import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { changedRows, diffSummaries, sortDiffRows } from '../../../../shared/analysis/diff.js';
import type { TypeSummary, TypeSummaryRow } from '../../../../shared/analysis/type-summary.js';
import { summarizeTypes } from '../../../../shared/analysis/type-summary.js';
import { HeapGraphBuilder } from '../../../../shared/graph/heap-graph-builder.js';
import { NODE_PSEUDO } from '../../../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../../../shared/graph/metadata.js';
import { mulberry32 } from '../../../helpers/random-graph.js';

function summary(label: string, rows: [string, number, number, number][], totalRetained?: number): TypeSummary {
  const types: TypeSummaryRow[] = rows.map(([name, count, shallow, retained]) => ({ name, module: 'm.dll', count, shallow, retained }));
  return {
    label,
    processName: null,
    processId: 0,
    timeCollected: null,
    totalCount: types.reduce((s, r) => s + r.count, 0),
    totalShallow: types.reduce((s, r) => s + r.shallow, 0),
    totalRetained: totalRetained ?? types.reduce((s, r) => s + r.retained, 0),
    types,
  };
}

describe('summarizeTypes', () => {
  it('merges types by name, counts heap objects only and takes retained sizes from the analysis', () => {
    // root → [cat] → a1 (A from a.dll, 10), a2 (A from b.dll, 20) → b1 (B, 5); b2 (B, 7) is garbage
    const b = new HeapGraphBuilder();
    const tr = b.addType('[root]');
    const tc = b.addType('[cat]');
    const ta1 = b.addType('A', 'a.dll');
    const ta2 = b.addType('A', 'b.dll');
    const tb = b.addType('B', null);
    b.createNodes(6);
    b.setNode(0, tr, 0, [1]);
    b.setNode(1, tc, 0, [2, 3]);
    b.setNode(2, ta1, 10, []);
    b.setNode(3, ta2, 20, [4]);
    b.setNode(4, tb, 5, []);
    b.setNode(5, tb, 7, [4]);
    b.addFlags(0, NODE_PSEUDO);
    b.addFlags(1, NODE_PSEUDO);
    b.setRoot(0);
    const g = b.finish({ ...emptyMetadata('synthetic'), processName: 'App', processId: 42 });
    const s = summarizeTypes(g, analyzeGraph(g), 'one.gcdump');
    expect(s.types).toEqual([
      { name: 'A', module: 'a.dll', count: 2, shallow: 30, retained: 35 },
      { name: 'B', module: null, count: 2, shallow: 12, retained: 5 },
    ]);
    expect([s.label, s.processName, s.processId, s.totalCount, s.totalShallow, s.totalRetained]).toEqual(['one.gcdump', 'App', 42, 4, 42, 35]);
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });
});

describe('diffSummaries', () => {
  const base = summary('base', [
    ['Keep', 10, 100, 1000],
    ['Gone', 2, 40, 40],
    ['Grow', 1, 8, 8],
  ]);
  const next = summary('new', [
    ['Keep', 9, 90, 900],
    ['Grow', 5, 40, 4000],
    ['New', 3, 30, 30],
  ]);

  it('gives base, new and deltas per type name, flags one-sided types, and sorts by retained growth', () => {
    const d = diffSummaries(base, next);
    expect(d.rows.map((r) => [r.name, r.status, r.baseCount, r.newCount, r.countDelta, r.shallowDelta, r.baseRetained, r.newRetained, r.retainedDelta])).toEqual([
      ['Grow', 'both', 1, 5, 4, 32, 8, 4000, 3992],
      ['New', 'added', 0, 3, 3, 30, 0, 30, 30],
      ['Gone', 'removed', 2, 0, -2, -40, 40, 0, -40],
      ['Keep', 'both', 10, 9, -1, -10, 1000, 900, -100],
    ]);
    expect([d.added, d.removed, d.base, d.next]).toEqual([1, 1, 'base', 'new']);
    expect(d.total).toEqual({
      baseCount: 13,
      newCount: 17,
      countDelta: 4,
      baseShallow: 148,
      newShallow: 160,
      shallowDelta: 12,
      baseRetained: 1048,
      newRetained: 4930,
      retainedDelta: 3882,
    });
  });

  it('sorts by any delta or by name, and filters unchanged rows', () => {
    const d = diffSummaries(base, next);
    expect(sortDiffRows(d.rows, 'count').map((r) => r.name)).toEqual(['Grow', 'New', 'Keep', 'Gone']);
    expect(sortDiffRows(d.rows, 'shallow').map((r) => r.name)).toEqual(['Grow', 'New', 'Keep', 'Gone']);
    expect(sortDiffRows(d.rows, 'name').map((r) => r.name)).toEqual(['Gone', 'Grow', 'Keep', 'New']);
    const same = diffSummaries(base, base);
    expect(changedRows(same.rows)).toEqual([]);
    expect(changedRows(d.rows).length).toBe(4);
  });

  it('agrees with a naive per-name comparison on random summaries (100 seeds)', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const rnd = mulberry32(seed);
      const make = (label: string) => {
        const rows: [string, number, number, number][] = [];
        for (let t = 0; t < 12; t++) if (rnd() < 0.7) rows.push([`T${t}`, Math.floor(rnd() * 50), Math.floor(rnd() * 5000), Math.floor(rnd() * 9000)]);
        return summary(label, rows);
      };
      const a = make('a');
      const b = make('b');
      const d = diffSummaries(a, b);
      const names = new Set([...a.types, ...b.types].map((r) => r.name));
      expect(d.rows.length).toBe(names.size);
      for (const r of d.rows) {
        const ra = a.types.find((x) => x.name === r.name);
        const rb = b.types.find((x) => x.name === r.name);
        expect(r.status).toBe(ra && rb ? 'both' : ra ? 'removed' : 'added');
        expect(r.retainedDelta).toBe((rb?.retained ?? 0) - (ra?.retained ?? 0));
        expect(r.countDelta).toBe((rb?.count ?? 0) - (ra?.count ?? 0));
        expect(r.shallowDelta).toBe((rb?.shallow ?? 0) - (ra?.shallow ?? 0));
      }
      for (let i = 1; i < d.rows.length; i++) expect(d.rows[i - 1].retainedDelta).toBeGreaterThanOrEqual(d.rows[i].retainedDelta);
      expect(d.total.retainedDelta).toBe(b.totalRetained - a.totalRetained);
    }
  });
});

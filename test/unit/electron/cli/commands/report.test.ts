import { describe, expect, it } from 'vitest';
import { analyzeTypeRetention } from '../../../../../shared/analysis/analyze.js';
import { buildReportRows, filterReportRows, reportColumns, sortReportRows } from '../../../../../electron/cli/commands/report.js';
import { renderRows } from '../../../../../electron/cli/output.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { tinyGraph } from '../../../../helpers/graph-builder.js';

/** Foo: 2 objects / 24 bytes, Bar: 1 / 24, Baz: 3 / 30; one undefined Ghost. */
function graph(): HeapGraph {
  return tinyGraph((b) => {
    b.root('[static vars]').ref('A', 'D');
    b.node('A', 16, 'Foo').ref('B', 'C', 'Ghost');
    b.node('B', 8, 'Foo');
    b.node('C', 24, 'Bar');
    b.node('D', 10, 'Baz').ref('E', 'F');
    b.node('E', 10, 'Baz');
    b.node('F', 10, 'Baz');
  }).graph;
}

/** No unreachable objects (these tests hand-make the retained sizes). */
const none = (g: HeapGraph) => ({ typeUnreachableCount: new Float64Array(g.types.count), typeUnreachableShallow: new Float64Array(g.types.count) });

const retained = (g: HeapGraph, byName: Record<string, number>) => {
  const r = new Float64Array(g.types.count);
  for (const [k, v] of Object.entries(byName)) r[g.types.names.indexOf(k)] = v;
  return r;
};

describe('report rows', () => {
  it('builds, sorts and filters unsampled rows', () => {
    const g = graph();
    const rep = buildReportRows(g, retained(g, { Foo: 48, Bar: 24, Baz: 30 }), none(g));
    expect(rep.sampled).toBe(false);
    expect(rep.objects).toBe(6);
    expect(rep.bytes).toBe(78);
    const bySize = sortReportRows([...rep.rows], 'size', false).map((r) => r.name);
    expect(bySize).toEqual(['Baz', 'Bar', 'Foo']); // 30, then the 24-byte tie by name
    expect(sortReportRows([...rep.rows], 'count', false).map((r) => r.name)).toEqual(['Baz', 'Foo', 'Bar']);
    expect(sortReportRows([...rep.rows], 'retained', false).map((r) => [r.name, r.retainedSize])).toEqual([
      ['Foo', 48],
      ['Baz', 30],
      ['Bar', 24],
    ]);
    expect(sortReportRows([...rep.rows], 'name', false).map((r) => r.name)).toEqual(['Bar', 'Baz', 'Foo']);
    expect(filterReportRows(rep.rows, 'BA').map((r) => r.name)).toEqual(['Bar', 'Baz']);
    expect(filterReportRows(rep.rows, undefined)).toBe(rep.rows);
  });

  it('sorts a sampled dump by the scaled figures and shows the Est. columns', () => {
    const g0 = graph();
    const m = new Float32Array(g0.types.count).fill(1);
    m[g0.types.names.indexOf('Bar')] = 10; // Bar: 10 objects, 240 bytes estimated
    const g: HeapGraph = { ...g0, metadata: { ...g0.metadata, countMultipliersByType: m, averageCountMultiplier: 2, averageSizeMultiplier: 4 } };
    const rep = buildReportRows(g, retained(g, {}), none(g));
    expect(rep.sampled).toBe(true);
    const rows = sortReportRows([...rep.rows], 'size', true);
    expect(rows.map((r) => [r.name, r.shallowSize, r.scaledShallowSize])).toEqual([
      ['Bar', 24, 240],
      ['Baz', 30, 30],
      ['Foo', 24, 24],
    ]);
    expect(sortReportRows([...rep.rows], 'count', true).map((r) => [r.name, r.scaledCount])).toEqual([
      ['Bar', 10],
      ['Baz', 3],
      ['Foo', 2],
    ]);
    const table = renderRows('table', rows, reportColumns('table', true));
    expect(table.split('\n')[0]).toMatch(/^Type +Count +Shallow bytes +Retained bytes +Est\. count +Est\. bytes +Unreachable +Unreachable bytes +Module$/);
    expect(table.split('\n')[2]).toMatch(/^Bar +1 +24 +0 +10 +240 +0 +0 +tiny\.dll$/);
    const plain = renderRows('table', rows, reportColumns('table', false));
    expect(plain.split('\n')[0]).toMatch(/^Type +Count +Shallow bytes +Retained bytes +Unreachable +Unreachable bytes +Module$/);
    const csv = renderRows('csv', rows.slice(0, 1), reportColumns('csv', true));
    expect(csv).toBe('type,count,shallowSize,retainedSize,scaledCount,scaledShallowSize,unreachableCount,unreachableSize,module\r\nBar,1,24,0,10,240,0,0,tiny.dll\r\n');
  });

  it('says how many objects of each type no root reaches, so retained ≥ shallow − unreachable bytes', () => {
    // Foo: A reachable, B and its clone B2 garbage; Bar: C only weakly held (unreachable); Baz reachable
    const g = tinyGraph((b) => {
      b.root('[static vars]').ref('A', 'D');
      b.root('[weak handles]', { weak: true }).ref('C');
      b.node('A', 16, 'Foo');
      b.node('B', 8, 'Foo').ref('B2');
      b.node('B2', 8, 'Foo');
      b.node('C', 24, 'Bar');
      b.node('D', 10, 'Baz');
    }).graph;
    const a = analyzeTypeRetention(g);
    const rep = buildReportRows(g, a.typeRetained, a);
    const rows = sortReportRows([...rep.rows], 'name', false);
    expect(rows.map((r) => [r.name, r.count, r.shallowSize, r.retainedSize, r.unreachableCount, r.unreachableSize])).toEqual([
      ['Bar', 1, 24, 0, 1, 24],
      ['Baz', 1, 10, 10, 0, 0],
      ['Foo', 3, 32, 16, 2, 16],
    ]);
    for (const r of rows) expect(r.retainedSize).toBeGreaterThanOrEqual(r.shallowSize - r.unreachableSize);
    const json = JSON.parse(renderRows('json', rows.slice(0, 1), reportColumns('json', false))) as Record<string, unknown>[];
    expect(json[0]).toMatchObject({ type: 'Bar', retainedSize: 0, unreachableCount: 1, unreachableSize: 24 });
  });
});

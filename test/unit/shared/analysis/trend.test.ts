import { describe, expect, it } from 'vitest';
import { growingTypes, strictlyIncreasing } from '../../../../shared/analysis/trend.js';
import type { TypeSummary } from '../../../../shared/analysis/type-summary.js';
import { AppError } from '../../../../shared/errors.js';
import { mulberry32 } from '../../../helpers/random-graph.js';

function summary(label: string, rows: [string, number, number][]): TypeSummary {
  return {
    label,
    processName: 'App',
    processId: 1,
    timeCollected: null,
    totalCount: 0,
    totalShallow: 0,
    totalRetained: 0,
    types: rows.map(([name, count, retained]) => ({ name, module: null, count, shallow: count * 8, retained })),
  };
}

describe('growingTypes', () => {
  it('reports types whose count or retained size grows strictly at every step', () => {
    const t = growingTypes([
      summary('s1', [['CountOnly', 1, 10], ['Both', 1, 1], ['Dip', 5, 5], ['Flat', 2, 2], ['Vanishes', 1, 1]]),
      summary('s2', [['CountOnly', 2, 10], ['Both', 2, 2], ['Dip', 4, 6], ['Flat', 2, 2], ['Vanishes', 2, 2], ['Late', 1, 100]]),
      summary('s3', [['CountOnly', 3, 20], ['Both', 3, 30], ['Dip', 6, 7], ['Flat', 3, 2], ['Late', 2, 200]]),
    ]);
    expect(t.labels).toEqual(['s1', 's2', 's3']);
    expect(t.typesSeen).toBe(6);
    expect(t.rows.map((r) => [r.name, r.countGrows, r.retainedGrows, r.counts, r.retained, r.countGrowth, r.retainedGrowth])).toEqual([
      ['Late', true, true, [0, 1, 2], [0, 100, 200], 2, 200],
      ['Both', true, true, [1, 2, 3], [1, 2, 30], 2, 29],
      ['CountOnly', true, false, [1, 2, 3], [10, 10, 20], 2, 10],
      ['Dip', false, true, [5, 4, 6], [5, 6, 7], 1, 2],
    ]);
    expect(t.rows[1].shallow).toEqual([8, 16, 24]);
  });

  it('needs two snapshots', () => {
    expect(() => growingTypes([summary('one', [])])).toThrow(AppError);
  });

  it('agrees with a naive all-steps check on random series (100 seeds)', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const rnd = mulberry32(seed);
      const k = 2 + Math.floor(rnd() * 4);
      const sums: TypeSummary[] = [];
      for (let i = 0; i < k; i++) {
        const rows: [string, number, number][] = [];
        for (let t = 0; t < 8; t++) if (rnd() < 0.85) rows.push([`T${t}`, Math.floor(rnd() * 4) + i, Math.floor(rnd() * 3) * (i + 1)]);
        sums.push(summary(`s${i}`, rows));
      }
      const got = new Map(growingTypes(sums).rows.map((r) => [r.name, r]));
      for (let t = 0; t < 8; t++) {
        const name = `T${t}`;
        const series = (f: 'count' | 'retained') => sums.map((s) => s.types.find((r) => r.name === name)?.[f] ?? 0);
        const c = series('count');
        const r = series('retained');
        const grows = (v: number[]) => v.every((x, i) => i === 0 || x > v[i - 1]);
        const row = got.get(name);
        expect(row !== undefined).toBe(grows(c) || grows(r));
        if (row) expect([row.countGrows, row.retainedGrows, row.counts, row.retained]).toEqual([grows(c), grows(r), c, r]);
      }
    }
  });

  it('strictlyIncreasing needs at least two values and no ties', () => {
    expect([strictlyIncreasing([1, 2]), strictlyIncreasing([1, 1]), strictlyIncreasing([3]), strictlyIncreasing([0, 1, 2])]).toEqual([true, false, false, true]);
  });
});

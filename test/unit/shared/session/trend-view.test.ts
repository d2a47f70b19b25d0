import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { summarizeTypes, type TypeSummary } from '../../../../shared/analysis/type-summary.js';
import type { SessionId } from '../../../../shared/ipc/contract.js';
import { captureOrder, trendOf } from '../../../../shared/session/trend-view.js';
import { mulberry32 } from '../../../helpers/random-graph.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';

/**
 * Snapshot k of a leaking process: a Cache (16 B) holds k Leak objects (8 B each); a Flat object
 * (4 B) never changes; Shrink objects go from 3 down to 1; Late appears in snapshot 2.
 */
function snapshot(k: number, label: string, time: string | null = null): TypeSummary {
  const t = tinyGraph((b) => {
    const leaks = Array.from({ length: k }, (_, i) => `L${i}`);
    b.root('[static vars]').ref('C', 'F', ...Array.from({ length: 4 - k }, (_, i) => `S${i}`), ...(k >= 2 ? ['Late'] : []));
    b.node('C', 16, 'Cache').ref(...leaks);
    for (const l of leaks) b.node(l, 8, 'Leak');
    b.node('F', 4, 'Flat');
    for (let i = 0; i < 4 - k; i++) b.node(`S${i}`, 2, 'Shrink');
    if (k >= 2) b.node('Late', 100 * k, 'Late');
  });
  const s = summarizeTypes(t.graph, analyzeGraph(t.graph), label);
  return { ...s, timeCollected: time };
}

const sid = (s: string) => s as SessionId;

describe('trendOf (the Trend view over open sessions)', () => {
  it('lists types growing at every step with exact per-snapshot numbers, on hand-built graphs', () => {
    const r = trendOf([
      { sessionId: sid('s-a'), summary: snapshot(1, 'a.gcdump') },
      { sessionId: sid('s-b'), summary: snapshot(2, 'b.gcdump') },
      { sessionId: sid('s-c'), summary: snapshot(3, 'c.gcdump') },
    ]);
    expect(r.snapshots).toEqual([
      { sessionId: 's-a', label: 'a.gcdump', timeCollected: null, totalCount: 1 + 1 + 1 + 3, totalRetained: 16 + 8 + 4 + 6 },
      { sessionId: 's-b', label: 'b.gcdump', timeCollected: null, totalCount: 1 + 2 + 1 + 2 + 1, totalRetained: 16 + 16 + 4 + 4 + 200 },
      { sessionId: 's-c', label: 'c.gcdump', timeCollected: null, totalCount: 1 + 3 + 1 + 1 + 1, totalRetained: 16 + 24 + 4 + 2 + 300 },
    ]);
    expect(r.typesSeen).toBe(5); // Cache, Leak, Flat, Shrink, Late
    // Late: absent (0) in the first snapshot, then 200, 300 (retained growth 300, largest first);
    // Leak and Cache both gain 16 retained bytes; Leak first because its count grows too.
    expect(r.rows.map((x) => [x.type, x.countGrows, x.retainedGrows, x.counts, x.shallow, x.retained, x.countGrowth, x.retainedGrowth])).toEqual([
      ['Late', false, true, [0, 1, 1], [0, 200, 300], [0, 200, 300], 1, 300],
      ['Leak', true, true, [1, 2, 3], [8, 16, 24], [8, 16, 24], 2, 16],
      ['Cache', false, true, [1, 1, 1], [16, 16, 16], [24, 32, 40], 0, 16],
    ]);
    expect(r.rows[1].module).toBe('tiny.dll');
    expect(JSON.parse(JSON.stringify(r))).toEqual(r); // crosses IPC unchanged
  });

  it('reads the snapshots in the order given: reversed, nothing grows except what shrank', () => {
    const r = trendOf([
      { sessionId: sid('s-c'), summary: snapshot(3, 'c') },
      { sessionId: sid('s-b'), summary: snapshot(2, 'b') },
      { sessionId: sid('s-a'), summary: snapshot(1, 'a') },
    ]);
    expect(r.rows.map((x) => [x.type, x.counts, x.retained])).toEqual([['Shrink', [1, 2, 3], [2, 4, 6]]]);
  });

  it('refuses one snapshot, a session given twice, and a snapshot without objects, with coded errors', () => {
    const a = snapshot(1, 'a.gcdump');
    expect(() => trendOf([{ sessionId: sid('s-a'), summary: a }])).toThrow(expect.objectContaining({ code: 'usage/bad-argument' }));
    expect(() => trendOf([{ sessionId: sid('s-a'), summary: a }, { sessionId: sid('s-a'), summary: a }])).toThrow(/distinct/);
    const empty: TypeSummary = { ...a, label: 'gc-only.nettrace', types: [], totalCount: 0, totalShallow: 0, totalRetained: 0 };
    expect(() => trendOf([{ sessionId: sid('s-a'), summary: a }, { sessionId: sid('s-e'), summary: empty }])).toThrow(
      expect.objectContaining({ code: 'usage/bad-argument', message: 'gc-only.nettrace has no heap objects (a GC-only trace or an empty snapshot): a trend needs snapshots with objects' }),
    );
  });
});

describe('captureOrder', () => {
  const t = (name: string, time: string | null) => ({ name, time });
  it('sorts oldest first when every item has a capture time, ties in the given order', () => {
    const r = captureOrder([t('c', '2023-11-08T15:06:44.1'), t('a', '2023-11-08T15:05:15.0'), t('b', '2023-11-08T15:06:44.1')], (x) => x.time);
    expect([r.byTime, r.items.map((x) => x.name)]).toEqual([true, ['a', 'c', 'b']]);
  });

  it('keeps the given order when one time is unknown', () => {
    const r = captureOrder([t('c', '2023'), t('a', null), t('b', '2021')], (x) => x.time);
    expect([r.byTime, r.items.map((x) => x.name)]).toEqual([false, ['c', 'a', 'b']]);
  });

  it('agrees with a naive stable sort on random times (200 seeds)', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = mulberry32(seed);
      const items = Array.from({ length: 1 + Math.floor(rnd() * 6) }, (_, i) => t(`x${i}`, `2020-01-0${1 + Math.floor(rnd() * 3)}`));
      const naive: typeof items = [];
      for (const it of items) {
        let at = naive.length;
        while (at > 0 && naive[at - 1].time! > it.time!) at--;
        naive.splice(at, 0, it);
      }
      expect(captureOrder(items, (x) => x.time).items).toEqual(naive);
    }
  });
});

import { describe, expect, it } from 'vitest';
import type { GcEventDto } from '../../../../../shared/ipc/contract';
import { liveChartGeometry, PAD } from '../../../../../renderer/components/live/live-chart';

const gc = (index: number, startMs: number, durationMs: number, pauseMs: number | null, heapSizeAfter: number | null, generation = 0): GcEventDto => ({
  index, generation, reason: 'AllocSmall', kind: 'NonConcurrent', startMs, durationMs, pauseMs,
  heapSizeBefore: null, heapSizeAfter, sizesAfter: null, promotedBytes: null, mode: null,
});

describe('liveChartGeometry', () => {
  // 1016 × 216: plot width 1000; bands 216 − 14 − 18 − 16 = 168 → heap 92 (14…106), pause 122…198
  const W = 1016;
  const H = 216;

  it('shows the last window only, heap and pause bands each scaled to their own maximum', () => {
    const events = [gc(1, 1_000, 10, 5, 9_999_999), gc(2, 70_000, 10, 2, 1000), gc(3, 100_000, 20, 8, 3000, 2), gc(4, 129_990, 10, 4, 2000, 1)];
    const g = liveChartGeometry(events, W, H, 60_000, 0);
    expect([g.heapTop, g.heapBottom, g.pauseTop, g.pauseBottom]).toEqual([14, 106, 122, 198]);
    expect([g.startMs, g.endMs]).toEqual([70_000, 130_000]);
    // GC 1 is older than the window: neither drawn nor counted in the maxima
    expect(g.shown).toBe(3);
    expect(g.maxHeap).toBe(3000);
    expect(g.maxPauseMs).toBe(8);
    expect(g.bars.map((b) => b.e.index)).toEqual([2, 3, 4]);
    expect(g.bars.map((b) => b.x)).toEqual([PAD.l, PAD.l + 500, PAD.l + (59_990 / 60_000) * 1000]);
    expect(g.bars.map((b) => b.h)).toEqual([76 * 0.25, 76, 76 * 0.5]);
    expect(g.bars.map((b) => b.y)).toEqual([198 - 19, 198 - 76, 198 - 38]);
    // heap line at each GC's end: (70,010 → x 8.2, 1000 of 3000 → y 75.3), …
    expect(g.heapPath).toBe('M8.2,75.3L508.3,14.0L1008.0,44.7');
    expect(g.ticks.map((t) => t.label)).toEqual(['70 s', '80 s', '90 s', '100 s', '110 s', '120 s', '130 s']);
  });

  it('runs to "now" without GCs, so the axis keeps moving; an empty window draws nothing', () => {
    const g = liveChartGeometry([gc(1, 500, 10, 1, 100)], W, H, 60_000, 90_000);
    expect([g.startMs, g.endMs, g.shown]).toEqual([30_000, 90_000, 0]);
    expect(g.bars).toEqual([]);
    expect(g.heapPath).toBe('');
    expect(g.maxHeap).toBe(0);
  });

  it('early in a monitor the window starts at 0 and a GC without sizes adds a bar but no heap point', () => {
    const g = liveChartGeometry([gc(1, 1000, 2, null, null), gc(2, 2000, 2, 3, 500)], W, H, 60_000, 5000);
    expect([g.startMs, g.endMs]).toEqual([0, 5000]);
    expect(g.bars.map((b) => b.h)).toEqual([76 * (2 / 3), 76]); // no suspension seen: the duration counts
    expect(g.heapPath).toBe('M408.4,14.0');
  });
});

describe('liveChartGeometry heap line', () => {
  it('joins sizes in the order the GCs ended, so a background GC does not make the line double back', () => {
    // GC 1 (background) runs 0…900 ms; GC 2 (foreground, inside it) 100…110 ms; GC 3 1000…1010 ms
    const events = [gc(1, 0, 900, 1, 3000, 2), gc(2, 100, 10, 1, 1000), gc(3, 1000, 10, 1, 2000)];
    const g = liveChartGeometry(events, 1016, 216, 60_000, 0);
    const xs = g.heapPath.split(/[ML]/).filter(Boolean).map((p) => Number(p.split(',')[0]));
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(g.heapPath).toBe('M116.9,75.3L899.1,14.0L1008.0,44.7');
  });
});

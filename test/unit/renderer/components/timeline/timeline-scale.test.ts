import { describe, expect, it } from 'vitest';
import type { GcEventDto } from '../../../../../shared/ipc/contract';
import { niceStep, pauseOf, timelineGeometry } from '../../../../../renderer/components/timeline/timeline-scale';

const gc = (index: number, startMs: number, durationMs: number | null, pauseMs: number | null, heapSizeAfter: number | null): GcEventDto => ({
  index, generation: 0, reason: 'AllocSmall', kind: 'NonConcurrent', startMs, durationMs, pauseMs,
  heapSizeBefore: null, heapSizeAfter, sizesAfter: null, promotedBytes: null, mode: null,
});

describe('timelineGeometry', () => {
  // plot area: 8 px padding left/right/top, 18 px bottom → 984 × 174 inside a 1000 × 200 box
  const events = [gc(1, 0, 10, 8, 1000), gc(2, 500, 20, null, 4000), gc(3, 980, 20, 16, 2000)];
  const g = timelineGeometry(events, 1000, 200);

  it('scales time to x and pause to bar height (suspension first, else duration)', () => {
    expect(g.endMs).toBe(1000);
    expect(g.maxPauseMs).toBe(20); // GC 2 has no suspension: its 20 ms duration counts
    expect(g.pauseBars.map((b) => b.x)).toEqual([8, 8 + 0.5 * 984, 8 + 0.98 * 984]);
    const full = 174 * 0.45;
    expect(g.pauseBars.map((b) => b.h)).toEqual([full * 0.4, full, full * 0.8]);
    expect(g.pauseBars[1].y).toBeCloseTo(8 + 174 - full, 10);
  });

  it('draws the heap line through the after-GC sizes only (no before sizes in traces)', () => {
    expect(g.maxHeap).toBe(4000);
    expect(g.heapPath).toBe('M17.8,138.5L519.7,8.0L992.0,95.0'); // x at GC end: 10, 520, 1000 ms
  });

  it('puts ticks on a 1-2-5 grid', () => {
    expect(niceStep(1000 / 6)).toBe(200);
    expect(niceStep(7)).toBe(10);
    expect(niceStep(0)).toBe(1);
    expect(g.ticks.map((t) => t.label)).toEqual(['0 ms', '200 ms', '400 ms', '600 ms', '800 ms', '1.0 s']);
  });

  it('pauseOf falls back to 0 when nothing was measured', () => {
    expect(pauseOf(gc(9, 0, null, null, null))).toBe(0);
  });

  it('an empty timeline still has a valid geometry', () => {
    const e = timelineGeometry([], 400, 100);
    expect(e.pauseBars).toEqual([]);
    expect(e.heapPath).toBe('');
    expect(e.endMs).toBe(1);
  });
});

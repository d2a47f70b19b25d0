import { describe, expect, it } from 'vitest';
import type { GcEventDto } from '../../../../../shared/ipc/contract';
import {
  MB,
  MIN_BAR_HEIGHT_PX,
  MIN_BAR_PX,
  barRect,
  formatAxisTime,
  gcCategory,
  gcSeries,
  niceStep,
  pauseOf,
  timeUnit,
  timelineSpanMs,
  zoomWindow,
} from '../../../../../renderer/components/timeline/timeline-scale';

const gc = (index: number, startMs: number, durationMs: number | null, pauseMs: number | null, heapSizeAfter: number | null, generation = 0, kind = 'NonConcurrent'): GcEventDto => ({
  index, generation, reason: 'AllocSmall', kind, startMs, durationMs, pauseMs,
  heapSizeBefore: null, heapSizeAfter, sizesAfter: null, promotedBytes: null, mode: null,
});

describe('timelineSpanMs', () => {
  it('spans the whole trace, not only up to the last GC (allocTrace: GCs in the first ms of a 7.43 s trace)', () => {
    const early = [gc(1, 0.2, 0.3, 0.4, 1000), gc(2, 0.6, 0.35, 0.3, 900, 1)];
    expect(timelineSpanMs(early, 7430)).toBe(7430);
  });
  it('a GC ending after the recorded duration still fits; no duration and no GC gives 1 ms', () => {
    expect(timelineSpanMs([gc(1, 100, 50, 1, null)], 120)).toBe(150);
    expect(timelineSpanMs([gc(1, 100, null, 1, null)], null)).toBe(100);
    expect(timelineSpanMs([], 0)).toBe(1);
  });
});

describe('time axis unit', () => {
  it('one unit for the whole axis: s from 2 s, else ms', () => {
    expect(timeUnit(7430)).toEqual({ unit: 's', div: 1000 });
    expect(timeUnit(38562.35)).toEqual({ unit: 's', div: 1000 });
    expect(timeUnit(1999.9)).toEqual({ unit: 'ms', div: 1 });
    expect(timeUnit(0.95)).toEqual({ unit: 'ms', div: 1 });
  });
  it('tick labels are plain numbers in that unit, with the decimals a hundredth of the span needs (0 to 3)', () => {
    const s = timeUnit(7430);
    expect([0, 1000, 2500, 7430, 7431.7].map((t) => formatAxisTime(t, s, 7430))).toEqual(['0', '1', '2.5', '7.43', '7.43']);
    expect(formatAxisTime(38562.354, s, 38562.354)).toBe('38.6');
    expect(formatAxisTime(136359.2, s, 2727184)).toBe('136');
    const ms = timeUnit(1);
    expect([0, 0.2, 0.12345, 10].map((t) => formatAxisTime(t, ms, 0.95))).toEqual(['0', '0.2', '0.123', '10']);
    expect(formatAxisTime(0.12345, ms, 0)).toBe('0.123');
  });
});

describe('gcSeries', () => {
  const events = [
    gc(1, 0, 10, 8, 2 * MB),
    gc(2, 500, 20, null, 6 * MB, 1),
    gc(3, 980, 20, 16, null, 2),
    gc(4, 1200, 300, 2, 3 * MB, 2, 'Background'),
    gc(5, 1300, 5, 4, 4 * MB),
  ];
  const s = gcSeries(events);

  it('one bar series per category; each item is [start, end, pause, row] with the row of the table', () => {
    expect(s.bars.gen0).toEqual([[0, 10, 8, 0], [1300, 1305, 4, 4]]);
    expect(s.bars.gen1).toEqual([[500, 520, 20, 1]]); // no suspension: its 20 ms duration counts
    expect(s.bars.gen2).toEqual([[980, 1000, 16, 2]]);
    expect(s.bars.bgc).toEqual([[1200, 1500, 2, 3]]);
    expect(s.maxPauseMs).toBe(20);
  });
  it('the heap line goes through the after-GC sizes, in MB at each GC end', () => {
    expect(s.heap).toEqual([[10, 2], [520, 6], [1500, 3], [1305, 4]]);
    expect(s.maxHeapBytes).toBe(6 * MB);
  });
  it('categories: background GCs apart from blocking gen2', () => {
    expect(events.map(gcCategory)).toEqual(['gen0', 'gen1', 'gen2', 'bgc', 'gen0']);
  });
  it('pauseOf falls back to the duration, then 0', () => {
    expect(pauseOf(gc(9, 0, 7, null, null))).toBe(7);
    expect(pauseOf(gc(9, 0, null, null, null))).toBe(0);
  });
});

describe('barRect', () => {
  it('a short GC gets the minimum width from its start and the minimum height on the axis', () => {
    expect(barRect(100, 100.2, 300, 299.5)).toEqual({ x: 100, y: 300 - MIN_BAR_HEIGHT_PX, width: MIN_BAR_PX, height: MIN_BAR_HEIGHT_PX });
  });
  it('a long GC spans its duration and its pause height', () => {
    expect(barRect(100, 130, 300, 200)).toEqual({ x: 100, y: 200, width: 30, height: 100 });
  });
});

describe('zoom window and steps', () => {
  it('dataZoom percentages become times', () => {
    expect(zoomWindow(7430, 10, 20)).toEqual({ fromMs: 743, toMs: 1486 });
  });
  it('niceStep (live chart) stays on the 1-2-5 grid', () => {
    expect(niceStep(1000 / 6)).toBe(200);
    expect(niceStep(7)).toBe(10);
    expect(niceStep(0)).toBe(1);
  });
});

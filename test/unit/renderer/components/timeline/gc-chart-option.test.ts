import { describe, expect, it } from 'vitest';
import type { GcEventDto } from '../../../../../shared/ipc/contract';
import { GRID, gcChartOption, gcTooltipLines, selectedItems, type GcChartColors } from '../../../../../renderer/components/timeline/gc-chart-option';

const gc = (index: number, startMs: number, durationMs: number | null, pauseMs: number | null, heapSizeAfter: number | null, generation = 0, kind = 'NonConcurrent'): GcEventDto => ({
  index, generation, reason: 'AllocSmall', kind, startMs, durationMs, pauseMs,
  heapSizeBefore: null, heapSizeAfter, sizesAfter: null, promotedBytes: null, mode: null,
});
const colors: GcChartColors = { gen0: 'c0', gen1: 'c1', gen2: 'c2', bgc: 'cb', heap: 'ch', selected: 'cs', text: 't', muted: 'm', grid: 'g' };
// allocTrace's shape: three GCs inside the first ms of a 7.43 s trace
const events = [gc(1, 0.1, 0.2, 0.25, 3 * 1024 * 1024), gc(2, 0.4, 0.3, 0.35, 2 * 1024 * 1024, 1), gc(3, 0.8, 0.15, null, null, 2, 'Background')];

type Axis = { name: string; min?: number; max?: number; axisLabel: { formatter: (v: number) => string } };
type Series = { id: string; name: string; z: number; yAxisIndex: number; data: unknown[] };

describe('gcChartOption', () => {
  const o = gcChartOption({ events, spanMs: 7430, selected: null, colors, sizeFormat: 'auto' });
  const x = o.xAxis as Axis;
  const y = o.yAxis as Axis[];
  const series = o.series as Series[];

  it('the x-axis spans the whole trace, in seconds, with the unit in its name', () => {
    expect(x.min).toBe(0);
    expect(x.max).toBe(7430);
    expect(x.name).toBe('time since trace start (s)');
    expect([0, 1000, 7000].map((v) => x.axisLabel.formatter(v))).toEqual(['0', '1', '7']);
  });
  it('heap in MB on the left, pauses in ms on the right', () => {
    expect(y.map((a) => a.name)).toEqual(['heap after GC (MB)', 'GC pause (ms)']);
    expect(series.find((s) => s.id === 'heap')).toMatchObject({ yAxisIndex: 0, data: [[0.30000000000000004, 3], [0.7, 2]] });
  });
  it('one bar series per generation plus background GCs, rarer ones drawn above gen0, the heap line over them, the selection on top', () => {
    expect(series.map((s) => [s.id, s.z])).toEqual([['heap', 8], ['gen0', 3], ['gen1', 4], ['gen2', 5], ['bgc', 6], ['selected', 10]]);
    expect(series.find((s) => s.id === 'bgc')!.data).toEqual([[0.8, 0.9500000000000001, 0.15, 2]]);
    expect(series.find((s) => s.id === 'selected')!.data).toEqual([]);
    expect((o.legend as { data: string[] }).data).toEqual(['heap after GC', 'gen0', 'gen1', 'gen2 (blocking)', 'gen2 background']);
  });
  it('zooms with a slider and the wheel, and keeps room for axis names', () => {
    expect((o.dataZoom as { type: string }[]).map((d) => d.type)).toEqual(['inside', 'slider']);
    expect(GRID).toEqual({ left: 70, right: 70, top: 40, bottom: 78 });
  });
  it('a short trace gets a ms axis', () => {
    const short = gcChartOption({ events, spanMs: 1.2, selected: 1, colors, sizeFormat: 'auto' });
    expect((short.xAxis as Axis).name).toBe('time since trace start (ms)');
    expect(((short.series as Series[]).find((s) => s.id === 'selected')!.data)).toEqual([[0.4, 0.4 + 0.3, 0.35, 1]]);
  });
});

describe('GC tooltip and selection', () => {
  it('names the GC, its generation, reason, pause and heap sizes', () => {
    expect(gcTooltipLines(events[1], 'auto')).toEqual(['GC #2 · gen1 NonConcurrent', 'reason: AllocSmall', 'start: 0.40 ms', 'pause: 0.35 ms', 'duration: 0.30 ms', 'heap after: 2.00 MB']);
    expect(gcTooltipLines(events[2], 'auto')).toEqual([
      'GC #3 · gen2 Background', 'reason: AllocSmall', 'start: 0.80 ms', 'pause: 0.15 ms (no suspension recorded: GC duration)', 'duration: 0.15 ms', 'heap after: — (not in this trace)',
    ]);
  });
  it('selectedItems is the selected GC only', () => {
    expect(selectedItems(events, null)).toEqual([]);
    expect(selectedItems(events, 9)).toEqual([]);
    expect(selectedItems(events, 0)).toEqual([[0.1, 0.30000000000000004, 0.25, 0]]);
  });
});

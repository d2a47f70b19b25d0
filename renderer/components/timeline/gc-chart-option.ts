import type { CustomSeriesOption, LineSeriesOption } from 'echarts/charts';
import type { CustomSeriesRenderItem } from 'echarts';
import type { DataZoomComponentOption, GridComponentOption, LegendComponentOption, TooltipComponentOption } from 'echarts/components';
import type { ComposeOption } from 'echarts/core';
import type { GcEventDto } from '../../../shared/ipc/contract';
import { formatBytes, formatDuration } from '../grids/format';
import { CATEGORY_LABEL, GC_CATEGORIES, barRect, formatAxisTime, gcSeries, pauseOf, timeUnit, type BarItem, type GcCategory, type TimeUnit } from './timeline-scale';

/**
 * The ECharts option of the GC timeline: time on x (the whole trace), heap size after each GC on
 * the left axis (MB), one bar per GC on the right axis (pause, ms) in four series (gen0, gen1,
 * gen2 blocking, background GC: colour + legend, rarer generations drawn above gen0), a
 * dataZoom slider plus wheel/drag zoom, a tooltip per GC, and one more series that outlines the
 * selected GC. Built here, not in the component, so it is unit-tested without a canvas.
 */
export type GcChartOption = ComposeOption<CustomSeriesOption | LineSeriesOption | GridComponentOption | TooltipComponentOption | DataZoomComponentOption | LegendComponentOption>;

export interface GcChartColors {
  gen0: string;
  gen1: string;
  gen2: string;
  bgc: string;
  heap: string;
  selected: string;
  text: string;
  muted: string;
  grid: string;
}

/** Pixels around the plot; the e2e tests locate bars with the same numbers. */
export const GRID = { left: 70, right: 70, top: 40, bottom: 78 };
export const SELECTED_SERIES = 'selected GC';
export const HEAP_SERIES = 'heap after GC';

export function xAxisName(u: TimeUnit): string {
  return `time since trace start (${u.unit})`;
}

/** Text of a GC's tooltip (plain lines; the component joins them with <br>). */
export function gcTooltipLines(e: GcEventDto, fmt: Parameters<typeof formatBytes>[1]): string[] {
  const lines = [
    `GC #${e.index} · gen${e.generation} ${e.kind}`,
    `reason: ${e.reason}`,
    `start: ${formatDuration(e.startMs)}`,
    `pause: ${formatDuration(pauseOf(e))}${e.pauseMs === null ? ' (no suspension recorded: GC duration)' : ''}`,
    `duration: ${e.durationMs === null ? '—' : formatDuration(e.durationMs)}`,
  ];
  if (e.heapSizeBefore !== null) lines.push(`heap before: ${formatBytes(e.heapSizeBefore, fmt)}`);
  lines.push(`heap after: ${e.heapSizeAfter === null ? '— (not in this trace)' : formatBytes(e.heapSizeAfter, fmt)}`);
  return lines;
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** Draws a bar from its [start, end, pause, row] item with timeline-scale's barRect, clipped to the plot. */
const renderBar: CustomSeriesRenderItem = (params, api) => {
  const [x0, yBase] = api.coord([api.value(0), 0]);
  const [x1, yTop] = api.coord([api.value(1), api.value(2)]);
  const r = barRect(x0, x1, yBase, yTop);
  const c = params.coordSys as unknown as { x: number; y: number; width: number; height: number };
  const left = Math.max(r.x, c.x);
  const right = Math.min(r.x + r.width, c.x + c.width);
  if (right <= left) return null;
  return { type: 'rect', shape: { x: left, y: r.y, width: right - left, height: r.height }, style: api.style() };
};

/** The selected series' data: the selected GC's bar item, or nothing. */
export function selectedItems(events: readonly GcEventDto[], selected: number | null): BarItem[] {
  const e = selected !== null ? events[selected] : undefined;
  return e ? [[e.startMs, e.startMs + (e.durationMs ?? 0), pauseOf(e), selected!]] : [];
}

export interface GcChartInput {
  events: readonly GcEventDto[];
  spanMs: number;
  /** Row index of the selected GC, or null. */
  selected: number | null;
  colors: GcChartColors;
  sizeFormat: Parameters<typeof formatBytes>[1];
}

export function gcChartOption(input: GcChartInput): GcChartOption {
  const { events, spanMs, colors } = input;
  const s = gcSeries(events);
  const u = timeUnit(spanMs);
  const barSeries = GC_CATEGORIES.map(
    (cat, i): CustomSeriesOption => ({
      type: 'custom',
      name: CATEGORY_LABEL[cat],
      id: cat,
      yAxisIndex: 1,
      renderItem: renderBar,
      encode: { x: [0, 1], y: 2 },
      data: s.bars[cat],
      itemStyle: { color: colors[cat as GcCategory] },
      z: 3 + i, // gen1/gen2/BGC over gen0: the rare ones are the ones to see
      clip: true,
    }),
  );
  return {
    animation: false,
    textStyle: { color: colors.text },
    grid: { ...GRID, containLabel: false },
    legend: {
      top: 6,
      data: [HEAP_SERIES, ...GC_CATEGORIES.map((c) => CATEGORY_LABEL[c])],
      textStyle: { color: colors.text },
    },
    tooltip: {
      trigger: 'item',
      confine: true,
      formatter: (p) => {
        const item = (Array.isArray(p) ? p[0] : p) as { seriesName?: string; data?: unknown };
        if (item.seriesName === HEAP_SERIES) {
          const [t, mb] = item.data as [number, number];
          return `heap after GC: ${formatBytes(mb * 1024 * 1024, input.sizeFormat)}<br>at ${formatDuration(t)}`;
        }
        const e = events[(item.data as BarItem)[3]];
        return e ? gcTooltipLines(e, input.sizeFormat).map(escapeHtml).join('<br>') : '';
      },
    },
    xAxis: {
      type: 'value',
      min: 0,
      max: spanMs,
      name: xAxisName(u),
      nameLocation: 'middle',
      nameGap: 24,
      axisLabel: { formatter: (v: number) => formatAxisTime(v, u, spanMs), color: colors.muted, hideOverlap: true },
      splitLine: { lineStyle: { color: colors.grid } },
    },
    yAxis: [
      {
        type: 'value',
        name: 'heap after GC (MB)',
        nameLocation: 'middle',
        nameGap: 50,
        min: 0,
        axisLabel: { color: colors.muted },
        splitLine: { lineStyle: { color: colors.grid } },
      },
      {
        type: 'value',
        name: 'GC pause (ms)',
        nameLocation: 'middle',
        nameGap: 50,
        min: 0,
        axisLabel: { color: colors.muted },
        splitLine: { show: false },
      },
    ],
    dataZoom: [
      { type: 'inside', xAxisIndex: 0, filterMode: 'weakFilter', minValueSpan: Math.min(spanMs, 0.01) },
      { type: 'slider', xAxisIndex: 0, filterMode: 'weakFilter', height: 18, bottom: 8, labelFormatter: (v: number) => `${formatAxisTime(v, u, spanMs)} ${u.unit}` },
    ],
    series: [
      {
        type: 'line',
        name: HEAP_SERIES,
        id: 'heap',
        yAxisIndex: 0,
        data: s.heap,
        showSymbol: s.heap.length <= 60,
        symbolSize: 4,
        lineStyle: { width: 1.5, color: colors.heap },
        itemStyle: { color: colors.heap },
        z: 8, // a thin line over the bars (it hides little; under them it would vanish)
      },
      ...barSeries,
      {
        type: 'custom',
        name: SELECTED_SERIES,
        id: 'selected',
        yAxisIndex: 1,
        renderItem: renderBar,
        encode: { x: [0, 1], y: 2 },
        data: selectedItems(events, input.selected),
        itemStyle: { color: colors.selected, borderColor: colors.text, borderWidth: 1 },
        z: 10,
        silent: false,
      },
    ],
  };
}

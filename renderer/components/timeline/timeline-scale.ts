import type { GcEventDto } from '../../../shared/ipc/contract';

/**
 * The numbers behind the GC timeline chart (GcChart.vue draws them with ECharts): which unit the
 * time axis uses, the span it covers (the whole trace, not only up to the last GC), the series
 * of pause bars per generation and the heap line, and the rectangle of one bar in pixels. Pure,
 * so it is tested without a DOM or a chart.
 */

/** One bar's category: gen0, gen1, gen2 blocking, or a background (gen2) GC. */
export type GcCategory = 'gen0' | 'gen1' | 'gen2' | 'bgc';
export const GC_CATEGORIES: readonly GcCategory[] = ['gen0', 'gen1', 'gen2', 'bgc'];
export const CATEGORY_LABEL: Record<GcCategory, string> = { gen0: 'gen0', gen1: 'gen1', gen2: 'gen2 (blocking)', bgc: 'gen2 background' };

/** A bar's data item: [startMs, endMs, pauseMs, row] (row = the GC's index in the table's rows). */
export type BarItem = [number, number, number, number];

/** Bytes per MB on the heap axis: 1024², as every size in the app (grids/format.ts). */
export const MB = 1024 * 1024;
/** A bar is never narrower than this (px), so a 0.3 ms GC in a 40 s trace stays visible and clickable. */
export const MIN_BAR_PX = 4;
/** Nor lower than this (px): a GC with a tiny pause still shows where it happened. */
export const MIN_BAR_HEIGHT_PX = 3;

export interface TimeUnit {
  unit: 'ms' | 's';
  /** ms per unit. */
  div: number;
}

/** Seconds from 2 s up, else milliseconds: one unit for the whole axis (never "0 ms, 10 s"). */
export function timeUnit(spanMs: number): TimeUnit {
  return spanMs >= 2000 ? { unit: 's', div: 1000 } : { unit: 'ms', div: 1 };
}

/**
 * A tick label in `u` (the unit is in the axis name), trailing zeros dropped, with as many
 * decimals (0–3) as a hundredth of the visible span `spanMs` needs: "7.43" on a 7.43 s axis,
 * "38.6" on a 38.56 s one, "136" rather than "136.359" on a 45 min one (dataZoom labels the
 * window's ends with their exact values).
 */
export function formatAxisTime(ms: number, u: TimeUnit, spanMs: number): string {
  const step = spanMs / u.div / 100;
  const decimals = step > 0 ? Math.min(3, Math.max(0, Math.ceil(-Math.log10(step)))) : 3;
  const f = Math.pow(10, decimals);
  return String(Math.round((ms / u.div) * f) / f);
}

/**
 * What the time axis spans: from the trace's start (0) to its end. `traceDurationMs` is the time
 * between the trace's first and last event; a GC that ends after it (it cannot in a well-formed
 * trace) still fits.
 */
export function timelineSpanMs(events: readonly GcEventDto[], traceDurationMs: number | null | undefined): number {
  let end = traceDurationMs && traceDurationMs > 0 ? traceDurationMs : 0;
  for (const e of events) end = Math.max(end, e.startMs + (e.durationMs ?? 0));
  return end > 0 ? end : 1;
}

/** Time the program stood still for this GC (suspension), else the GC's own duration, else 0. */
export function pauseOf(e: GcEventDto): number {
  return e.pauseMs ?? e.durationMs ?? 0;
}

export function gcCategory(e: GcEventDto): GcCategory {
  if (e.kind === 'Background') return 'bgc';
  return e.generation >= 2 ? 'gen2' : e.generation === 1 ? 'gen1' : 'gen0';
}

export interface GcSeries {
  bars: Record<GcCategory, BarItem[]>;
  /** [GC end ms, heap after in MB], for GCs whose sizes were recorded. */
  heap: [number, number][];
  maxPauseMs: number;
  maxHeapBytes: number;
}

/** Splits the GCs into one bar series per category (rows keep their table index) and the heap line. */
export function gcSeries(events: readonly GcEventDto[]): GcSeries {
  const bars: Record<GcCategory, BarItem[]> = { gen0: [], gen1: [], gen2: [], bgc: [] };
  const heap: [number, number][] = [];
  let maxPauseMs = 0;
  let maxHeapBytes = 0;
  events.forEach((e, row) => {
    const end = e.startMs + (e.durationMs ?? 0);
    const pause = pauseOf(e);
    bars[gcCategory(e)].push([e.startMs, end, pause, row]);
    maxPauseMs = Math.max(maxPauseMs, pause);
    if (e.heapSizeAfter !== null) {
      heap.push([end, e.heapSizeAfter / MB]);
      maxHeapBytes = Math.max(maxHeapBytes, e.heapSizeAfter);
    }
  });
  return { bars, heap, maxPauseMs, maxHeapBytes };
}

/**
 * A bar's rectangle in pixels: from the GC's start to its end, at least MIN_BAR_PX wide (a short
 * GC starts at its time and grows to the right), from the axis up to its pause, at least
 * MIN_BAR_HEIGHT_PX high. `x0`/`x1` are the start/end pixels, `yBase` the axis, `yTop` the pause.
 */
export function barRect(x0: number, x1: number, yBase: number, yTop: number): { x: number; y: number; width: number; height: number } {
  const width = Math.max(MIN_BAR_PX, x1 - x0);
  const height = Math.max(MIN_BAR_HEIGHT_PX, yBase - yTop);
  return { x: x0, y: yBase - height, width, height };
}

/** The visible time window from dataZoom's percentages of the span. */
export function zoomWindow(spanMs: number, startPct: number, endPct: number): { fromMs: number; toMs: number } {
  return { fromMs: (spanMs * startPct) / 100, toMs: (spanMs * endPct) / 100 };
}

/** 1, 2 or 5 × 10^k closest above `raw` (the live chart's ticks). */
export function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

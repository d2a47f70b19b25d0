import type { GcEventDto } from '../../../shared/ipc/contract';
import { niceStep, pauseOf } from '../timeline/timeline-scale';

/**
 * Geometry of the live GC chart: the last `windowMs` of a running monitor, in two bands sharing
 * one time axis: the heap size after each GC (a line) on top, and one bar per GC below (height =
 * how long the program was paused, coloured by generation). Each band has its own scale, with its
 * maximum written at its top, so a 300 MB heap and 2 ms pauses are both readable.
 *
 * Pure (no DOM) so it is unit-tested; the component redraws it when rows arrive and once a
 * second while the monitor runs (the axis keeps moving when no GC happens).
 */
export interface LiveBar {
  x: number;
  y: number;
  w: number;
  h: number;
  e: GcEventDto;
}

export interface LiveChartGeometry {
  width: number;
  height: number;
  /** Heap band: y range [heapTop, heapBottom]. */
  heapTop: number;
  heapBottom: number;
  /** Pause band: y range [pauseTop, pauseBottom]. */
  pauseTop: number;
  pauseBottom: number;
  bars: LiveBar[];
  heapPath: string;
  maxHeap: number;
  maxPauseMs: number;
  startMs: number;
  endMs: number;
  ticks: { x: number; label: string }[];
  /** GCs inside the window. */
  shown: number;
}

export const PAD = { l: 8, r: 8, t: 14, b: 18, gap: 16 };

/**
 * `nowMs`: the monitor's clock (ms since it started), so the window reaches "now" even when the
 * last GC is older; events are placed by their own start times (ms since the trace's start).
 */
export function liveChartGeometry(events: readonly GcEventDto[], width: number, height: number, windowMs: number, nowMs = 0): LiveChartGeometry {
  const plotW = Math.max(1, width - PAD.l - PAD.r);
  const bands = Math.max(2, height - PAD.t - PAD.b - PAD.gap);
  const heapH = Math.round(bands * 0.55);
  const heapTop = PAD.t;
  const heapBottom = heapTop + heapH;
  const pauseTop = heapBottom + PAD.gap;
  const pauseBottom = height - PAD.b;

  let endMs = nowMs;
  for (const e of events) endMs = Math.max(endMs, e.startMs + (e.durationMs ?? 0));
  endMs = Math.max(endMs, 1);
  const startMs = Math.max(0, endMs - windowMs);
  const span = Math.max(1, endMs - startMs);
  const x = (ms: number) => PAD.l + ((ms - startMs) / span) * plotW;

  const inWindow = events.filter((e) => e.startMs + (e.durationMs ?? 0) >= startMs).sort((a, b) => a.startMs - b.startMs || a.index - b.index);
  let maxHeap = 0;
  let maxPauseMs = 0;
  for (const e of inWindow) {
    maxHeap = Math.max(maxHeap, e.heapSizeAfter ?? 0);
    maxPauseMs = Math.max(maxPauseMs, pauseOf(e));
  }

  const pauseH = pauseBottom - pauseTop;
  const bars = inWindow.map((e) => {
    const h = maxPauseMs > 0 ? Math.max(1, (pauseOf(e) / maxPauseMs) * pauseH) : 1;
    const left = Math.max(PAD.l, x(e.startMs));
    return { x: left, y: pauseBottom - h, w: Math.max(2, (pauseOf(e) / span) * plotW), h, e };
  });

  // The heap line joins the sizes in the order the GCs ENDED: a background GC ends after the
  // foreground GCs that ran inside it, and in start order the line would double back.
  let heapPath = '';
  if (maxHeap > 0) {
    const y = (b: number) => heapBottom - (b / maxHeap) * heapH;
    const ends = inWindow.filter((e) => e.heapSizeAfter !== null).map((e) => ({ t: e.startMs + (e.durationMs ?? 0), size: e.heapSizeAfter! }));
    ends.sort((a, b) => a.t - b.t);
    for (const p of ends) heapPath += `${heapPath ? 'L' : 'M'}${Math.max(PAD.l, x(p.t)).toFixed(1)},${y(p.size).toFixed(1)}`;
  }

  const ticks: { x: number; label: string }[] = [];
  const step = niceStep(span / 6);
  for (let t = Math.ceil(startMs / step) * step; t <= endMs; t += step) {
    ticks.push({ x: x(t), label: t >= 1000 ? `${(t / 1000).toFixed(step >= 1000 ? 0 : 1)} s` : `${Math.round(t)} ms` });
  }
  return { width, height, heapTop, heapBottom, pauseTop, pauseBottom, bars, heapPath, maxHeap, maxPauseMs, startMs, endMs, ticks, shown: inWindow.length };
}

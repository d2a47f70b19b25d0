import type { GcEventDto } from '../../../shared/ipc/contract';

/**
 * Geometry for the GC timeline chart: one bar per GC at its start time (bar height = how long the
 * program was paused, or the GC's duration when no suspension was recorded) and the heap size
 * after each GC as a line. Pure, so it is testable without a DOM.
 */
export interface TimelineGeometry {
  width: number;
  height: number;
  pauseBars: { x: number; y: number; w: number; h: number; e: GcEventDto }[];
  heapPath: string;
  maxPauseMs: number;
  maxHeap: number;
  endMs: number;
  ticks: { x: number; label: string }[];
}

export function timelineGeometry(events: readonly GcEventDto[], width: number, height: number): TimelineGeometry {
  const pad = { l: 8, r: 8, t: 8, b: 18 };
  const plotW = Math.max(1, width - pad.l - pad.r);
  const plotH = Math.max(1, height - pad.t - pad.b);
  let endMs = 0;
  let maxPauseMs = 0;
  let maxHeap = 0;
  for (const e of events) {
    endMs = Math.max(endMs, e.startMs + (e.durationMs ?? 0));
    maxPauseMs = Math.max(maxPauseMs, pauseOf(e));
    maxHeap = Math.max(maxHeap, e.heapSizeBefore ?? 0, e.heapSizeAfter ?? 0);
  }
  endMs = endMs || 1;
  const x = (ms: number) => pad.l + (ms / endMs) * plotW;
  const pauseH = plotH * 0.45; // bars use the lower part; the heap line spans the whole height
  const pauseBars = events.map((e) => {
    const h = maxPauseMs > 0 ? Math.max(1, (pauseOf(e) / maxPauseMs) * pauseH) : 1;
    return { x: x(e.startMs), y: pad.t + plotH - h, w: Math.max(1.5, ((e.durationMs ?? 0) / endMs) * plotW), h, e };
  });
  let heapPath = '';
  if (maxHeap > 0) {
    const y = (b: number) => pad.t + plotH - (b / maxHeap) * plotH;
    for (const e of events) {
      if (e.heapSizeBefore !== null) heapPath += `${heapPath ? 'L' : 'M'}${x(e.startMs).toFixed(1)},${y(e.heapSizeBefore).toFixed(1)}`;
      if (e.heapSizeAfter !== null) heapPath += `${heapPath ? 'L' : 'M'}${x(e.startMs + (e.durationMs ?? 0)).toFixed(1)},${y(e.heapSizeAfter).toFixed(1)}`;
    }
  }
  const ticks: { x: number; label: string }[] = [];
  const step = niceStep(endMs / 6);
  for (let t = 0; t <= endMs; t += step) ticks.push({ x: x(t), label: t >= 1000 ? `${(t / 1000).toFixed(step >= 1000 ? 0 : 1)} s` : `${t} ms` });
  return { width, height, pauseBars, heapPath, maxPauseMs, maxHeap, endMs, ticks };
}

/** Time the program stood still for this GC (suspension), else the GC's own duration, else 0. */
export function pauseOf(e: GcEventDto): number {
  return e.pauseMs ?? e.durationMs ?? 0;
}

/** 1, 2 or 5 × 10^k closest above `raw`. */
export function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

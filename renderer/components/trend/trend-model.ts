import type { TrendRowDto } from '../../../shared/ipc/contract';
import { captureOrder } from '../../../shared/session/trend-view';
import type { DocId, DocumentState } from '../../stores/documents';

/**
 * The Trend view's pure parts: which tabs it compares, in which order, and the sparkline geometry.
 */

/**
 * The chosen tabs, oldest first by capture time when every one has it, else in tab-strip order.
 * `chosen` null means every tab offered.
 */
export function trendSnapshots(offered: readonly DocumentState[], chosen: readonly DocId[] | null): { docs: DocumentState[]; byTime: boolean } {
  const picked = chosen === null ? offered.slice() : offered.filter((d) => chosen.includes(d.id));
  const r = captureOrder(picked, (d) => d.summary?.metadata.timeCollected ?? null);
  return { docs: r.items, byTime: r.byTime };
}

/**
 * Polyline points of a sparkline `width` × `height` px: one point per value, evenly spaced, y
 * scaled to the series' own range (min at the bottom, max at the top, 1 px margin) so a small
 * but steady growth is visible; a flat series is a line across the middle. The exact values go
 * in the tooltip.
 */
export function sparkPoints(values: readonly number[], width: number, height: number): string {
  if (values.length === 0) return '';
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const step = values.length > 1 ? (width - 2) / (values.length - 1) : 0;
  const span = height - 2;
  const round = (x: number) => Math.round(x * 10) / 10;
  return values
    .map((v, i) => {
      const y = max === min ? height / 2 : 1 + span - ((v - min) / (max - min)) * span;
      return `${round(1 + i * step)},${round(y)}`;
    })
    .join(' ');
}

/** Case-insensitive substring of the type name (the grids' filter). */
export function filterRows(rows: readonly TrendRowDto[], filter: string): readonly TrendRowDto[] {
  const f = filter.trim().toLowerCase();
  return f ? rows.filter((r) => r.type.toLowerCase().includes(f)) : rows;
}

/** What grows: "count + retained", "count" or "retained". */
export function growsLabel(r: Pick<TrendRowDto, 'countGrows' | 'retainedGrows'>): string {
  return r.countGrows && r.retainedGrows ? 'count + retained' : r.countGrows ? 'count' : 'retained';
}

/**
 * "name (pid N)" of each distinct process among the snapshots, when they name one; more than one
 * means the tabs are not one process over time (a trend across processes means little).
 */
export function processesOf(docs: readonly DocumentState[]): string[] {
  const seen = new Set<string>();
  for (const d of docs) {
    const m = d.summary?.metadata;
    if (!m || (!m.processName && !m.processId)) continue;
    seen.add(`${m.processName ?? 'process'}${m.processId ? ` (pid ${m.processId})` : ''}`);
  }
  return [...seen];
}

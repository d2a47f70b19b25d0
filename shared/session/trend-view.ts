import { growingTypes } from '../analysis/trend.js';
import type { TypeSummary } from '../analysis/type-summary.js';
import { AppError } from '../errors.js';
import type { SessionId, TrendResult } from '../ipc/contract.js';

/**
 * The app's Trend view: the CLI's `trend` (analysis/trend.ts) over the per-type summaries of
 * open sessions. The sessions may live in different workers, so main gathers their TypeSummary
 * (one row per type name, never a graph) and this runs on them: O(N · T) for N snapshots and T
 * type names, small enough not to need a worker of its own.
 */
export const MAX_TREND_SESSIONS = 32;

export function trendOf(snapshots: readonly { sessionId: SessionId; summary: TypeSummary }[]): TrendResult {
  const ids = snapshots.map((s) => s.sessionId);
  if (new Set(ids).size !== ids.length) throw new AppError('usage/bad-argument', 'a trend needs distinct snapshots (one session was given twice)');
  const empty = snapshots.find((s) => s.summary.totalCount === 0);
  if (empty) throw new AppError('usage/bad-argument', `${empty.summary.label} has no heap objects (a GC-only trace or an empty snapshot): a trend needs snapshots with objects`);
  const t = growingTypes(snapshots.map((s) => s.summary));
  return {
    snapshots: snapshots.map(({ sessionId, summary: s }) => ({ sessionId, label: s.label, timeCollected: s.timeCollected, totalCount: s.totalCount, totalRetained: s.totalRetained })),
    typesSeen: t.typesSeen,
    rows: t.rows.map(({ name, ...rest }) => ({ type: name, ...rest })),
  };
}

/**
 * Oldest first by capture time when EVERY item has one (ISO strings of one clock compare as
 * text; ties keep the given order); otherwise the given order, unchanged: a partial order by
 * time could put an undated snapshot anywhere. `byTime` says which order was used.
 */
export function captureOrder<T>(items: readonly T[], timeOf: (x: T) => string | null): { items: T[]; byTime: boolean } {
  const times = items.map(timeOf);
  if (items.length === 0 || times.some((t) => t === null || t === '')) return { items: items.slice(), byTime: false };
  const idx = items.map((_, i) => i).sort((a, b) => (times[a]! < times[b]! ? -1 : times[a]! > times[b]! ? 1 : a - b));
  return { items: idx.map((i) => items[i]), byTime: true };
}

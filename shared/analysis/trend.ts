import { AppError } from '../errors.js';
import type { TypeSummary } from './type-summary.js';
import { compareNames } from './type-summary.js';

/**
 * Monotonic growth over N snapshots of one process: the classic leak signal.
 *
 * A type is reported when its count, or its retained size, grows strictly at EVERY step
 * (s0 < s1 < … < sN−1). A type missing from a snapshot counts as 0 there, so a type that appears
 * after the first snapshot and keeps growing is reported, and one that disappears never is.
 * One growing step is noise; a type that never stops growing is what leaks look like.
 * Cost: O(N · T) for T type names.
 */
export interface TrendRow {
  name: string;
  module: string | null;
  countGrows: boolean;
  retainedGrows: boolean;
  /** Per snapshot, in the order given (0 where the type is absent). */
  counts: number[];
  shallow: number[];
  retained: number[];
  /** Last − first. */
  countGrowth: number;
  retainedGrowth: number;
}

export interface Trend {
  labels: string[];
  /** Types growing in every step, by retained growth (largest first), then count growth, then name. */
  rows: TrendRow[];
  /** Type names seen in any snapshot. */
  typesSeen: number;
}

export function growingTypes(summaries: readonly TypeSummary[]): Trend {
  if (summaries.length < 2) throw new AppError('usage/bad-argument', `a trend needs at least 2 snapshots (got ${summaries.length})`);
  const k = summaries.length;
  const series = new Map<string, { module: string | null; counts: number[]; shallow: number[]; retained: number[] }>();
  summaries.forEach((s, i) => {
    for (const r of s.types) {
      let e = series.get(r.name);
      if (!e) {
        e = { module: r.module, counts: new Array<number>(k).fill(0), shallow: new Array<number>(k).fill(0), retained: new Array<number>(k).fill(0) };
        series.set(r.name, e);
      }
      e.module ??= r.module;
      e.counts[i] = r.count;
      e.shallow[i] = r.shallow;
      e.retained[i] = r.retained;
    }
  });
  const rows: TrendRow[] = [];
  for (const [name, e] of series) {
    const countGrows = strictlyIncreasing(e.counts);
    const retainedGrows = strictlyIncreasing(e.retained);
    if (!countGrows && !retainedGrows) continue;
    rows.push({
      name,
      module: e.module,
      countGrows,
      retainedGrows,
      counts: e.counts,
      shallow: e.shallow,
      retained: e.retained,
      countGrowth: e.counts[k - 1] - e.counts[0],
      retainedGrowth: e.retained[k - 1] - e.retained[0],
    });
  }
  rows.sort((a, b) => b.retainedGrowth - a.retainedGrowth || b.countGrowth - a.countGrowth || compareNames(a.name, b.name));
  return { labels: summaries.map((s) => s.label), rows, typesSeen: series.size };
}

export function strictlyIncreasing(values: readonly number[]): boolean {
  for (let i = 1; i < values.length; i++) if (!(values[i] > values[i - 1])) return false;
  return values.length >= 2;
}

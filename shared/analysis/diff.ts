import { assertNever } from '../errors.js';
import type { TypeSummary } from './type-summary.js';
import { compareNames, rowsByName } from './type-summary.js';

/**
 * Type-level diff of two snapshot summaries, keyed by type name.
 *
 * Objects cannot be matched between two dumps (addresses move, ordinals are per file), so the diff
 * compares per-type totals: count, shallow bytes and retained bytes, base and new values and the
 * deltas (new − base). A type present on one side only is flagged `added` / `removed` and counts as
 * 0 on the other side. Cost: O(T log T) for T type names.
 */
export type DiffStatus = 'both' | 'added' | 'removed';

export interface TypeDiffRow {
  name: string;
  module: string | null;
  status: DiffStatus;
  baseCount: number;
  newCount: number;
  countDelta: number;
  baseShallow: number;
  newShallow: number;
  shallowDelta: number;
  baseRetained: number;
  newRetained: number;
  retainedDelta: number;
}

export interface TypeDiff {
  base: string;
  next: string;
  /** Every type name of either side, sorted by retained growth (largest first), then name. */
  rows: TypeDiffRow[];
  /** Whole-heap totals ("*"): counts and shallow over all types, retained = reachable bytes. */
  total: Omit<TypeDiffRow, 'name' | 'module' | 'status'>;
  added: number;
  removed: number;
}

export function diffSummaries(base: TypeSummary, next: TypeSummary): TypeDiff {
  const a = rowsByName(base);
  const b = rowsByName(next);
  const rows: TypeDiffRow[] = [];
  let added = 0;
  let removed = 0;
  for (const [name, ra] of a) {
    const rb = b.get(name);
    if (!rb) removed++;
    rows.push(
      makeRow(name, ra.module ?? rb?.module ?? null, rb ? 'both' : 'removed', ra.count, rb?.count ?? 0, ra.shallow, rb?.shallow ?? 0, ra.retained, rb?.retained ?? 0),
    );
  }
  for (const [name, rb] of b) {
    if (a.has(name)) continue;
    added++;
    rows.push(makeRow(name, rb.module, 'added', 0, rb.count, 0, rb.shallow, 0, rb.retained));
  }
  sortDiffRows(rows, 'retained');
  const t = makeRow('*', null, 'both', base.totalCount, next.totalCount, base.totalShallow, next.totalShallow, base.totalRetained, next.totalRetained);
  const { name: _n, module: _m, status: _s, ...total } = t;
  return { base: base.label, next: next.label, rows, total, added, removed };
}

function makeRow(
  name: string,
  module: string | null,
  status: DiffStatus,
  baseCount: number,
  newCount: number,
  baseShallow: number,
  newShallow: number,
  baseRetained: number,
  newRetained: number,
): TypeDiffRow {
  return {
    name,
    module,
    status,
    baseCount,
    newCount,
    countDelta: newCount - baseCount,
    baseShallow,
    newShallow,
    shallowDelta: newShallow - baseShallow,
    baseRetained,
    newRetained,
    retainedDelta: newRetained - baseRetained,
  };
}

/** Sort keys of a diff: the delta of retained / shallow / count (growth first), or the name. */
export const DIFF_SORT_KEYS = ['retained', 'shallow', 'count', 'name'] as const;
export type DiffSortKey = (typeof DIFF_SORT_KEYS)[number];

/** In place: by the key's delta descending (largest growth first, shrinkage last), ties by name. */
export function sortDiffRows(rows: TypeDiffRow[], key: DiffSortKey): TypeDiffRow[] {
  const by = (f: (r: TypeDiffRow) => number) => (x: TypeDiffRow, y: TypeDiffRow) => f(y) - f(x) || compareNames(x.name, y.name);
  switch (key) {
    case 'retained':
      return rows.sort(by((r) => r.retainedDelta));
    case 'shallow':
      return rows.sort(by((r) => r.shallowDelta));
    case 'count':
      return rows.sort(by((r) => r.countDelta));
    case 'name':
      return rows.sort((x, y) => compareNames(x.name, y.name));
    default:
      return assertNever(key, 'diff sort key');
  }
}

/** Rows that changed at all (any delta ≠ 0, or present on one side only). */
export function changedRows(rows: readonly TypeDiffRow[]): TypeDiffRow[] {
  return rows.filter((r) => r.status !== 'both' || r.countDelta !== 0 || r.shallowDelta !== 0 || r.retainedDelta !== 0);
}

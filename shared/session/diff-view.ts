import { diffSummaries, type TypeDiff, type TypeDiffRow } from '../analysis/diff.js';
import type { TypeSummary } from '../analysis/type-summary.js';
import { assertNever } from '../errors.js';
import type { DiffNumbers, DiffRow, DiffSortKey, DiffWindow, SortSpec } from '../ipc/contract.js';
import { normFilter, OrderCache, sortByNumber, sortByRank, stringRank, windowOf } from './row-order.js';

/**
 * The diff grid: this session against a baseline, by type name (analysis/diff.ts).
 *
 * The two sessions may live in different workers, so the baseline arrives as its TypeSummary
 * (one row per type name, thousands at most), never as a graph. The diff of one baseline is
 * computed once and kept, with its sort orders, until the baseline changes.
 */
export class DiffView {
  private current: { key: string; diff: TypeDiff; nameRank: Uint32Array; lower: string[] } | null = null;
  private readonly cache = new OrderCache(8);

  window(
    baselineKey: string,
    baseline: TypeSummary,
    mine: TypeSummary,
    req: { sort: SortSpec<DiffSortKey>; filter?: string; changedOnly?: boolean; start: number; end: number },
  ): DiffWindow {
    const d = this.diff(baselineKey, baseline, mine);
    const order = this.order(d, req.sort, req.filter, req.changedOnly ?? false);
    const w = windowOf(order, req.start, req.end, (i) => toDto(d.diff.rows[i]));
    return { ...w, totals: numbers(d.diff.total), added: d.diff.added, removed: d.diff.removed };
  }

  /** All rows of a view (for CSV export). */
  allRows(
    baselineKey: string,
    baseline: TypeSummary,
    mine: TypeSummary,
    req: { sort: SortSpec<DiffSortKey>; filter?: string; changedOnly?: boolean },
  ): DiffRow[] {
    const d = this.diff(baselineKey, baseline, mine);
    const order = this.order(d, req.sort, req.filter, req.changedOnly ?? false);
    return Array.from(order, (i) => toDto(d.diff.rows[i]));
  }

  private diff(baselineKey: string, baseline: TypeSummary, mine: TypeSummary) {
    if (this.current?.key !== baselineKey) {
      const diff = diffSummaries(baseline, mine);
      this.current = { key: baselineKey, diff, nameRank: stringRank(diff.rows.map((r) => r.name)), lower: diff.rows.map((r) => r.name.toLowerCase()) };
      this.cache.clear();
    }
    return this.current;
  }

  private order(d: NonNullable<DiffView['current']>, sort: SortSpec<DiffSortKey>, filter: string | undefined, changedOnly: boolean): Uint32Array {
    const f = normFilter(filter);
    return this.cache.get(`${sort.key}|${sort.dir}|${changedOnly ? 'c' : '-'}|${f}`, () => {
      const rows = d.diff.rows;
      const out: number[] = [];
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i];
        if (f && !d.lower[i].includes(f)) continue;
        if (changedOnly && r.status === 'both' && r.countDelta === 0 && r.shallowDelta === 0 && r.retainedDelta === 0) continue;
        out.push(i);
      }
      const ids = Uint32Array.from(out);
      if (sort.key === 'type') return sortByRank(ids, d.nameRank, sort.dir);
      return sortByNumber(ids, column(rows, sort.key), sort.dir, d.nameRank);
    });
  }
}

function column(rows: readonly TypeDiffRow[], key: Exclude<DiffSortKey, 'type'>): Float64Array {
  const pick = (f: (r: TypeDiffRow) => number) => Float64Array.from(rows, f);
  switch (key) {
    case 'count':
      return pick((r) => r.newCount);
    case 'baselineCount':
      return pick((r) => r.baseCount);
    case 'countDelta':
      return pick((r) => r.countDelta);
    case 'shallowSize':
      return pick((r) => r.newShallow);
    case 'baselineShallowSize':
      return pick((r) => r.baseShallow);
    case 'shallowDelta':
      return pick((r) => r.shallowDelta);
    case 'retainedSize':
      return pick((r) => r.newRetained);
    case 'baselineRetainedSize':
      return pick((r) => r.baseRetained);
    case 'retainedDelta':
      return pick((r) => r.retainedDelta);
    default:
      return assertNever(key, 'diff sort key');
  }
}

function numbers(r: Omit<TypeDiffRow, 'name' | 'module' | 'status'>): DiffNumbers {
  return {
    count: r.newCount,
    baselineCount: r.baseCount,
    countDelta: r.countDelta,
    shallowSize: r.newShallow,
    baselineShallowSize: r.baseShallow,
    shallowDelta: r.shallowDelta,
    retainedSize: r.newRetained,
    baselineRetainedSize: r.baseRetained,
    retainedDelta: r.retainedDelta,
  };
}

function toDto(r: TypeDiffRow): DiffRow {
  return { type: r.name, module: r.module, status: r.status, ...numbers(r) };
}

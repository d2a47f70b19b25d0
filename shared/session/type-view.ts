import type { HeapAnalysis } from '../analysis/analyze.js';
import type { TypeStats } from '../analysis/type-stats.js';
import { assertNever } from '../errors.js';
import type { RowWindow, SortSpec, TypeRow, TypeSortKey } from '../ipc/contract.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { normFilter, OrderCache, sortByNumber, sortByRank, stringRank, windowOf } from './row-order.js';

/**
 * The types grid: one row per type index with at least one heap object.
 *
 * Counts and shallow sizes exist as soon as the graph is parsed (type-stats); retained sizes
 * appear when the analysis is attached, and the cached orders are keyed by whether it is, so a
 * "retained" sort made before the analysis (all nulls, i.e. name order) is never served after it.
 *
 * Filter: case-insensitive substring of the type name or of the module path (with the module
 * never matched, it is the CLI's `report --filter`, which sees names only). Ties in a
 * numeric sort go by name (code-unit order), then type index: the CLI's order, so an exported
 * CSV lists rows exactly as `heapscope report --format csv` does.
 */
export class TypeView {
  private readonly cache = new OrderCache(16);
  private nameRankCache: Uint32Array | null = null;
  private moduleRankCache: Uint32Array | null = null;
  private lowerNames: string[] | null = null;
  private lowerModules: (string | null)[] | null = null;
  /** Type indices with at least one object, ascending. */
  private readonly present: Uint32Array;

  constructor(
    /** The type names and modules: a graph's, or a type histogram's before the graph exists (preliminary-types.ts). */
    private readonly g: { readonly types: Pick<HeapGraph['types'], 'names' | 'modules'> },
    private readonly stats: TypeStats,
    /** A type's set retained size once computed on demand (set-retained-view.ts), else null. */
    private readonly setRetained: (t: number) => number | null = () => null,
  ) {
    let k = 0;
    for (let t = 0; t < stats.count.length; t++) if (stats.count[t] > 0) k++;
    this.present = new Uint32Array(k);
    k = 0;
    for (let t = 0; t < stats.count.length; t++) if (stats.count[t] > 0) this.present[k++] = t;
  }

  /** How many rows the unfiltered view has. */
  get rowCount(): number {
    return this.present.length;
  }

  /**
   * Rows [start, end) of a view; with `locate`, also that type's row number in the view (one
   * linear scan of the order, so a grid can scroll a selected row into view after a re-sort).
   */
  window(req: { sort: SortSpec<TypeSortKey>; filter?: string; start: number; end: number; locate?: number }, a: HeapAnalysis | null): RowWindow<TypeRow> {
    const order = this.order(req.sort, req.filter, a);
    const w = windowOf(order, req.start, req.end, (t) => this.row(t, a));
    return req.locate === undefined ? w : { ...w, located: order.indexOf(req.locate) };
  }

  /** The row ids (type indices) of a view, sorted and filtered; cached. */
  order(sort: SortSpec<TypeSortKey>, filter: string | undefined, a: HeapAnalysis | null): Uint32Array {
    const f = normFilter(filter);
    const key = `${sort.key}|${sort.dir}|${a ? 'a' : '-'}|${f}`;
    return this.cache.get(key, () => this.computeOrder(sort, f, a));
  }

  row(t: number, a: HeapAnalysis | null): TypeRow {
    const s = this.stats;
    const total = s.objectSize;
    const retained = a ? a.typeRetained[t] : null;
    return {
      typeIndex: t,
      type: this.g.types.names[t],
      module: this.g.types.modules[t],
      count: s.count[t],
      shallowSize: s.shallowSize[t],
      retainedSize: retained,
      scaledCount: s.scaledCount ? s.scaledCount[t] : null,
      scaledShallowSize: s.scaledShallowSize ? s.scaledShallowSize[t] : null,
      shallowPercent: total > 0 ? (s.shallowSize[t] / total) * 100 : 0,
      retainedPercent: retained === null ? null : total > 0 ? (retained / total) * 100 : 0,
      setRetainedSize: this.setRetained(t),
      unreachableCount: a ? a.typeUnreachableCount[t] : null,
      unreachableSize: a ? a.typeUnreachableShallow[t] : null,
    };
  }

  private computeOrder(sort: SortSpec<TypeSortKey>, f: string, a: HeapAnalysis | null): Uint32Array {
    const ids = f ? this.filtered(f) : this.present.slice();
    const s = this.stats;
    switch (sort.key) {
      case 'type':
        return sortByRank(ids, this.nameRank(), sort.dir);
      case 'module':
        return sortByRank(ids, this.moduleRank(), sort.dir);
      case 'count':
        return sortByNumber(ids, s.count, sort.dir, this.nameRank());
      case 'shallowSize':
        return sortByNumber(ids, s.shallowSize, sort.dir, this.nameRank());
      case 'retainedSize':
        // Before the analysis every retained size is unknown: name order is the honest answer.
        return a ? sortByNumber(ids, a.typeRetained, sort.dir, this.nameRank()) : sortByRank(ids, this.nameRank(), 'asc');
      case 'scaledCount':
        return sortByNumber(ids, s.scaledCount ?? s.count, sort.dir, this.nameRank());
      case 'scaledShallowSize':
        return sortByNumber(ids, s.scaledShallowSize ?? s.shallowSize, sort.dir, this.nameRank());
      case 'unreachableCount':
      case 'unreachableSize':
        // like retained sizes, unknown before the analysis: name order
        if (!a) return sortByRank(ids, this.nameRank(), 'asc');
        return sortByNumber(ids, sort.key === 'unreachableCount' ? a.typeUnreachableCount : a.typeUnreachableShallow, sort.dir, this.nameRank());
      default:
        return assertNever(sort.key, 'type sort key');
    }
  }

  private filtered(f: string): Uint32Array {
    this.lowerNames ??= this.g.types.names.map((n) => n.toLowerCase());
    this.lowerModules ??= this.g.types.modules.map((m) => (m === null ? null : m.toLowerCase()));
    const names = this.lowerNames;
    const modules = this.lowerModules;
    const out: number[] = [];
    for (let i = 0; i < this.present.length; i++) {
      const t = this.present[i];
      if (names[t].includes(f) || modules[t]?.includes(f)) out.push(t);
    }
    return Uint32Array.from(out);
  }

  private nameRank(): Uint32Array {
    return (this.nameRankCache ??= stringRank(this.g.types.names));
  }

  private moduleRank(): Uint32Array {
    return (this.moduleRankCache ??= stringRank(this.g.types.modules));
  }
}

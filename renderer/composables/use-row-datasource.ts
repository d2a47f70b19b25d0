import type { IDatasource, IGetRowsParams, SortModelItem } from 'ag-grid-community';
import { shallowRef, type ShallowRef } from 'vue';
import type { RowWindow, SortSpec } from '../../shared/ipc/contract';

/**
 * AG Grid infinite-row-model datasource over a windowed back-end query (ARCHITECTURE §9.7).
 *
 * The grid asks for `[startRow, endRow)` with its sort model; we translate that into the
 * contract's `{sort, filter, start, end}` and hand back `(rows, total)`. Rows never enter a store:
 * AG Grid's block cache holds them (cacheBlockSize rows per block), so memory stays bounded by the
 * blocks in view whatever the snapshot size. Sorting and filtering happen in the worker, over all
 * rows, not just the cached ones.
 */
export interface WindowQuery<K extends string> {
  sort: SortSpec<K>;
  filter?: string;
  start: number;
  end: number;
}

export interface DatasourceOptions<K extends string, Row> {
  /** Grid column id → contract sort key; columns not listed are not sortable server-side. */
  sortKeys: Readonly<Record<string, K>>;
  /** Used when the grid has no sort (the user cleared it). */
  defaultSort: SortSpec<K>;
  /** The toolbar's filter text, read at request time. */
  filter?: () => string;
  /** Columns whose AG Grid text "contains" filter maps to the server-side filter (when the toolbar box is empty). */
  filterColumns?: readonly string[];
  fetch: (q: WindowQuery<K>) => Promise<RowWindow<Row>>;
  /** Every answered window (for "N rows" labels). */
  onWindow?: (w: RowWindow<Row>) => void;
  onError?: (e: unknown) => void;
}

/** An IDatasource that remembers its row type, so a generic grid component can infer it. */
export type TypedDatasource<Row> = IDatasource & { readonly __row?: Row };

type RowsParams = Pick<IGetRowsParams, 'startRow' | 'endRow' | 'sortModel' | 'filterModel'>;

/** Pure mapping of the grid's request to the contract's query; exported for tests. */
export function toWindowQuery<K extends string>(params: RowsParams, opts: Pick<DatasourceOptions<K, unknown>, 'sortKeys' | 'defaultSort' | 'filter' | 'filterColumns'>): WindowQuery<K> {
  const q: WindowQuery<K> = { sort: mapSort(params.sortModel, opts.sortKeys, opts.defaultSort), start: params.startRow, end: params.endRow };
  const filter = (opts.filter?.() ?? '').trim() || columnFilter(params.filterModel, opts.filterColumns ?? []);
  if (filter) q.filter = filter;
  return q;
}

/** The first sorted column that maps to a server key wins (the server sorts by one key, ties by index). */
function mapSort<K extends string>(model: readonly SortModelItem[], keys: Readonly<Record<string, K>>, fallback: SortSpec<K>): SortSpec<K> {
  for (const item of model) {
    const key = keys[item.colId];
    if (key) return { key, dir: item.sort === 'asc' ? 'asc' : 'desc' };
  }
  return { ...fallback };
}

/** AG Grid's text filter model `{ col: { filterType: 'text', type: 'contains', filter } }` → the filter string. */
function columnFilter(model: unknown, columns: readonly string[]): string {
  if (!model || typeof model !== 'object') return '';
  for (const col of columns) {
    const f = (model as Record<string, { filterType?: string; type?: string; filter?: unknown } | undefined>)[col];
    if (f && f.filterType === 'text' && (f.type === 'contains' || f.type === undefined) && typeof f.filter === 'string') {
      const s = f.filter.trim();
      if (s) return s;
    }
  }
  return '';
}

/**
 * A datasource for one grid. A new one is made whenever the query's inputs change outside the
 * grid (filter text, baseline, type): AG Grid then drops its cache and starts from row 0. Answers
 * that arrive after the datasource was replaced are dropped (the grid already forgot the block).
 */
export function createRowDatasource<K extends string, Row>(opts: DatasourceOptions<K, Row>): TypedDatasource<Row> {
  let destroyed = false;
  return {
    getRows(params: IGetRowsParams) {
      const q = toWindowQuery(params, opts);
      opts.fetch(q).then(
        (w) => {
          if (destroyed) return;
          opts.onWindow?.(w);
          params.successCallback(w.rows, w.total);
        },
        (e: unknown) => {
          if (destroyed) return;
          params.failCallback();
          opts.onError?.(e);
        },
      );
    },
    destroy() {
      destroyed = true;
    },
  };
}

/** The datasource as a ref plus `refresh()` that swaps in a fresh one (call on filter/input changes). */
export function useRowDatasource<K extends string, Row>(opts: DatasourceOptions<K, Row>): { datasource: ShallowRef<TypedDatasource<Row>>; refresh: () => void } {
  const datasource = shallowRef(createRowDatasource(opts));
  return {
    datasource,
    refresh: () => {
      datasource.value = createRowDatasource(opts);
    },
  };
}

import { describe, expect, it, vi } from 'vitest';
import type { IGetRowsParams } from 'ag-grid-community';
import type { RowWindow, TypeSortKey } from '../../../../shared/ipc/contract';
import { createRowDatasource, toWindowQuery, type WindowQuery } from '../../../../renderer/composables/use-row-datasource';
import { deferred } from '../fake-client';

const KEYS: Record<string, TypeSortKey> = { type: 'type', count: 'count', shallowSize: 'shallowSize', retainedSize: 'retainedSize' };
const opts = { sortKeys: KEYS, defaultSort: { key: 'retainedSize' as TypeSortKey, dir: 'desc' as const } };

describe('toWindowQuery: AG Grid request → RowQuery', () => {
  it('passes the window through and falls back to the default sort', () => {
    expect(toWindowQuery({ startRow: 200, endRow: 400, sortModel: [], filterModel: {} }, opts)).toEqual({ sort: { key: 'retainedSize', dir: 'desc' }, start: 200, end: 400 });
  });

  it('maps the sorted column id to the contract key and direction', () => {
    expect(toWindowQuery({ startRow: 0, endRow: 100, sortModel: [{ colId: 'count', sort: 'asc' }], filterModel: null }, opts).sort).toEqual({ key: 'count', dir: 'asc' });
    expect(toWindowQuery({ startRow: 0, endRow: 100, sortModel: [{ colId: 'type', sort: 'desc' }], filterModel: null }, opts).sort).toEqual({ key: 'type', dir: 'desc' });
  });

  it('skips columns the server cannot sort by and uses the next one', () => {
    const q = toWindowQuery({ startRow: 0, endRow: 100, sortModel: [{ colId: 'retainedPercent', sort: 'asc' }, { colId: 'shallowSize', sort: 'asc' }], filterModel: null }, opts);
    expect(q.sort).toEqual({ key: 'shallowSize', dir: 'asc' });
  });

  it('uses the toolbar filter, trimmed, and omits an empty one', () => {
    expect(toWindowQuery({ startRow: 0, endRow: 1, sortModel: [], filterModel: null }, { ...opts, filter: () => '  String ' }).filter).toBe('String');
    expect('filter' in toWindowQuery({ startRow: 0, endRow: 1, sortModel: [], filterModel: null }, { ...opts, filter: () => '   ' })).toBe(false);
  });

  it("falls back to an AG Grid 'contains' text filter on a filter column", () => {
    const filterModel = { type: { filterType: 'text', type: 'contains', filter: 'Dictionary' } };
    expect(toWindowQuery({ startRow: 0, endRow: 1, sortModel: [], filterModel }, { ...opts, filterColumns: ['type'] }).filter).toBe('Dictionary');
    // the toolbar box wins when both are set
    expect(toWindowQuery({ startRow: 0, endRow: 1, sortModel: [], filterModel }, { ...opts, filterColumns: ['type'], filter: () => 'List' }).filter).toBe('List');
    // other operators (equals, startsWith) are not what the server does: ignored rather than misapplied
    const equals = { type: { filterType: 'text', type: 'equals', filter: 'X' } };
    expect(toWindowQuery({ startRow: 0, endRow: 1, sortModel: [], filterModel: equals }, { ...opts, filterColumns: ['type'] }).filter).toBeUndefined();
    // a column not declared as filterable is ignored
    expect(toWindowQuery({ startRow: 0, endRow: 1, sortModel: [], filterModel }, opts).filter).toBeUndefined();
  });
});

function params(startRow: number, endRow: number) {
  return {
    startRow,
    endRow,
    sortModel: [{ colId: 'count', sort: 'desc' }],
    filterModel: null,
    successCallback: vi.fn(),
    failCallback: vi.fn(),
  } as unknown as IGetRowsParams & { successCallback: ReturnType<typeof vi.fn>; failCallback: ReturnType<typeof vi.fn> };
}

describe('createRowDatasource', () => {
  it('answers the grid with the window rows and the total row count', async () => {
    const fetch = vi.fn(async (q: WindowQuery<TypeSortKey>): Promise<RowWindow<{ id: number }>> => ({ start: q.start, end: q.start + 2, total: 2, rows: [{ id: 1 }, { id: 2 }] }));
    const onWindow = vi.fn();
    const ds = createRowDatasource({ ...opts, fetch, onWindow });
    const p = params(0, 200);
    ds.getRows(p);
    await vi.waitFor(() => expect(p.successCallback).toHaveBeenCalled());
    expect(fetch).toHaveBeenCalledWith({ sort: { key: 'count', dir: 'desc' }, start: 0, end: 200 });
    expect(p.successCallback).toHaveBeenCalledWith([{ id: 1 }, { id: 2 }], 2);
    expect(onWindow).toHaveBeenCalledWith({ start: 0, end: 2, total: 2, rows: [{ id: 1 }, { id: 2 }] });
  });

  it('reports failures to the grid and to onError', async () => {
    const onError = vi.fn();
    const ds = createRowDatasource({ ...opts, fetch: () => Promise.reject(new Error('boom')), onError });
    const p = params(0, 100);
    ds.getRows(p);
    await vi.waitFor(() => expect(p.failCallback).toHaveBeenCalled());
    expect(onError).toHaveBeenCalledWith(new Error('boom'));
    expect(p.successCallback).not.toHaveBeenCalled();
  });

  it('drops answers that arrive after the datasource was replaced', async () => {
    const d = deferred<RowWindow<{ id: number }>>();
    const onWindow = vi.fn();
    const ds = createRowDatasource({ ...opts, fetch: () => d.promise, onWindow });
    const p = params(0, 100);
    ds.getRows(p);
    ds.destroy!();
    d.resolve({ start: 0, end: 1, total: 1, rows: [{ id: 1 }] });
    await d.promise;
    await Promise.resolve();
    expect(p.successCallback).not.toHaveBeenCalled();
    expect(onWindow).not.toHaveBeenCalled();
  });
});

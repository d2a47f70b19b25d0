import { describe, expect, it } from 'vitest';
import { appliedTypeSort, sameSort } from '../../../../../renderer/components/types/type-sort';

// The types grid's header must show the sort the worker applies (issue 14 item 3): before the
// dominator analysis, sorts by retained or unreachable sizes are served as name order.
describe('appliedTypeSort', () => {
  it('before the analysis, keys that need it become name order; others stand', () => {
    expect(appliedTypeSort({ key: 'retainedSize', dir: 'desc' }, false)).toEqual({ key: 'type', dir: 'asc' });
    expect(appliedTypeSort({ key: 'unreachableSize', dir: 'asc' }, false)).toEqual({ key: 'type', dir: 'asc' });
    expect(appliedTypeSort({ key: 'unreachableCount', dir: 'desc' }, false)).toEqual({ key: 'type', dir: 'asc' });
    expect(appliedTypeSort({ key: 'count', dir: 'desc' }, false)).toEqual({ key: 'count', dir: 'desc' });
    expect(appliedTypeSort({ key: 'type', dir: 'desc' }, false)).toEqual({ key: 'type', dir: 'desc' });
  });
  it('after the analysis, the requested sort', () => {
    expect(appliedTypeSort({ key: 'retainedSize', dir: 'desc' }, true)).toEqual({ key: 'retainedSize', dir: 'desc' });
    expect(sameSort({ key: 'type', dir: 'asc' }, { key: 'type', dir: 'desc' })).toBe(false);
  });
});

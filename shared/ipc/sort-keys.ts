/**
 * The sort keys of the windowed views, as run-time lists: the contract's key types are derived from
 * them (dtos-views.ts), the request guards accept exactly these, and a grid sorts server-side on a
 * column whose id is one of them. Adding a key here is the one edit; the view behind it must then
 * be able to order by it (shared/session/*-view.ts).
 */
export const TYPE_SORT_KEYS = ['type', 'module', 'count', 'shallowSize', 'retainedSize', 'scaledCount', 'scaledShallowSize', 'unreachableCount', 'unreachableSize'] as const;

export const OBJECT_SORT_KEYS = ['address', 'size', 'retainedSize', 'generation'] as const;

export const DIFF_SORT_KEYS = [
  'type',
  'count',
  'baselineCount',
  'countDelta',
  'shallowSize',
  'baselineShallowSize',
  'shallowDelta',
  'retainedSize',
  'baselineRetainedSize',
  'retainedDelta',
] as const;

/** The Strings view (duplicate strings of a process dump). */
export const STRING_SORT_KEYS = ['value', 'length', 'count', 'totalBytes', 'wastedBytes'] as const;

/** Grid column id → sort key, for grids whose sortable columns are named after the keys. */
export function sortKeyMap<K extends string>(keys: readonly K[]): Readonly<Record<string, K>> {
  const map: Record<string, K> = {};
  for (const k of keys) map[k] = k;
  return map;
}

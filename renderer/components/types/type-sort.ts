import type { SortSpec, TypeSortKey } from '../../../shared/ipc/contract';

/**
 * The sort the worker really applies to the types grid (shared/session/type-view.ts): keys that
 * need the dominator analysis (retained and unreachable sizes) are all unknown before it, and the
 * worker then orders by name. The grid's header shows this applied sort, never a "Retained ↓"
 * over rows in name order; the requested one (kept in the tab state) is applied when the
 * analysis arrives.
 */
const NEEDS_ANALYSIS: readonly TypeSortKey[] = ['retainedSize', 'unreachableCount', 'unreachableSize'];

export const NAME_ORDER: SortSpec<TypeSortKey> = { key: 'type', dir: 'asc' };

export function appliedTypeSort(requested: SortSpec<TypeSortKey>, analysisDone: boolean): SortSpec<TypeSortKey> {
  return !analysisDone && NEEDS_ANALYSIS.includes(requested.key) ? { ...NAME_ORDER } : { ...requested };
}

export function sameSort<K extends string>(a: SortSpec<K>, b: SortSpec<K>): boolean {
  return a.key === b.key && a.dir === b.dir;
}

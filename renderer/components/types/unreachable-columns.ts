import type { ColDef, ValueFormatterParams } from 'ag-grid-community';
import { countColumn, sizeColumn, type SizeFormatRef } from '../grids/columns';
import { formatCount } from '../grids/format';

/**
 * The types grid's unreachable columns: how many objects of a type, and how many of its bytes, no
 * GC root reaches. They are what explains a retained size below the shallow size (retained counts
 * reachable objects only), so the tooltips say so in the terms the README uses. Both are null
 * ("…") until the dominator analysis is done, like retained sizes.
 */
export const UNREACHABLE_COUNT_TOOLTIP =
  'Objects of this type that no GC root reaches: garbage the next GC frees, objects held only by weak handles, ' +
  'and frozen (non-GC heap) objects without a root (string literals, RuntimeType objects), which are never collected';

export const UNREACHABLE_SIZE_TOOLTIP =
  'Σ size of the unreachable objects of this type. Retained size counts reachable objects only, ' +
  'so Retained size ≥ Shallow size − Unreachable size';

/** The retained column's tooltip, with the same explanation. */
export const RETAINED_TOOLTIP =
  'Type retained size: Σ exact retained size (dominator tree) of the instances that no other instance of this type dominates, so nested instances count once. ' +
  'Leaves out what instances keep alive only jointly (an array shared by two Lists), so it can be less than what removing every instance would free: see Set retained (exact). ' +
  'Reachable objects only: it can be below the shallow size by at most the Unreachable size';

export function unreachableColumns(fmt: SizeFormatRef): ColDef[] {
  return [
    countColumn('unreachableCount', 'Unreachable', {
      headerTooltip: UNREACHABLE_COUNT_TOOLTIP,
      // null: not computed yet (the analysis is running), as in the size columns
      valueFormatter: (p: ValueFormatterParams) => (p.value === undefined ? '' : p.value === null ? '…' : formatCount(p.value as number)),
    }),
    sizeColumn('unreachableSize', 'Unreachable size', fmt, { width: 140, headerTooltip: UNREACHABLE_SIZE_TOOLTIP }),
  ];
}

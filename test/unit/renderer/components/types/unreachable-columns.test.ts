// @vitest-environment happy-dom
import type { ICellRendererParams, ValueFormatterParams } from 'ag-grid-community';
import { describe, expect, it } from 'vitest';
import { TYPE_SORT_KEYS } from '../../../../../shared/ipc/sort-keys';
import { RETAINED_TOOLTIP, unreachableColumns } from '../../../../../renderer/components/types/unreachable-columns';

describe('types grid: unreachable columns', () => {
  const [count, size] = unreachableColumns(() => 'auto');
  const formatter = count.valueFormatter as (p: ValueFormatterParams) => string;
  const fmtCount = (v: number | null | undefined) => formatter({ value: v } as ValueFormatterParams);
  const cell = (v: number | null) => size.cellRenderer({ value: v } as ICellRendererParams) as HTMLElement;

  it('are "Unreachable" (count) and "Unreachable size", sortable by the back end', () => {
    expect([count.colId, count.headerName, size.colId, size.headerName]).toEqual(['unreachableCount', 'Unreachable', 'unreachableSize', 'Unreachable size']);
    expect(TYPE_SORT_KEYS).toContain(count.colId);
    expect(TYPE_SORT_KEYS).toContain(size.colId);
  });

  it('show the numbers once the analysis is done, "…" before', () => {
    expect([fmtCount(15_418), fmtCount(0), fmtCount(null), fmtCount(undefined)]).toEqual(['15,418', '0', '…', '']);
    expect(cell(256).textContent).toBe('256 bytes');
    expect(cell(null).textContent).toBe('…');
  });

  it('explain why retained can be below shallow, and that frozen objects are not garbage', () => {
    expect(count.headerTooltip).toContain('no GC root reaches');
    expect(count.headerTooltip).toContain('frozen (non-GC heap)');
    expect(count.headerTooltip).toContain('never collected');
    expect(size.headerTooltip).toContain('Retained size ≥ Shallow size − Unreachable size');
    expect(RETAINED_TOOLTIP).toContain('Reachable objects only');
  });
});

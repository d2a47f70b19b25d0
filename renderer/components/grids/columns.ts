import type { ColDef, ICellRendererParams, ValueFormatterParams } from 'ag-grid-community';
import { exactBytes, formatBytes, formatCount, formatPercent, formatSignedBytes, formatSignedCount, type SizeFormat } from './format';

/**
 * Column factories shared by every grid, so sizes, counts and percentages look the same
 * everywhere: right-aligned tabular digits, human units with the exact byte count on hover,
 * thousands separators. `sizeFormat` is read at render time, so switching KB/MB ↔ bytes only
 * needs `api.refreshCells({ force: true })`.
 */
export type SizeFormatRef = () => SizeFormat;

/** Right-aligned tabular digits, largest first on the first click. */
function numberColumn(field: string, headerName: string, width: number): ColDef {
  return { field, colId: field, headerName, width, type: 'rightAligned', cellClass: 'num', headerClass: 'num-header', sortingOrder: ['desc', 'asc'] };
}

/** A diff's growing (delta-up) and shrinking (delta-down) cells; colours in base.css. */
const DELTA_CLASSES: ColDef['cellClassRules'] = { 'delta-up': (p) => (p.value as number) > 0, 'delta-down': (p) => (p.value as number) < 0 };

function span(text: string, title: string, cls?: string): HTMLElement {
  const s = document.createElement('span');
  s.textContent = text;
  if (title) s.title = title;
  if (cls) s.className = cls;
  return s;
}

export function textColumn(field: string, headerName: string, extra: Partial<ColDef> = {}): ColDef {
  return {
    field,
    colId: field,
    headerName,
    flex: 1,
    minWidth: 160,
    sortingOrder: ['asc', 'desc'],
    tooltipField: field,
    ...extra,
  };
}

export function countColumn(field: string, headerName: string, extra: Partial<ColDef> = {}): ColDef {
  return {
    ...numberColumn(field, headerName, 110),
    valueFormatter: (p: ValueFormatterParams) => (p.value === undefined ? '' : formatCount(p.value as number | null)),
    ...extra,
  };
}

/**
 * Human size with the exact byte count as the cell's tooltip. `null` means "not computed yet"
 * (retained sizes before the analysis) unless `missing` says what else it means.
 */
export function sizeColumn(
  field: string,
  headerName: string,
  fmt: SizeFormatRef,
  extra: Partial<ColDef> = {},
  missing: { text: string; title: string } = { text: '…', title: 'not computed yet (the dominator analysis is still running)' },
): ColDef {
  return {
    ...numberColumn(field, headerName, 120),
    cellRenderer: (p: ICellRendererParams) => {
      if (p.value === undefined) return '';
      const v = p.value as number | null;
      return v === null ? span(missing.text, missing.title, 'muted') : span(formatBytes(v, fmt()), exactBytes(v));
    },
    ...extra,
  };
}

/** A percentage with a thin bar behind it, so the largest rows stand out at a glance. */
export function percentColumn(field: string, headerName: string, extra: Partial<ColDef> = {}): ColDef {
  return {
    ...numberColumn(field, headerName, 110),
    sortable: false,
    cellRenderer: (p: ICellRendererParams) => {
      if (p.value === undefined) return '';
      const v = p.value as number | null;
      if (v === null) return span('…', 'not computed yet', 'muted');
      const wrap = span('', `${v.toFixed(4)} %`, 'pct-cell');
      const bar = document.createElement('span');
      bar.className = 'pct-bar';
      bar.style.width = `${Math.min(100, Math.max(0, v))}%`;
      wrap.append(bar, span(formatPercent(v, 100), ''));
      return wrap;
    },
    ...extra,
  };
}

export function signedCountColumn(field: string, headerName: string, extra: Partial<ColDef> = {}): ColDef {
  return {
    ...numberColumn(field, headerName, 110),
    valueFormatter: (p: ValueFormatterParams) => (p.value === undefined ? '' : formatSignedCount(p.value as number)),
    cellClassRules: DELTA_CLASSES,
    ...extra,
  };
}

export function signedSizeColumn(field: string, headerName: string, fmt: SizeFormatRef, extra: Partial<ColDef> = {}): ColDef {
  return {
    ...numberColumn(field, headerName, 120),
    cellRenderer: (p: ICellRendererParams) => (p.value === undefined ? '' : span(formatSignedBytes(p.value as number, fmt()), exactBytes(p.value as number))),
    cellClassRules: DELTA_CLASSES,
    ...extra,
  };
}

/** Mark the column the store says is sorted, so a re-created grid shows the same sort arrow. */
export function withSort(cols: ColDef[], colId: string, dir: 'asc' | 'desc'): ColDef[] {
  return cols.map((c) => ({ ...c, sort: c.colId === colId ? dir : null }));
}

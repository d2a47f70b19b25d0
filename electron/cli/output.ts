import { csvRow, type CsvCell } from '../../shared/util/csv.js';

/**
 * Output helpers shared by every CLI command: aligned text tables, RFC 4180 CSV and JSON.
 * Commands build rows once and pick a renderer with `--format`.
 */
export type OutputFormat = 'table' | 'csv' | 'json';
export const OUTPUT_FORMATS = ['table', 'csv', 'json'] as const;

export interface Column<R> {
  header: string;
  /** JSON field name; also the CSV header when `csvHeader` is absent. */
  key: string;
  value: (row: R) => CsvCell;
  /** Right-align in tables (numbers). */
  numeric?: boolean;
  /** Text-table rendering (e.g. thousands separators); CSV and JSON get the raw value. */
  text?: (row: R) => string;
}

export interface Writer {
  write(s: string): void;
}

const groupFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

export function formatNumber(n: number): string {
  return groupFmt.format(n);
}

export function renderTable<R>(rows: readonly R[], cols: readonly Column<R>[]): string {
  const cells = rows.map((r) =>
    cols.map((c) => {
      if (c.text) return c.text(r);
      const v = c.value(r);
      if (typeof v === 'number') return formatNumber(v);
      return v === null || v === undefined ? '' : String(v);
    }),
  );
  const widths = cols.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i].length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => (cols[i].numeric ? v.padStart(widths[i]) : i === vals.length - 1 ? v : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const out = [line(cols.map((c) => c.header)), line(widths.map((w) => '-'.repeat(w)))];
  for (const row of cells) out.push(line(row));
  return out.join('\n') + '\n';
}

export function renderCsv<R>(rows: readonly R[], cols: readonly Column<R>[]): string {
  let out = csvRow(cols.map((c) => c.key));
  for (const r of rows) out += csvRow(cols.map((c) => c.value(r)));
  return out;
}

export function renderJson<R>(rows: readonly R[], cols: readonly Column<R>[]): string {
  const objs = rows.map((r) => {
    const o: Record<string, unknown> = {};
    for (const c of cols) o[c.key] = c.value(r) ?? null;
    return o;
  });
  return JSON.stringify(objs, null, 2) + '\n';
}

export function renderRows<R>(format: OutputFormat, rows: readonly R[], cols: readonly Column<R>[]): string {
  switch (format) {
    case 'table':
      return renderTable(rows, cols);
    case 'csv':
      return renderCsv(rows, cols);
    case 'json':
      return renderJson(rows, cols);
  }
}

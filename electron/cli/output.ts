import { csvRow, type CsvCell } from '../../shared/util/csv.js';
import { escapeControl } from './terminal-text.js';

/**
 * Output helpers shared by every CLI command: aligned text tables, RFC 4180 CSV and JSON.
 * Commands build rows once and pick a renderer with `--format`; stream-rows.ts writes the same
 * bytes row by row for outputs too large to hold as one string.
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

/**
 * Tree tables indent a row's name by two spaces per level up to this depth and no further (a Depth
 * or Step column still gives the real level). A path or dominator chain can be millions of levels
 * deep; uncapped, each row would carry millions of spaces and the padded column would make the
 * table quadratic in size.
 */
export const MAX_TABLE_INDENT = 40;

export function treeIndent(depth: number): string {
  return '  '.repeat(Math.min(depth, MAX_TABLE_INDENT));
}

export interface Writer {
  write(s: string): void;
}

const groupFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/**
 * "1,234,567.89" (en-US grouping, at most two decimals). Whole numbers, nearly every cell, take a
 * hand-written path with the same output: Intl formatting costs about a microsecond per call,
 * which a table of millions of rows (formatted twice when streamed) would feel.
 */
export function formatNumber(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return groupFmt.format(n);
  const digits = String(n < 0 ? -n : n);
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3);
  return n < 0 ? '-' + out : out;
}

/**
 * An aligned text table. Every cell goes through escapeControl (terminal-text.ts): names from the
 * file cannot move the cursor, clear the screen or break a row in two. Widths are found with a
 * loop, not Math.max(...cells), which overflows the call stack on a few hundred thousand rows.
 */
export function renderTable<R>(rows: readonly R[], cols: readonly Column<R>[]): string {
  const cells = rows.map((r) => tableCells(r, cols));
  const headers = tableHeaders(cols);
  const widths = headers.map((h) => h.length);
  for (const row of cells) growWidths(widths, row);
  const out = [tableLine(headers, cols, widths), tableLine(widths.map((w) => '-'.repeat(w)), cols, widths)];
  for (const row of cells) out.push(tableLine(row, cols, widths));
  return out.join('\n') + '\n';
}

/** One row's table cells, as displayed (control characters escaped). */
export function tableCells<R>(r: R, cols: readonly Column<R>[]): string[] {
  return cols.map((c) => {
    if (c.text) return escapeControl(c.text(r));
    const v = c.value(r);
    if (typeof v === 'number') return formatNumber(v);
    return v === null || v === undefined ? '' : escapeControl(String(v));
  });
}

/** Headers can hold file names (trend's columns): escaped like the cells. */
export function tableHeaders<R>(cols: readonly Column<R>[]): string[] {
  return cols.map((c) => escapeControl(c.header));
}

export function growWidths(widths: number[], cells: readonly string[]): void {
  for (let i = 0; i < cells.length; i++) if (cells[i].length > widths[i]) widths[i] = cells[i].length;
}

export function tableLine<R>(vals: readonly string[], cols: readonly Column<R>[], widths: readonly number[]): string {
  return vals
    .map((v, i) => (cols[i].numeric ? v.padStart(widths[i]) : i === vals.length - 1 ? v : v.padEnd(widths[i])))
    .join('  ')
    .trimEnd();
}

export function renderCsv<R>(rows: readonly R[], cols: readonly Column<R>[]): string {
  let out = csvRow(cols.map((c) => c.key));
  for (const r of rows) out += csvRow(cols.map((c) => c.value(r)));
  return out;
}

export function renderJson<R>(rows: readonly R[], cols: readonly Column<R>[]): string {
  return JSON.stringify(rows.map((r) => jsonObject(r, cols)), null, 2) + '\n';
}

/** A row as its JSON object (absent values are null). */
export function jsonObject<R>(r: R, cols: readonly Column<R>[]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const c of cols) o[c.key] = c.value(r) ?? null;
  return o;
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

/**
 * CSV writing per RFC 4180, with a guard against formula injection.
 *
 * Type names come from the heap being analysed, i.e. from whoever wrote that program: a name like
 * `=HYPERLINK(...)` must not become a live formula when the export is opened in a spreadsheet.
 * Text cells starting with = + - @ TAB or CR get a leading apostrophe (OWASP's recommendation);
 * numbers are written as plain numbers. Lines end with CRLF as the RFC says.
 */
export type CsvCell = string | number | boolean | null | undefined;

const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  let s = value;
  if (FORMULA_START.test(s)) s = "'" + s;
  return NEEDS_QUOTES.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

export function csvRow(cells: readonly CsvCell[]): string {
  let out = '';
  for (let i = 0; i < cells.length; i++) {
    if (i > 0) out += ',';
    out += csvCell(cells[i]);
  }
  return out + '\r\n';
}

/** A whole table (header + rows) as one string; for large exports call csvRow per chunk instead. */
export function csvTable(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  let out = csvRow(header);
  for (const r of rows) out += csvRow(r);
  return out;
}

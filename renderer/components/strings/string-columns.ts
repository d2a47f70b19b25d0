import type { ICellRendererParams } from 'ag-grid-community';
import type { StringRow } from '../../../shared/ipc/contract';

/**
 * Cells and header tooltips of the Strings grid. The tooltips define each number the way
 * shared/analysis/duplicate-strings.ts computes it (and README's `heapscope strings` does).
 */
export const STRING_TOOLTIPS = {
  value: 'The string\'s contents (a process dump keeps the first 1,024 chars; a cut-off value ends with …)',
  count: 'Reachable System.String objects with exactly this value',
  wastedBytes: 'Total minus one copy: the bytes sharing one instance would save',
  totalBytes: 'Σ shallow size of the copies',
  length: 'Full length in UTF-16 chars',
} as const;

/** The value quoted, control characters shown as escapes, "…" when the dump kept only its start. */
export function stringCell(p: ICellRendererParams<StringRow>): HTMLElement | string {
  const r = p.data;
  if (!r) return '';
  const el = document.createElement('span');
  el.className = 'mono';
  const text = r.value.replace(/[\u0000-\u001f\u007f]/g, (c) => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : c === '\r' ? '\\r' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
  el.textContent = `"${text}"${r.truncated ? '…' : ''}`;
  el.title = r.truncated ? `${r.length.toLocaleString('en-US')} chars; the dump kept the first ${r.value.length.toLocaleString('en-US')}` : `${r.length.toLocaleString('en-US')} chars`;
  return el;
}

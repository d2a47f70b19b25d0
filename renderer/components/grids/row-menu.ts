/**
 * What the grids' right-click (and keyboard) row menus need to know about a row, kept out of the
 * grid component so it can be tested without AG Grid: which key opens a menu, which rows are
 * types, and a row's visible cells as one line of text for "Copy row".
 */

/** Shift+F10 or the ContextMenu key: the keyboard's right-click. */
export function isMenuKey(e: Pick<KeyboardEvent, 'key' | 'shiftKey'>): boolean {
  return e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey);
}

/**
 * A `contextmenu` event the keyboard made (Shift+F10, the ContextMenu key): `button` is 0, a
 * right-click's is 2. The grids open a row's menu from the key press itself (cellKeyDown), and
 * Chromium may still send this event afterwards, sometimes after Escape has closed the menu
 * again: it must only keep the browser's menu shut, never open ours a second time.
 */
export function isKeyboardContextMenu(e: Pick<MouseEvent, 'button'>): boolean {
  return e.button !== 2;
}

/** The type a grid row stands for: `typeIndex` when the row has one (Types), by name only otherwise (Diff). */
export interface TypeOfRow {
  type: string;
  typeIndex?: number;
}

export function typeOfRow(data: unknown): TypeOfRow | null {
  if (typeof data !== 'object' || data === null) return null;
  const d = data as { type?: unknown; typeIndex?: unknown };
  if (typeof d.type !== 'string') return null;
  return typeof d.typeIndex === 'number' ? { type: d.type, typeIndex: d.typeIndex } : { type: d.type };
}

/**
 * Cells as tab-separated text, the way spreadsheets paste it. A tab or line break inside a cell
 * (a generic type name never has one, a module path could) becomes a space so the columns stay
 * in place; a missing value is an empty cell.
 */
export function rowTsv(cells: readonly unknown[]): string {
  return cells.map((c) => (c === null || c === undefined ? '' : String(c).replace(/[\t\r\n]+/g, ' '))).join('\t');
}

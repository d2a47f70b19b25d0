import { formatCount } from '../grids/format';
import { PAGE } from './dominator-tree-model';

/**
 * The pieces of the first cell of the dominator-family tree grids (DominatorTree, DominatorGroups,
 * RetainedByView). AG Grid renders cells outside Vue, so these are plain elements, styled by the
 * `.tree-cell` rules of styles/base.css.
 */

/** The cell, indented 16 px per tree level. */
export function treeCell(depth: number): HTMLElement {
  const el = document.createElement('span');
  el.className = 'tree-cell';
  el.style.paddingLeft = `${depth * 16}px`;
  return el;
}

/** The cell of a paging row: "Show N more of M remaining…" (N at most one window, PAGE rows). */
export function moreCell(depth: number, remaining: number): HTMLElement {
  const el = treeCell(depth);
  const b = document.createElement('span');
  b.className = 'more-link';
  b.textContent = `Show ${formatCount(Math.min(PAGE, remaining))} more of ${formatCount(remaining)} remaining…`;
  el.append(b);
  return el;
}

/** ▾ / ▸; a row that cannot expand keeps an invisible glyph (`leaf`) so the rows line up. */
export function chevron(expandable: boolean, expanded: boolean): HTMLElement {
  const c = document.createElement('span');
  c.className = expandable ? 'chevron' : 'chevron leaf';
  c.textContent = expanded ? '▾' : '▸';
  return c;
}

/** A type's name; a pseudo-node's (`[static vars]`, roots) in italics. */
export function typeName(text: string, pseudo: boolean): HTMLElement {
  const name = document.createElement('span');
  name.className = pseudo ? 'tname pseudo' : 'tname';
  name.textContent = text;
  return name;
}

/** An object's address, after its type name. */
export function address(text: string): HTMLElement {
  const addr = document.createElement('span');
  addr.className = 'addr';
  addr.textContent = text;
  return addr;
}

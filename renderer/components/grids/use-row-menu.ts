import type { CellKeyDownEvent, GridApi } from 'ag-grid-community';
import { inject, type ShallowRef } from 'vue';
import { OBJECT_ROW_ACTIONS, type ObjectMenuTarget } from '../inspector/object-actions';
import { isKeyboardContextMenu, isMenuKey, type TypeOfRow } from './row-menu';

/** What a row of a tree-shaped grid stands for in its menu: an object, a type, or nothing (a "show more" row). */
export type RowMenuTarget = { object: ObjectMenuTarget } | { type: TypeOfRow } | null;

/**
 * The row menus for the grids that are not InfiniteGrid (the dominator tree by type, Retained
 * by): right-click, Shift+F10 or the ContextMenu key on a row opens the object menu or the type
 * menu of what `target` says the row is. These grids have no CSV export, so their menus have no
 * Copy row / Export. Call in a component's setup (it injects the tab's row actions).
 */
export function useRowMenu<R>(api: ShallowRef<GridApi<R> | null>, target: (row: R) => RowMenuTarget) {
  const actions = inject(OBJECT_ROW_ACTIONS, null);

  function open(row: R | undefined, x: number, y: number): boolean {
    const t = actions && row ? target(row) : null;
    if (!t) return false;
    if ('object' in t) actions!.menu(t.object, x, y);
    else actions!.typeMenu(t.type, x, y);
    return true;
  }

  function onContextMenu(e: MouseEvent): void {
    const rowEl = (e.target as HTMLElement | null)?.closest('.ag-row[row-index]');
    const index = Number(rowEl?.getAttribute('row-index'));
    if (!rowEl || !Number.isInteger(index)) return;
    if (isKeyboardContextMenu(e)) e.preventDefault(); // the key press already opened it (onMenuKey)
    else if (open(api.value?.getDisplayedRowAtIndex(index)?.data, e.clientX, e.clientY)) e.preventDefault();
  }

  /** For the grid's cell-key-down handler: true if the key opened a menu. */
  function onMenuKey(e: CellKeyDownEvent<R>): boolean {
    const ev = e.event as KeyboardEvent | null;
    if (!ev || !isMenuKey(ev)) return false;
    const r = (ev.target as HTMLElement | null)?.getBoundingClientRect?.();
    if (!open(e.data, r ? r.left + 8 : 0, r ? r.bottom : 0)) return false;
    ev.preventDefault();
    return true;
  }

  return { onContextMenu, onMenuKey };
}

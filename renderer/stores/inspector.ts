import { acceptHMRUpdate, defineStore } from 'pinia';
import { ref } from 'vue';
import type { DocId } from './documents';

/**
 * The object inspector of each tab (which object it shows, and the objects visited before it,
 * for Back), the object context menu of the grids, and the Go-to-address dialog.
 *
 * Kept apart from the tabs store: nothing here is a view's sort or filter, and the inspector
 * floats over whichever view is showing. Only node ordinals are kept: details and references
 * are fetched from the back end by the inspector itself, one window at a time.
 */
export interface InspectorState {
  node: number;
  /** Objects inspected before this one in this tab (most recent last), for Back. */
  history: number[];
}

/** An object row the user right-clicked: where to show the menu and for what. */
export interface ObjectMenu {
  docId: DocId;
  node: number;
  address: string;
  x: number;
  y: number;
  /** The row's visible cells as tab-separated text ("Copy row"); absent for rows that are not grid rows (paths to roots). */
  rowText?: string;
  /** "What if" (issue 16): the reference this row stands for (a path step, an inspector reference); `node` is one end. */
  reference?: { from: number; to: number };
  /** A root category row (paths to roots, the dominator tree): `node` is the category's pseudo-node; only what-if actions apply. */
  rootCategory?: string;
  /**
   * "What if" on a row that is an object but stands for no reference (the dominator tree: a
   * dominator is not a referrer; Retained by): offer only *Ignore references from this type*.
   */
  ignoreType?: true;
  /** The object's type index when the row knows it (else Ignore references from this type asks for it). */
  typeIndex?: number;
}

/** A type row the user right-clicked (Types, Diff): `typeIndex` unknown for a diff row (looked up by name). */
export interface TypeMenu {
  docId: DocId;
  type: string;
  typeIndex?: number;
  /** As in ObjectMenu: absent in grids without an export (dominator tree by type, Retained by). */
  rowText?: string;
  x: number;
  y: number;
}

/** How far Back goes. */
const HISTORY = 50;

export const useInspectorStore = defineStore('inspector', () => {
  const open = ref<Record<DocId, InspectorState>>({});
  const menu = ref<ObjectMenu | null>(null);
  /** At most one row menu is open: opening either closes the other. */
  const typeMenu = ref<TypeMenu | null>(null);
  /** The tab whose Go-to-address dialog is open. */
  const goTo = ref<DocId | null>(null);

  /** Show `node` in the tab's inspector; the object shown before (if any) goes on the Back list. */
  function inspect(docId: DocId, node: number): void {
    const cur = open.value[docId];
    menu.value = null;
    if (cur?.node === node) return;
    const history = cur ? [...cur.history, cur.node].slice(-HISTORY) : [];
    open.value[docId] = { node, history };
  }

  function back(docId: DocId): void {
    const cur = open.value[docId];
    if (!cur?.history.length) return;
    open.value[docId] = { node: cur.history[cur.history.length - 1], history: cur.history.slice(0, -1) };
  }

  function close(docId: DocId): void {
    delete open.value[docId];
  }

  function openMenu(m: ObjectMenu): void {
    typeMenu.value = null;
    menu.value = m;
  }

  function openTypeMenu(m: TypeMenu): void {
    menu.value = null;
    typeMenu.value = m;
  }

  function closeMenu(): void {
    menu.value = null;
    typeMenu.value = null;
  }

  function openGoTo(docId: DocId): void {
    menu.value = null;
    goTo.value = docId;
  }

  function closeGoTo(): void {
    goTo.value = null;
  }

  return { open, menu, typeMenu, goTo, inspect, back, close, openMenu, openTypeMenu, closeMenu, openGoTo, closeGoTo };
});

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(useInspectorStore, import.meta.hot));

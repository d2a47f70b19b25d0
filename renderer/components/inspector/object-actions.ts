import type { InjectionKey } from 'vue';
import type { ObjectInfo } from '../../../shared/ipc/contract';
import { useClient } from '../../api/heapscope-client';
import { useDocumentsStore, type DocId } from '../../stores/documents';
import { useInspectorStore } from '../../stores/inspector';
import { useTabsStore } from '../../stores/tabs';

/**
 * What can be done with one object from anywhere (the inspector's buttons, a grid's context
 * menu): inspect it, show its paths to roots, show it in the dominator tree, copy its address.
 * "Paths to roots" and "Show in dominator tree" go through the tabs store's selected object, the
 * same navigation the Instances view's buttons use.
 */
export interface ObjectRef {
  node: number;
  address: string;
  /** Known when the caller has it; fetched (objectInfo) otherwise. */
  type?: string;
}

async function withType(docId: DocId, o: ObjectRef): Promise<{ node: number; type: string; address: string } | null> {
  if (o.type !== undefined) return { node: o.node, type: o.type, address: o.address };
  const sessionId = useDocumentsStore().docs[docId]?.sessionId;
  if (!sessionId) return null;
  const info: ObjectInfo = await useClient().objectInfo({ sessionId, node: o.node });
  return { node: o.node, type: info.type, address: info.address };
}

export async function showPathsOf(docId: DocId, o: ObjectRef): Promise<void> {
  try {
    const sel = await withType(docId, o);
    if (!sel) return;
    const tabs = useTabsStore();
    tabs.selectObject(docId, sel);
    tabs.showPaths(docId, 'object');
  } catch (e) {
    useDocumentsStore().report(e, docId);
  }
}

export async function showInDominatorTree(docId: DocId, o: ObjectRef): Promise<void> {
  try {
    const sel = await withType(docId, o);
    if (!sel) return;
    const tabs = useTabsStore();
    tabs.selectObject(docId, sel);
    tabs.showView(docId, 'dominators');
  } catch (e) {
    useDocumentsStore().report(e, docId);
  }
}

/** Clipboard API where the page may use it (Electron, https, localhost), else a hidden textarea. */
export async function copyAddress(address: string, docId: DocId | null = null): Promise<void> {
  await copyText(address, docId, `Copied ${address}`);
}

/** Any text (a row, a type name) to the clipboard, then `message` in the status line. */
export async function copyText(text: string, docId: DocId | null, message: string): Promise<void> {
  try {
    if (navigator.clipboard?.writeText) await navigator.clipboard.writeText(text);
    else copyWithSelection(text);
  } catch {
    copyWithSelection(text);
  }
  useDocumentsStore().report(message, docId, 'info');
}

function copyWithSelection(text: string): void {
  const area = document.createElement('textarea');
  area.value = text;
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  document.execCommand('copy');
  area.remove();
}

/**
 * Provided by a snapshot's tab to the grids inside it (InfiniteGrid and the dominator tree): rows
 * that are objects (a numeric `node` and a string `address`) open the inspector on double-click
 * or Enter and the object menu on right-click, in every grid at once.
 */
/** What a grid row hands the object menu: the object, and for rows of dominator views their what-if offer (ObjectMenu's fields). */
export interface ObjectMenuTarget {
  node: number;
  address: string;
  rootCategory?: string;
  ignoreType?: true;
  typeIndex?: number;
}

export interface ObjectRowActions {
  inspect(node: number): void;
  menu(o: ObjectMenuTarget, x: number, y: number, rowText?: string): void;
  /** The type menu of a type row (grids that ask for it: Types, Diff). */
  typeMenu(t: { type: string; typeIndex?: number }, x: number, y: number, rowText?: string): void;
}

export const OBJECT_ROW_ACTIONS: InjectionKey<ObjectRowActions> = Symbol('object-row-actions');

/** The object a grid row stands for, or null (type rows, diff rows, "show more" rows). */
export function objectOfRow(data: unknown): { node: number; address: string } | null {
  if (typeof data !== 'object' || data === null) return null;
  const d = data as { node?: unknown; address?: unknown };
  return typeof d.node === 'number' && typeof d.address === 'string' ? { node: d.node, address: d.address } : null;
}

export function objectRowActions(docId: DocId): ObjectRowActions {
  const inspector = useInspectorStore();
  return {
    inspect: (node) => inspector.inspect(docId, node),
    menu: (o, x, y, rowText) => inspector.openMenu({ docId, ...o, x, y, ...(rowText !== undefined ? { rowText } : {}) }),
    typeMenu: (t, x, y, rowText) => inspector.openTypeMenu({ docId, ...t, x, y, ...(rowText !== undefined ? { rowText } : {}) }),
  };
}

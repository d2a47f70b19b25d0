import type { SelectedObject, SelectedType, TabViewState, ViewKind } from './tabs';

/**
 * Back/Forward within one tab, like a browser's: every change of view or selection is a step.
 *
 * An entry is the part of a tab's view state that says where the user is (view, selected type and
 * object, what Paths to roots explains), not grid sorts or filters: going back should not undo a
 * sort. The live state is the current position; `back` holds the positions before it (newest
 * last), `forward` the ones undone by Back (newest last). A new step clears `forward`.
 * Memory: at most HISTORY_LIMIT small entries per direction per tab.
 */
export interface NavEntry {
  view: ViewKind;
  selectedType: SelectedType | null;
  selectedObject: SelectedObject | null;
  pathsFor: 'object' | 'type';
}

export interface NavHistory {
  back: NavEntry[];
  forward: NavEntry[];
}

export const HISTORY_LIMIT = 100;

export function emptyHistory(): NavHistory {
  return { back: [], forward: [] };
}

export function entryOf(v: TabViewState): NavEntry {
  return {
    view: v.view,
    selectedType: v.selectedType ? { ...v.selectedType } : null,
    selectedObject: v.selectedObject ? { ...v.selectedObject } : null,
    pathsFor: v.pathsFor,
  };
}

export function sameEntry(a: NavEntry, b: NavEntry): boolean {
  return (
    a.view === b.view &&
    a.pathsFor === b.pathsFor &&
    (a.selectedType?.typeIndex ?? null) === (b.selectedType?.typeIndex ?? null) &&
    (a.selectedObject?.node ?? null) === (b.selectedObject?.node ?? null)
  );
}

/** Put `e` (a copy) into the live view state. */
export function applyEntry(v: TabViewState, e: NavEntry): void {
  v.view = e.view;
  v.selectedType = e.selectedType ? { ...e.selectedType } : null;
  v.selectedObject = e.selectedObject ? { ...e.selectedObject } : null;
  v.pathsFor = e.pathsFor;
}

/** Run `change` on the live state; if the position moved, the old one becomes a Back step. */
export function recordStep(h: NavHistory, v: TabViewState, change: () => void): void {
  const before = entryOf(v);
  change();
  if (sameEntry(before, entryOf(v))) return;
  h.back.push(before);
  if (h.back.length > HISTORY_LIMIT) h.back.splice(0, h.back.length - HISTORY_LIMIT);
  h.forward.length = 0;
}

/** One step back (dir -1) or forward (+1); false when there is none. */
export function travel(h: NavHistory, v: TabViewState, dir: -1 | 1): boolean {
  const from = dir === -1 ? h.back : h.forward;
  const to = dir === -1 ? h.forward : h.back;
  const e = from.pop();
  if (!e) return false;
  to.push(entryOf(v));
  applyEntry(v, e);
  return true;
}

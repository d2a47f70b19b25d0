import { acceptHMRUpdate, defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { DiffSortKey, FileEntry, ObjectSortKey, SortSpec, TypeSortKey } from '../../shared/ipc/contract';
import { useDocumentsStore, type DocId, type LiveProcess } from './documents';
import { useMonitorsStore } from './monitors';
import { emptyHistory, recordStep, travel, type NavHistory } from './tab-history';

/**
 * The tab strip and each tab's view state: which view is showing, each grid's sort and filter,
 * the selected type/object and the diff baseline. One tab per document; the tab id IS the
 * document id. `activeId === null` shows the Welcome page.
 *
 * View state lives here (not in components) so switching tabs and back restores the grid as it
 * was, and so keyboard shortcuts and menu commands can act on the active tab.
 */
export type ViewKind = 'summary' | 'types' | 'instances' | 'dominators' | 'paths' | 'generations' | 'diff' | 'timeline' | 'retained-by' | 'trend' | 'insights' | 'sunburst' | 'strings' | 'threads';

export interface GridState<K extends string> {
  sort: SortSpec<K>;
  filter: string;
}

export interface SelectedType {
  typeIndex: number;
  type: string;
}

export interface SelectedObject {
  node: number;
  type: string;
  address: string;
}

/** Instances of System.String narrowed to one distinct value (a Strings row); session-local, so never saved. */
export interface StringValueFilter {
  valueId: number;
  /** The value as the Strings row shows it (its first chars), for the Instances title. */
  text: string;
}

export interface TabViewState {
  view: ViewKind;
  types: GridState<TypeSortKey>;
  objects: GridState<ObjectSortKey> & { value?: StringValueFilter | null };
  diff: GridState<DiffSortKey>;
  selectedType: SelectedType | null;
  selectedObject: SelectedObject | null;
  /** What "Paths to roots" explains: the selected object, or every object of the selected type. */
  pathsFor: 'object' | 'type';
  diffBaseline: DocId | null;
  /** Tabs the Trend view compares (this one included when checked); null = every open snapshot with objects. */
  trendWith: DocId[] | null;
}

export function defaultViewState(): TabViewState {
  return {
    view: 'types',
    types: { sort: { key: 'retainedSize', dir: 'desc' }, filter: '' },
    objects: { sort: { key: 'size', dir: 'desc' }, filter: '' },
    diff: { sort: { key: 'retainedDelta', dir: 'desc' }, filter: '' },
    selectedType: null,
    selectedObject: null,
    pathsFor: 'type',
    diffBaseline: null,
    trendWith: null,
  };
}

export const useTabsStore = defineStore('tabs', () => {
  const order = ref<DocId[]>([]);
  const activeId = ref<DocId | null>(null);
  const views = ref<Record<DocId, TabViewState>>({});
  /** Back/Forward per tab (tab-history.ts); not part of the view state, so never persisted. */
  const histories = ref<Record<DocId, NavHistory>>({});
  /** Tabs brought back from a saved session: their view is what the user left, never changed for them. */
  const restored = ref<Record<DocId, true>>({});

  const active = computed(() => (activeId.value ? (views.value[activeId.value] ?? null) : null));

  function addTab(id: DocId, opts: { after?: DocId; activate?: boolean } = {}): DocId {
    const at = opts.after ? order.value.indexOf(opts.after) : -1;
    if (at >= 0) order.value.splice(at + 1, 0, id);
    else order.value.push(id);
    views.value[id] = defaultViewState();
    if (opts.activate !== false) activeId.value = id;
    return id;
  }

  /**
   * Open `file` in a new tab and show it; the load runs in the background. A Compact Framework
   * heap log with several AppDomain sections opens as one tab per section: the file's first
   * section loads here, and once it has parsed (the reader counts the sections while it walks
   * the log) the other sections open in tabs beside it, each with `select` = its index.
   */
  function openFile(file: FileEntry, select?: string): DocId {
    const documents = useDocumentsStore();
    const id = addTab(documents.open(file, select));
    if (select === undefined) void documents.whenSettled(id).then(() => openOtherSections(id));
    return id;
  }

  function openOtherSections(id: DocId): void {
    const documents = useDocumentsStore();
    const d = documents.docs[id];
    const extra = d?.summary?.metadata.extra;
    if (!d?.file || !extra || !order.value.includes(id)) return;
    const count = Number(extra.sectionCount ?? 1);
    const mine = Number(extra.sectionIndex ?? 0);
    let after = id;
    for (let i = 0; i < count; i++) {
      if (i === mine) continue;
      after = addTab(documents.open(d.file, String(i)), { after, activate: false });
    }
  }

  /**
   * A tab of a saved session (saved-session.ts), added at the end with its saved view state and
   * without activating it (the restorer activates the saved active tab once all are back).
   */
  function restoreTab(id: DocId, state: TabViewState): DocId {
    addTab(id, { activate: false });
    views.value[id] = state;
    restored.value[id] = true;
    return id;
  }

  /** Capture a heap snapshot of a running process into a new tab. */
  function openCapture(process: LiveProcess): DocId {
    return addTab(useDocumentsStore().capture(process));
  }

  /** Start a live GC monitor of a process in a new tab. */
  function openMonitor(process: LiveProcess): DocId {
    const id = addTab(useDocumentsStore().addMonitor(process));
    views.value[id].view = 'timeline';
    void useMonitorsStore().start(id, process);
    return id;
  }

  function activate(id: DocId | null): void {
    if (id === null || order.value.includes(id)) activeId.value = id;
  }

  /** Close a tab and free its session; the neighbour to the right (else left) becomes active. */
  async function close(id: DocId): Promise<void> {
    const i = order.value.indexOf(id);
    if (i < 0) return;
    order.value.splice(i, 1);
    delete views.value[id];
    delete histories.value[id];
    delete restored.value[id];
    // a diff that used this tab as its baseline has nothing to compare with any more
    for (const v of Object.values(views.value)) if (v.diffBaseline === id) v.diffBaseline = null;
    if (activeId.value === id) activeId.value = order.value[Math.min(i, order.value.length - 1)] ?? null;
    // a monitor tab's session in main ends with its tab
    if (useDocumentsStore().docs[id]?.kind === 'monitor') await useMonitorsStore().close(id);
    await useDocumentsStore().close(id);
  }

  async function closeActive(): Promise<void> {
    if (activeId.value) await close(activeId.value);
  }

  /** Ctrl+Tab / Ctrl+Shift+Tab, wrapping around; from the Welcome page go to the first/last tab. */
  function cycle(step: 1 | -1): void {
    const n = order.value.length;
    if (n === 0) return;
    const i = activeId.value ? order.value.indexOf(activeId.value) : step === 1 ? -1 : n;
    activeId.value = order.value[(((i + step) % n) + n) % n];
  }

  function view(id: DocId): TabViewState | undefined {
    return views.value[id];
  }

  /** Change a tab's position (view, selection) as one Back/Forward step. */
  function step(id: DocId, change: (v: TabViewState) => void): void {
    const v = views.value[id];
    if (!v) return;
    recordStep((histories.value[id] ??= emptyHistory()), v, () => change(v));
  }

  function showView(id: DocId, kind: ViewKind): void {
    step(id, (v) => (v.view = kind));
  }

  /** Double-click on a type: remember it and switch to its instances (the object grid starts unfiltered). */
  function openInstances(id: DocId, type: SelectedType): void {
    step(id, (v) => {
      v.objects.value = null;
      if (v.selectedType?.typeIndex !== type.typeIndex) v.objects.filter = '';
      if (v.selectedType?.typeIndex !== type.typeIndex) v.pathsFor = 'type';
      v.selectedType = type;
      v.view = 'instances';
    });
  }

  // What was selected last is what Paths to roots explains: a type (Types) or an object
  // (Instances, dominator tree). Clearing a selection leaves the mode as it was.
  function selectType(id: DocId, type: SelectedType | null): void {
    step(id, (v) => {
      if (v.selectedType?.typeIndex !== type?.typeIndex) v.objects.value = null;
      if (type) v.pathsFor = 'type';
      v.selectedType = type;
    });
  }

  function selectObject(id: DocId, obj: SelectedObject | null): void {
    step(id, (v) => {
      if (obj) v.pathsFor = 'object';
      v.selectedObject = obj;
    });
  }

  /**
   * A Strings row's value (double-click, or its menu): the shared Instances view of System.String
   * (`type`) showing only the strings that hold that value, unfiltered otherwise; select one there
   * for Paths to roots.
   */
  function openStringValue(id: DocId, type: SelectedType, value: StringValueFilter): void {
    step(id, (v) => {
      v.objects.filter = '';
      v.objects.value = { ...value };
      if (v.selectedType?.typeIndex !== type.typeIndex) v.pathsFor = 'type';
      v.selectedType = type;
      v.view = 'instances';
    });
  }

  /** "Paths to roots" for an object or for a whole type. */
  function showPaths(id: DocId, pathsFor: 'object' | 'type'): void {
    step(id, (v) => {
      v.pathsFor = pathsFor;
      v.view = 'paths';
    });
  }

  /** The user has not moved in this tab yet (no Back/Forward step) and it was not restored: the app may pick its view. */
  function untouched(id: DocId): boolean {
    const h = histories.value[id];
    return !!views.value[id] && !restored.value[id] && (h?.back.length ?? 0) === 0 && (h?.forward.length ?? 0) === 0;
  }

  function canGoBack(id: DocId): boolean {
    return (histories.value[id]?.back.length ?? 0) > 0;
  }

  function canGoForward(id: DocId): boolean {
    return (histories.value[id]?.forward.length ?? 0) > 0;
  }

  /** Back/Forward in tab `id`; no-op at either end. */
  function back(id: DocId): void {
    const v = views.value[id];
    const h = histories.value[id];
    if (v && h) travel(h, v, -1);
  }

  function forward(id: DocId): void {
    const v = views.value[id];
    const h = histories.value[id];
    if (v && h) travel(h, v, 1);
  }

  /** Alt+←/→, mouse buttons 4/5, toolbar arrows: act on the active tab. */
  function goBack(): void {
    if (activeId.value) back(activeId.value);
  }

  function goForward(): void {
    if (activeId.value) forward(activeId.value);
  }

  /**
   * Drill-down from a diff or a trend row: show `type` in tab `id` (this snapshot, or the
   * baseline's tab): switch to that tab, then its Instances of the type, or its Paths to roots for
   * every instance of the type.
   */
  function openTypeIn(id: DocId, type: SelectedType, view: 'instances' | 'paths'): void {
    if (!views.value[id]) return;
    activate(id);
    if (view === 'instances') openInstances(id, type);
    else {
      selectType(id, type);
      showPaths(id, 'type');
    }
  }

  function setDiffBaseline(id: DocId, baseline: DocId | null): void {
    const v = views.value[id];
    if (v && baseline !== id) v.diffBaseline = baseline;
  }

  return { order, activeId, views, active, openFile, restoreTab, openCapture, openMonitor, activate, close, closeActive, cycle, view, showView, openInstances, openStringValue, selectType, selectObject, showPaths, openTypeIn, setDiffBaseline, untouched, canGoBack, canGoForward, back, forward, goBack, goForward };
});

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(useTabsStore, import.meta.hot));

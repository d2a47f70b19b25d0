import { watch, type WatchStopHandle } from 'vue';
import type { FileEntry, FileToken, IgnoreRuleDto } from '../../shared/ipc/contract';
import { MAX_IGNORE_RULES } from '../../shared/ipc/dtos-what-if';
import { DIFF_SORT_KEYS, OBJECT_SORT_KEYS, TYPE_SORT_KEYS } from '../../shared/ipc/sort-keys';
import { useDocumentsStore, type DocId } from './documents';
import { defaultViewState, useTabsStore, type GridState, type TabViewState, type ViewKind } from './tabs';

/**
 * The open tabs survive a reload (F5, reopening the browser tab) and, in Electron, a restart: the
 * tab order, the active tab and each tab's view state are saved in localStorage on every change
 * and restored when the app starts, each tab re-analysed from its file.
 *
 * What is saved per tab is the file's path as the back end showed it (never its token: tokens
 * are per back-end process, and a capability) and the AppDomain section. Restoring asks the back
 * end for each path again (documents.reopen); a file that is gone comes back as a tab with the
 * coded error and a Close button, never silently dropped. Uploads reopen too while the server that
 * holds them runs (it keeps them for its lifetime). Live GC monitors and captures still running
 * are not saved: there is nothing to reopen. A finished capture is a file and is saved as one.
 *
 * In browser mode localStorage belongs to the server's origin (127.0.0.1:PORT), so a new server
 * on another port starts empty. A stored value that does not parse is ignored (start empty): the
 * saved session is a convenience, never a reason not to start. Cost: one small JSON string
 * written per change of tabs or view state (a few hundred bytes per tab).
 */
export const SESSION_KEY = 'heapscope.session';
/** Every view a tab can show; a Record so a new ViewKind fails to compile until it is listed here (and so saved). */
const VIEW_KIND_SET: Record<ViewKind, true> = {
  summary: true,
  types: true,
  instances: true,
  dominators: true,
  sunburst: true,
  'retained-by': true,
  paths: true,
  generations: true,
  diff: true,
  trend: true,
  timeline: true,
  insights: true,
  strings: true,
  threads: true,
};
const VIEW_KINDS = Object.keys(VIEW_KIND_SET) as readonly ViewKind[];
/** Views that show the selected type's objects: without a selected type they have nothing to show, so the tab shows Types. */
const NEEDS_TYPE: readonly ViewKind[] = ['instances', 'retained-by'];

export type SessionStorage = Pick<Storage, 'getItem' | 'setItem'>;

export interface SavedFile {
  name: string;
  displayPath: string;
  size: number;
  modifiedMs: number;
  source: FileEntry['source'];
  formatHint: FileEntry['formatHint'];
}

/**
 * A tab's view state; `diffBaseline` is the index of the baseline tab in `tabs`. The Trend view's
 * chosen tabs (`trendWith`, ids of this page's documents) are not saved: a restored Trend compares
 * every open snapshot with objects (its default) until tabs are picked again. The Sunburst's
 * chart kind and zoom live in the view, so it comes back as a sunburst of the whole tree.
 */
export type SavedView = Omit<TabViewState, 'diffBaseline' | 'trendWith'> & { diffBaseline: number | null };

export interface SavedTab {
  file: SavedFile;
  select: string | null;
  view: SavedView;
  /** "What if" (issue 16): the tab's ignore list, node ordinals and type indices of the file as it was; absent when none. */
  ignored?: IgnoreRuleDto[];
}

export interface SavedSession {
  version: 1;
  tabs: SavedTab[];
  /** Index of the active tab in `tabs`; null = the Welcome page. */
  active: number | null;
}

/** The session as it is now, in tab order (tabs without a file to reopen are left out). */
export function currentSession(): SavedSession {
  const tabs = useTabsStore();
  const docs = useDocumentsStore().docs;
  // a capture is a file to reopen once its snapshot is saved and read (it has a summary)
  const kept = tabs.order.filter((id) => docs[id]?.file && tabs.views[id] && (docs[id].kind === 'file' || (docs[id].kind === 'capture' && docs[id].summary !== null)));
  const saved = kept.map((id): SavedTab => {
    const d = docs[id];
    const f = d.file!;
    const { trendWith: _notSaved, ...v } = tabs.views[id];
    const baseline = v.diffBaseline === null ? -1 : kept.indexOf(v.diffBaseline);
    const ignored = d.summary?.ignored?.items.map((x) => x.rule) ?? [];
    return {
      file: { name: f.name, displayPath: f.displayPath, size: f.size, modifiedMs: f.modifiedMs, source: f.source, formatHint: f.formatHint },
      select: d.select,
      view: { ...v, diffBaseline: baseline < 0 ? null : baseline },
      ...(ignored.length ? { ignored } : {}),
    };
  });
  const active = tabs.activeId === null ? -1 : kept.indexOf(tabs.activeId);
  return { version: 1, tabs: saved, active: active < 0 ? null : active };
}

/** Parse a stored session; null when absent or not one (then nothing is restored). */
export function parseSavedSession(text: string | null): SavedSession | null {
  if (!text) return null;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  const o = data as { version?: unknown; tabs?: unknown; active?: unknown };
  if (!o || o.version !== 1 || !Array.isArray(o.tabs)) return null;
  const tabs: SavedTab[] = [];
  // saved index → index after malformed tabs were dropped (-1: dropped)
  const moved = (o.tabs as unknown[]).map((t) => {
    const tab = parseTab(t);
    return tab ? tabs.push(tab) - 1 : -1;
  });
  const at = (i: unknown): number | null => (Number.isInteger(i) && (i as number) >= 0 && (i as number) < moved.length && moved[i as number] >= 0 ? moved[i as number] : null);
  for (const t of tabs) t.view.diffBaseline = at(t.view.diffBaseline);
  return { version: 1, tabs, active: at(o.active) };
}

/**
 * Reopen the saved tabs, in order, with their view state; the saved active tab (or Welcome)
 * shows. Returns the new tab ids in saved order. Call once at start-up, before `keepSessionSaved`.
 */
export function restoreSession(storage: SessionStorage | null): DocId[] {
  const saved = parseSavedSession(read(storage));
  if (!saved) return [];
  const tabs = useTabsStore();
  const documents = useDocumentsStore();
  const ids = saved.tabs.map((t) => {
    const file: FileEntry = { ...t.file, token: '' as FileToken, exists: true };
    const id = tabs.restoreTab(documents.reopen(file, t.select), { ...t.view, diffBaseline: null, trendWith: null });
    void documents.whenSettled(id).then(() => {
      // the ignore list, like the selections, names ordinals of the file as it was: only for the same file
      if (!forgetSelectionIfChanged(id, t.file) && t.ignored?.length && documents.docs[id]?.summary) void documents.setIgnored(id, t.ignored);
    });
    return id;
  });
  saved.tabs.forEach((t, i) => {
    if (t.view.diffBaseline !== null) tabs.setDiffBaseline(ids[i], ids[t.view.diffBaseline]);
  });
  tabs.activate(saved.active === null ? null : ids[saved.active]);
  return ids;
}

/**
 * The selected type and object are ordinals into the file as it was parsed before; a file that
 * has changed since (another size or modification time) has other ordinals, so they are dropped
 * and a tab that showed a type's instances (or what retains them) shows the types.
 */
function forgetSelectionIfChanged(id: DocId, before: SavedFile): boolean {
  const file = useDocumentsStore().docs[id]?.file;
  const v = useTabsStore().views[id];
  if (!file || !v || (file.size === before.size && file.modifiedMs === before.modifiedMs)) return false;
  v.selectedType = null;
  v.selectedObject = null;
  if (NEEDS_TYPE.includes(v.view)) v.view = 'types';
  return true;
}

/**
 * Files the back end asked to open at start-up (`serve FILE…`, npm start's sample, Electron's
 * argv): each opens as a tab, except one already back from the saved session (same path, whole
 * file), which is shown instead of being opened twice.
 */
export function openNamedFiles(files: readonly FileEntry[], restored: readonly DocId[]): void {
  const tabs = useTabsStore();
  const docs = useDocumentsStore().docs;
  for (const f of files) {
    const same = restored.find((id) => tabs.order.includes(id) && docs[id]?.select === null && docs[id]?.file?.displayPath === f.displayPath);
    if (same) tabs.activate(same);
    else tabs.openFile(f);
  }
}

/** Save the session on every change from now on; returns the stop handle. */
export function keepSessionSaved(storage: SessionStorage | null): WatchStopHandle {
  return watch(
    () => JSON.stringify(currentSession()),
    (text) => {
      try {
        storage?.setItem(SESSION_KEY, text);
      } catch {
        // storage full or disabled: the session is not saved, the app works on
      }
    },
    { immediate: true },
  );
}

/** window.localStorage, or null where it is unavailable (storage disabled, sandboxed page). */
export function browserStorage(): SessionStorage | null {
  try {
    return window.localStorage ?? null;
  } catch {
    return null;
  }
}

function read(storage: SessionStorage | null): string | null {
  try {
    return storage?.getItem(SESSION_KEY) ?? null;
  } catch {
    return null;
  }
}

function parseTab(t: unknown): SavedTab | null {
  const x = t as { file?: Partial<SavedFile>; select?: unknown; view?: unknown } | null;
  const f = x?.file;
  if (!f || typeof f.displayPath !== 'string' || !f.displayPath || typeof f.name !== 'string') return null;
  if (x.select !== null && typeof x.select !== 'string') return null;
  const file: SavedFile = {
    name: f.name,
    displayPath: f.displayPath,
    size: typeof f.size === 'number' ? f.size : 0,
    modifiedMs: typeof f.modifiedMs === 'number' ? f.modifiedMs : 0,
    source: typeof f.source === 'string' ? f.source : 'path',
    formatHint: typeof f.formatHint === 'string' ? f.formatHint : null,
  };
  const ignored = parseIgnored((x as { ignored?: unknown }).ignored);
  return { file, select: x.select, view: parseView(x.view), ...(ignored.length ? { ignored } : {}) };
}

/** The saved ignore list; a malformed rule is dropped (the back end checks the rest against the file). */
function parseIgnored(v: unknown): IgnoreRuleDto[] {
  if (!Array.isArray(v)) return [];
  const nat = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0;
  const out: IgnoreRuleDto[] = [];
  for (const r of v.slice(0, MAX_IGNORE_RULES) as { kind?: unknown; from?: unknown; to?: unknown; typeIndex?: unknown; node?: unknown }[]) {
    if (r?.kind === 'reference' && nat(r.from) && nat(r.to)) out.push({ kind: 'reference', from: r.from, to: r.to });
    else if (r?.kind === 'type' && nat(r.typeIndex)) out.push({ kind: 'type', typeIndex: r.typeIndex });
    else if (r?.kind === 'root' && nat(r.node)) out.push({ kind: 'root', node: r.node });
  }
  return out;
}

/** Each field checked on its own: a bad one falls back to its default, the rest is kept. */
function parseView(v: unknown): SavedView {
  const d = defaultViewState();
  const x = (v ?? {}) as Record<string, unknown>;
  const typeOk = (s: unknown): s is { typeIndex: number; type: string } => !!s && Number.isInteger((s as { typeIndex: unknown }).typeIndex) && typeof (s as { type: unknown }).type === 'string';
  const objOk = (s: unknown): s is { node: number; type: string; address: string } =>
    !!s && Number.isInteger((s as { node: unknown }).node) && typeof (s as { type: unknown }).type === 'string' && typeof (s as { address: unknown }).address === 'string';
  const selectedType = typeOk(x.selectedType) ? { typeIndex: x.selectedType.typeIndex, type: x.selectedType.type } : null;
  const view = VIEW_KINDS.includes(x.view as ViewKind) ? (x.view as ViewKind) : d.view;
  return {
    view: NEEDS_TYPE.includes(view) && !selectedType ? d.view : view,
    types: grid(x.types, TYPE_SORT_KEYS, d.types),
    objects: grid(x.objects, OBJECT_SORT_KEYS, d.objects),
    diff: grid(x.diff, DIFF_SORT_KEYS, d.diff),
    selectedType,
    selectedObject: objOk(x.selectedObject) ? { node: x.selectedObject.node, type: x.selectedObject.type, address: x.selectedObject.address } : null,
    pathsFor: x.pathsFor === 'object' || x.pathsFor === 'type' ? x.pathsFor : d.pathsFor,
    diffBaseline: Number.isInteger(x.diffBaseline) && (x.diffBaseline as number) >= 0 ? (x.diffBaseline as number) : null,
  };
}

function grid<K extends string>(g: unknown, keys: readonly K[], fallback: GridState<K>): GridState<K> {
  const x = g as { sort?: { key?: unknown; dir?: unknown }; filter?: unknown } | null;
  const key = x?.sort?.key;
  const dir = x?.sort?.dir;
  if (!keys.includes(key as K) || (dir !== 'asc' && dir !== 'desc')) return { sort: { ...fallback.sort }, filter: typeof x?.filter === 'string' ? x.filter : fallback.filter };
  return { sort: { key: key as K, dir }, filter: typeof x?.filter === 'string' ? x.filter : fallback.filter };
}

import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestingPinia } from '@pinia/testing';
import { AppError } from '../../../../shared/errors';
import type { FileEntry, FileToken, SessionId } from '../../../../shared/ipc/contract';
import { setClient } from '../../../../renderer/api/heapscope-client';
import { useDocumentsStore } from '../../../../renderer/stores/documents';
import { currentSession, keepSessionSaved, openNamedFiles, parseSavedSession, restoreSession, SESSION_KEY, type SessionStorage } from '../../../../renderer/stores/saved-session';
import { defaultViewState, useTabsStore } from '../../../../renderer/stores/tabs';
import { deferred, fakeClient, fileEntry, summaryOf, type FakeClient } from '../fake-client';

// Real tabs + documents stores over a fake back end. A "reload" is a fresh pinia and a fresh
// fake client (new tokens, like a new page or a restarted back end) reading the same storage.
let client: FakeClient;
let store: Map<string, string>;
const storage: SessionStorage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => void store.set(k, v) };
/** Files the fake back end can no longer find (registerPath fails with io/not-found). */
let gone: Set<string>;
/** Files whose size changed on disk since they were saved. */
let grown: Set<string>;

function freshApp(generation: number): void {
  createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  // the back end's file entries by token and by session, as the real one answers open/summary
  const byToken = new Map<string, FileEntry>();
  const bySession = new Map<string, FileEntry>();
  vi.mocked(client.registerPath).mockImplementation(async ({ path }) => {
    const name = path.split('/').pop()!;
    if (gone.has(name)) throw new AppError('io/not-found', `no such file: ${path}`);
    const e: FileEntry = { ...fileEntry(name, grown.has(name) ? 2000 : 1000), token: `g${generation}-${name}` as FileToken, source: 'path' };
    byToken.set(e.token, e);
    return e;
  });
  vi.mocked(client.open).mockImplementation(async ({ fileToken, select }) => {
    const sessionId = `s-${fileToken}${select ? `-${select}` : ''}` as SessionId;
    const file = byToken.get(fileToken) ?? { ...fileEntry(String(fileToken).replace(/^tok-/, '')), token: fileToken };
    bySession.set(sessionId, file);
    return { sessionId, file, state: 'loading' };
  });
  vi.mocked(client.summary).mockImplementation(async ({ sessionId }) => summaryOf(sessionId, bySession.get(sessionId)!));
  vi.mocked(client.close).mockResolvedValue(undefined);
  vi.mocked(client.startGcMonitor).mockResolvedValue({ monitorId: 'm-1' } as never);
  setClient(client);
}

beforeEach(() => {
  store = new Map();
  gone = new Set();
  grown = new Set();
  freshApp(1);
});

async function settled(ids: string[]): Promise<void> {
  const docs = useDocumentsStore();
  await Promise.all(ids.map((id) => docs.whenSettled(id)));
}

/** Three tabs with different views; the middle one active. */
async function threeTabs(): Promise<string[]> {
  const tabs = useTabsStore();
  const a = tabs.openFile(fileEntry('a.gcdump'));
  const b = tabs.openFile(fileEntry('b.gcdump'));
  const c = tabs.openFile(fileEntry('c.gcdump'));
  await settled([a, b, c]);
  tabs.showView(a, 'dominators');
  tabs.selectObject(b, { node: 17, type: 'System.String', address: '0x1000' });
  tabs.showPaths(b, 'object');
  tabs.openInstances(c, { typeIndex: 4, type: 'Foo.Bar' });
  tabs.views[c].objects.filter = 'abc';
  tabs.setDiffBaseline(c, a);
  tabs.activate(b);
  return [a, b, c];
}

describe('saved session', () => {
  it('a reload brings back every tab in order with the same active tab and views, reopened by path', async () => {
    const stop = keepSessionSaved(storage);
    await threeTabs();
    await vi.waitFor(() => expect(parseSavedSession(store.get(SESSION_KEY) ?? null)?.active).toBe(1));
    stop();

    freshApp(2);
    const ids = restoreSession(storage);
    await settled(ids);
    const tabs = useTabsStore();
    const docs = useDocumentsStore().docs;
    expect(tabs.order).toEqual(ids);
    expect(ids.map((id) => docs[id].title)).toEqual(['a.gcdump', 'b.gcdump', 'c.gcdump']);
    expect(tabs.activeId).toBe(ids[1]);
    expect(ids.map((id) => tabs.views[id].view)).toEqual(['dominators', 'paths', 'instances']);
    expect(tabs.views[ids[1]]).toMatchObject({ pathsFor: 'object', selectedObject: { node: 17, type: 'System.String', address: '0x1000' } });
    expect(tabs.views[ids[2]]).toMatchObject({ selectedType: { typeIndex: 4, type: 'Foo.Bar' }, objects: { filter: 'abc' }, diffBaseline: ids[0] });
    // asked again by path (old tokens mean nothing to a new back end), then opened with the new tokens
    expect(vi.mocked(client.registerPath).mock.calls.map((c) => c[0])).toEqual(['a', 'b', 'c'].map((n) => ({ path: `/data/${n}.gcdump`, via: 'restore' })));
    expect(vi.mocked(client.open).mock.calls.map((c) => c[0])).toEqual(['a', 'b', 'c'].map((n) => ({ fileToken: `g2-${n}.gcdump` })));
    expect(ids.map((id) => docs[id].phase)).toEqual(['analysing', 'analysing', 'analysing']);
  });

  it('a tab showing Insights comes back on Insights', async () => {
    const stop = keepSessionSaved(storage);
    const tabs = useTabsStore();
    const a = tabs.openFile(fileEntry('a.gcdump'));
    await settled([a]);
    tabs.showView(a, 'insights');
    await vi.waitFor(() => expect(parseSavedSession(store.get(SESSION_KEY) ?? null)?.tabs[0]?.view.view).toBe('insights'));
    stop();

    freshApp(2);
    const ids = restoreSession(storage);
    await settled(ids);
    expect(ids.map((id) => useTabsStore().views[id].view)).toEqual(['insights']);
  });

  it('tabs left on the dump views Strings and Threads come back on them', async () => {
    const stop = keepSessionSaved(storage);
    const tabs = useTabsStore();
    const [a, b] = ['a.dmp', 'b.dmp'].map((n) => tabs.openFile(fileEntry(n)));
    await settled([a, b]);
    tabs.showView(a, 'strings');
    tabs.showView(b, 'threads');
    await vi.waitFor(() => expect(parseSavedSession(store.get(SESSION_KEY) ?? null)?.tabs.map((t) => t.view.view)).toEqual(['strings', 'threads']));
    stop();

    freshApp(2);
    const ids = restoreSession(storage);
    await settled(ids);
    expect(ids.map((id) => useTabsStore().views[id].view)).toEqual(['strings', 'threads']);
  });

  it('tabs left on Retained by, Trend and Sunburst come back on them (Trend picks its tabs again: every open snapshot)', async () => {
    const stop = keepSessionSaved(storage);
    const tabs = useTabsStore();
    const [a, b, c] = ['a.gcdump', 'b.gcdump', 'c.gcdump'].map((n) => tabs.openFile(fileEntry(n)));
    await settled([a, b, c]);
    tabs.selectType(a, { typeIndex: 4, type: 'Foo.Bar' });
    tabs.showView(a, 'retained-by');
    tabs.showView(b, 'trend');
    tabs.views[b].trendWith = [a, b];
    tabs.showView(c, 'sunburst');
    await vi.waitFor(() => expect(parseSavedSession(store.get(SESSION_KEY) ?? null)?.tabs.map((t) => t.view.view)).toEqual(['retained-by', 'trend', 'sunburst']));
    stop();

    freshApp(2);
    const ids = restoreSession(storage);
    await settled(ids);
    const views = useTabsStore().views;
    expect(ids.map((id) => views[id].view)).toEqual(['retained-by', 'trend', 'sunburst']);
    expect(views[ids[0]].selectedType).toEqual({ typeIndex: 4, type: 'Foo.Bar' });
    expect(views[ids[1]].trendWith).toBeNull();
  });

  it('Retained by and Instances without a type to show (none saved, or the file changed) come back on Types', async () => {
    const tab = (name: string, view: unknown) => ({ file: { name, displayPath: `/data/${name}` }, select: null, view });
    const s = parseSavedSession(JSON.stringify({ version: 1, active: 0, tabs: [tab('x', { view: 'retained-by' }), tab('y', { view: 'instances', selectedType: { typeIndex: 'no' } }), tab('z', { view: 'retained-by', selectedType: { typeIndex: 2, type: 'T' } })] }))!;
    expect(s.tabs.map((t) => t.view.view)).toEqual(['types', 'types', 'retained-by']);

    const tabs = useTabsStore();
    const a = tabs.openFile(fileEntry('a.gcdump'));
    await settled([a]);
    tabs.selectType(a, { typeIndex: 4, type: 'Foo.Bar' });
    tabs.showView(a, 'retained-by');
    store.set(SESSION_KEY, JSON.stringify(currentSession()));
    freshApp(2);
    grown.add('a.gcdump');
    const ids = restoreSession(storage);
    await settled(ids);
    await Promise.resolve();
    expect(useTabsStore().views[ids[0]]).toMatchObject({ view: 'types', selectedType: null });
  });

  it('a tab whose file is gone comes back failed with the coded error, in its place', async () => {
    await threeTabs();
    store.set(SESSION_KEY, JSON.stringify(currentSession()));
    freshApp(2);
    gone.add('b.gcdump');
    const ids = restoreSession(storage);
    await settled(ids);
    const docs = useDocumentsStore().docs;
    expect(useTabsStore().order).toEqual(ids);
    expect(ids.map((id) => docs[id].phase)).toEqual(['analysing', 'failed', 'analysing']);
    expect(docs[ids[1]].error).toEqual({ code: 'io/not-found', message: 'no such file: /data/b.gcdump' });
    expect(useTabsStore().activeId).toBe(ids[1]);
    expect(client.open).toHaveBeenCalledTimes(2);
    // the file is back: Retry asks for it by path again
    gone.clear();
    useDocumentsStore().retry(ids[1]);
    await settled([ids[1]]);
    expect(docs[ids[1]].phase).toBe('analysing');
    expect(client.open).toHaveBeenLastCalledWith({ fileToken: 'g2-b.gcdump' });
  });

  it('saves sections and finished captures, leaves out monitors and running captures, and the Welcome page when a monitor was active', async () => {
    const tabs = useTabsStore();
    const docs = useDocumentsStore();
    tabs.restoreTab(docs.open(fileEntry('cf.log'), '1'), defaultViewState());
    // two captures: the back end names their files at once; the first one's snapshot is read, the second still captures
    const captured = new Map([['s-cap-1', fileEntry('cap-1.gcdump')], ['s-cap-2', fileEntry('cap-2.gcdump')]]);
    let n = 0;
    vi.mocked(client.captureProcess).mockImplementation(async () => ({ sessionId: `s-cap-${++n}` as SessionId, file: captured.get(`s-cap-${n}`)!, state: 'loading' }));
    const running = deferred<never>();
    vi.mocked(client.summary).mockImplementation(async ({ sessionId }) => (sessionId === 's-cap-2' ? running.promise : summaryOf(sessionId, captured.get(sessionId) ?? fileEntry('cf.log'))));
    const done = tabs.openCapture({ pid: 7, name: 'a' });
    const busy = tabs.openCapture({ pid: 8, name: 'b' });
    await settled([done]);
    await vi.waitFor(() => expect(docs.docs[busy].file?.name).toBe('cap-2.gcdump'));
    tabs.openMonitor({ pid: 42, name: 'app' });
    const saved = currentSession();
    expect(saved.tabs.map((t) => [t.file.displayPath, t.select])).toEqual([
      ['/data/cf.log', '1'],
      ['/data/cap-1.gcdump', null],
    ]);
    expect(saved.active).toBeNull();
    expect(JSON.stringify(saved)).not.toContain('tok-');

    store.set(SESSION_KEY, JSON.stringify(saved));
    freshApp(2);
    const ids = restoreSession(storage);
    await settled(ids);
    expect(useDocumentsStore().docs[ids[0]]).toMatchObject({ title: 'cf.log — section 1', select: '1' });
    expect(client.open).toHaveBeenCalledWith({ fileToken: 'g2-cf.log', select: '1' });
    expect(useTabsStore().activeId).toBeNull();
  });

  it('a file changed on disk since keeps its view but not its selections (ordinals of the old file)', async () => {
    await threeTabs();
    store.set(SESSION_KEY, JSON.stringify(currentSession()));
    freshApp(2);
    grown.add('c.gcdump');
    const ids = restoreSession(storage);
    await settled(ids);
    await Promise.resolve();
    const tabs = useTabsStore();
    expect(tabs.views[ids[2]]).toMatchObject({ view: 'types', selectedType: null, selectedObject: null });
    expect(tabs.views[ids[1]]).toMatchObject({ view: 'paths', selectedObject: { node: 17 } });
  });

  it('ignores storage that is not a session, and drops only the malformed tabs of one', () => {
    for (const bad of ['{', 'null', '{"version":2,"tabs":[]}', '{"version":1}']) {
      store.set(SESSION_KEY, bad);
      expect(restoreSession(storage)).toEqual([]);
    }
    const tab = (name: string, view: unknown) => ({ file: { name, displayPath: `/data/${name}` }, select: null, view });
    const s = parseSavedSession(
      JSON.stringify({ version: 1, active: 2, tabs: [tab('x', { view: 'diff', diffBaseline: 2 }), { file: { name: 'y' } }, tab('z', { view: 'bogus', types: { sort: { key: 'nope', dir: 'up' }, filter: 'q' } })] }),
    )!;
    expect(s.tabs.map((t) => t.file.name)).toEqual(['x', 'z']);
    expect(s.active).toBe(1);
    expect(s.tabs[0].view).toMatchObject({ view: 'diff', diffBaseline: 1 });
    expect(s.tabs[1].view).toMatchObject({ view: 'types', types: { sort: { key: 'retainedSize', dir: 'desc' }, filter: 'q' }, diffBaseline: null });
  });

  it('files named at start-up open as tabs after the restored ones; one already restored is shown, not opened twice', async () => {
    useTabsStore().openFile(fileEntry('a.gcdump'));
    store.set(SESSION_KEY, JSON.stringify(currentSession()));
    freshApp(2);
    const restored = restoreSession(storage);
    const named: FileEntry[] = [fileEntry('n.gcdump'), { ...fileEntry('a.gcdump'), token: 'g2-a.gcdump' as FileToken }];
    openNamedFiles(named, restored);
    const tabs = useTabsStore();
    const docs = useDocumentsStore().docs;
    expect(tabs.order.map((id) => docs[id].title)).toEqual(['a.gcdump', 'n.gcdump']);
    expect(tabs.activeId).toBe(restored[0]);
  });
});

describe('saved session: what if (issue 16)', () => {
  const rules = [{ kind: 'reference' as const, from: 5, to: 9 }, { kind: 'type' as const, typeIndex: 3 }];
  const ignored = { items: rules.map((rule) => ({ rule, label: 'x', references: 1 })), references: 2 };

  it('saves a tab\'s ignore list and sends it again after the reload, for the same file only', async () => {
    const [a, , c] = await threeTabs();
    const docs = useDocumentsStore().docs;
    docs[a].summary = summaryOf(docs[a].sessionId!, docs[a].file!, { ignored });
    docs[c].summary = summaryOf(docs[c].sessionId!, docs[c].file!, { ignored });
    const saved = currentSession();
    expect(saved.tabs.map((t) => t.ignored ?? null)).toEqual([rules, null, rules]);
    store.set(SESSION_KEY, JSON.stringify(saved));

    freshApp(2);
    grown.add('c.gcdump'); // c's ordinals are not the saved ones any more
    vi.mocked(client.setIgnored).mockImplementation(async ({ sessionId }) => summaryOf(sessionId, fileEntry('a.gcdump'), { analysis: { state: 'running', error: null, ms: null }, ignored }));
    const ids = restoreSession(storage);
    await settled(ids);
    await vi.waitFor(() => expect(client.setIgnored).toHaveBeenCalledTimes(1));
    expect(client.setIgnored).toHaveBeenCalledWith({ sessionId: useDocumentsStore().docs[ids[0]].sessionId, rules });
    await Promise.resolve();
    expect(client.setIgnored).toHaveBeenCalledTimes(1);
  });

  it('drops malformed rules from storage and keeps the rest', () => {
    const tab = { file: { name: 'a.gcdump', displayPath: '/data/a.gcdump' }, select: null, view: {}, ignored: [{ kind: 'root', node: 4 }, { kind: 'root', node: -1 }, { kind: 'edge' }, 'x', { kind: 'type', typeIndex: 2 }] };
    const s = parseSavedSession(JSON.stringify({ version: 1, tabs: [tab, { ...tab, ignored: 'nope' }], active: 0 }));
    expect(s?.tabs.map((t) => t.ignored ?? null)).toEqual([[{ kind: 'root', node: 4 }, { kind: 'type', typeIndex: 2 }], null]);
  });
});

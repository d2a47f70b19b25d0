import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestingPinia } from '@pinia/testing';
import type { SessionId } from '../../../../shared/ipc/contract';
import { setClient } from '../../../../renderer/api/heapscope-client';
import { useDocumentsStore } from '../../../../renderer/stores/documents';
import { useTabsStore } from '../../../../renderer/stores/tabs';
import { fakeClient, fileEntry, summaryOf, type FakeClient } from '../fake-client';

// Real tabs + documents stores; the back end is a fake that opens every file as session
// "s-<name>" and parses it at once, because tab bookkeeping is what is under test here.
let client: FakeClient;

beforeEach(() => {
  createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  vi.mocked(client.open).mockImplementation(async ({ fileToken }) => ({ sessionId: `s-${fileToken}` as SessionId, file: fileEntry(String(fileToken)), state: 'loading' }));
  vi.mocked(client.summary).mockImplementation(async ({ sessionId }) => summaryOf(sessionId, fileEntry(sessionId)));
  vi.mocked(client.close).mockResolvedValue(undefined);
  setClient(client);
});

function openThree() {
  const tabs = useTabsStore();
  const a = tabs.openFile(fileEntry('a'));
  const b = tabs.openFile(fileEntry('b'));
  const c = tabs.openFile(fileEntry('c'));
  return { tabs, a, b, c };
}

describe('tabs store', () => {
  it('opening a file adds a tab at the end, activates it and gives it default view state', () => {
    const { tabs, a, b, c } = openThree();
    expect(tabs.order).toEqual([a, b, c]);
    expect(tabs.activeId).toBe(c);
    expect(tabs.view(c)).toMatchObject({ view: 'types', types: { sort: { key: 'retainedSize', dir: 'desc' }, filter: '' }, selectedType: null, diffBaseline: null });
    expect(useDocumentsStore().list.map((d) => d.id)).toEqual([a, b, c]);
  });

  it('closing the active tab activates its right neighbour, else the left one, else Welcome', async () => {
    const { tabs, a, b, c } = openThree();
    tabs.activate(b);
    await tabs.close(b);
    expect(tabs.order).toEqual([a, c]);
    expect(tabs.activeId).toBe(c);
    await tabs.close(c);
    expect(tabs.activeId).toBe(a);
    await tabs.closeActive();
    expect(tabs.activeId).toBeNull();
    expect(tabs.order).toEqual([]);
  });

  it('closing a background tab keeps the active one and frees its session', async () => {
    const { tabs, a, b, c } = openThree();
    const docs = useDocumentsStore();
    await Promise.all([a, b, c].map((id) => docs.whenSettled(id)));
    await tabs.close(a);
    expect(tabs.activeId).toBe(c);
    expect(client.close).toHaveBeenCalledWith({ sessionId: 's-tok-a' });
    expect(docs.docs[a]).toBeUndefined();
    expect(tabs.view(a)).toBeUndefined();
  });

  it('cycle wraps around both ways and starts from the ends on the Welcome page', () => {
    const { tabs, a, b, c } = openThree();
    tabs.cycle(1);
    expect(tabs.activeId).toBe(a);
    tabs.cycle(-1);
    expect(tabs.activeId).toBe(c);
    tabs.cycle(-1);
    expect(tabs.activeId).toBe(b);
    tabs.activate(null);
    tabs.cycle(1);
    expect(tabs.activeId).toBe(a);
    tabs.activate(null);
    tabs.cycle(-1);
    expect(tabs.activeId).toBe(c);
  });

  it('activate ignores unknown ids', () => {
    const { tabs, a } = openThree();
    tabs.activate(a);
    tabs.activate('doc-nope');
    expect(tabs.activeId).toBe(a);
  });

  it('openInstances selects the type, switches view and clears a stale address filter', () => {
    const { tabs, a } = openThree();
    tabs.openInstances(a, { typeIndex: 7, type: 'System.String' });
    const v = tabs.view(a)!;
    expect(v.view).toBe('instances');
    expect(v.selectedType).toEqual({ typeIndex: 7, type: 'System.String' });
    v.objects.filter = '7f3a';
    tabs.openInstances(a, { typeIndex: 7, type: 'System.String' });
    expect(v.objects.filter).toBe('7f3a'); // same type: keep the filter
    tabs.openInstances(a, { typeIndex: 9, type: 'System.Byte[]' });
    expect(v.objects.filter).toBe('');
  });

  it('openStringValue shows System.String\'s instances narrowed to one value; another type, or a type double-clicked, clears it', () => {
    const { tabs, a } = openThree();
    const v = tabs.view(a)!;
    v.objects.filter = '7f3a';
    tabs.openStringValue(a, { typeIndex: 7, type: 'System.String' }, { valueId: 3, text: 'hello' });
    expect([v.view, v.selectedType, v.objects.value, v.objects.filter]).toEqual(['instances', { typeIndex: 7, type: 'System.String' }, { valueId: 3, text: 'hello' }, '']);
    tabs.selectType(a, { typeIndex: 7, type: 'System.String' });
    expect(v.objects.value).toEqual({ valueId: 3, text: 'hello' }); // the same type: kept
    tabs.selectType(a, { typeIndex: 9, type: 'System.Byte[]' });
    expect(v.objects.value).toBeNull();
    tabs.openStringValue(a, { typeIndex: 7, type: 'System.String' }, { valueId: 4, text: 'x' });
    tabs.openInstances(a, { typeIndex: 7, type: 'System.String' });
    expect([v.view, v.objects.value]).toEqual(['instances', null]);
    // Back returns to where the value was opened from
    tabs.showView(a, 'strings');
    tabs.openStringValue(a, { typeIndex: 7, type: 'System.String' }, { valueId: 4, text: 'x' });
    tabs.back(a);
    expect(tabs.view(a)!.view).toBe('strings');
  });

  it('a tab cannot be its own diff baseline, and closing the baseline clears it elsewhere', async () => {
    const { tabs, a, b } = openThree();
    tabs.setDiffBaseline(a, a);
    expect(tabs.view(a)!.diffBaseline).toBeNull();
    tabs.setDiffBaseline(a, b);
    expect(tabs.view(a)!.diffBaseline).toBe(b);
    await tabs.close(b);
    expect(tabs.view(a)!.diffBaseline).toBeNull();
  });

  it('per-tab view state is independent', () => {
    const { tabs, a, b } = openThree();
    tabs.showView(a, 'dominators');
    tabs.view(b)!.types.filter = 'String';
    expect(tabs.view(a)!.view).toBe('dominators');
    expect(tabs.view(b)!.view).toBe('types');
    expect(tabs.view(a)!.types.filter).toBe('');
  });

  it('a CF heap log with several AppDomain sections opens one tab per section, titled "file — AppDomain", beside the first', async () => {
    const cf = { ...fileEntry('bubble.log'), formatHint: 'cf-heaplog' as const };
    const names = ['BubbleGame', 'BubbleGame.Plugins', 'Tools'];
    vi.mocked(client.open).mockImplementation(async ({ fileToken, select }) =>
      fileToken === cf.token ? { sessionId: `s-${select ?? 'first'}` as SessionId, file: cf, state: 'loading' } : { sessionId: `s-${fileToken}` as SessionId, file: fileEntry(fileToken), state: 'loading' },
    );
    vi.mocked(client.summary).mockImplementation(async ({ sessionId }) => {
      if (sessionId.startsWith('s-tok-')) return summaryOf(sessionId, fileEntry(sessionId));
      const i = sessionId === 's-first' ? 0 : Number(sessionId.slice(2));
      return summaryOf(sessionId, cf, { metadata: { ...summaryOf(sessionId, cf).metadata, format: 'cf-heaplog', extra: { sectionCount: 3, sectionIndex: i, appDomain: names[i] } } });
    });
    const tabs = useTabsStore();
    const docs = useDocumentsStore();
    const before = tabs.openFile(fileEntry('other.gcdump'));
    const first = tabs.openFile(cf);
    const after = tabs.openFile(fileEntry('last.gcdump'));
    tabs.activate(first);
    await docs.whenSettled(first);
    expect(tabs.order).toHaveLength(5);
    const [, , s1, s2] = tabs.order;
    expect(tabs.order).toEqual([before, first, s1, s2, after]);
    expect(client.open).toHaveBeenCalledWith({ fileToken: cf.token });
    expect(client.open).toHaveBeenCalledWith({ fileToken: cf.token, select: '1' });
    expect(client.open).toHaveBeenCalledWith({ fileToken: cf.token, select: '2' });
    expect(tabs.activeId).toBe(first); // the others open in the background
    await Promise.all([s1, s2].map((id) => docs.whenSettled(id)));
    expect([first, s1, s2].map((id) => docs.docs[id].title)).toEqual(['bubble.log — BubbleGame', 'bubble.log — BubbleGame.Plugins', 'bubble.log — Tools']);
    expect(docs.docs[s2].select).toBe('2');
    expect(vi.mocked(client.open).mock.calls.filter(([r]) => r.select === '2')).toHaveLength(1);
  });

  it('a single-section log or an ordinary dump opens one tab and keeps its file name as title', async () => {
    const tabs = useTabsStore();
    const id = tabs.openFile(fileEntry('a.gcdump'));
    await useDocumentsStore().whenSettled(id);
    expect(tabs.order).toEqual([id]);
    expect(useDocumentsStore().docs[id].title).toBe('a.gcdump');
  });
});

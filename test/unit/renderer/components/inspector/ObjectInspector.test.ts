// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createTestingPinia } from '@pinia/testing';
import type { ObjectInfo, ReferencesReq, ReferenceRow, SessionId } from '../../../../../shared/ipc/contract';
import { setClient } from '../../../../../renderer/api/heapscope-client';
import { useDocumentsStore } from '../../../../../renderer/stores/documents';
import { useInspectorStore } from '../../../../../renderer/stores/inspector';
import { useTabsStore } from '../../../../../renderer/stores/tabs';
import ObjectInspector from '../../../../../renderer/components/inspector/ObjectInspector.vue';
import GoToAddress from '../../../../../renderer/components/inspector/GoToAddress.vue';
import { fakeClient, fileEntry, summaryOf, type FakeClient } from '../../fake-client';

// The inspector and the Go-to-address dialog mounted for real with real stores; the back end is a
// fake holding a hub object (node 7, 1,000 outgoing references to node 8) and its retainer.
let client: FakeClient;
let pinia: ReturnType<typeof createTestingPinia>;
const SID = 's1' as SessionId;

function info(node: number, over: Partial<ObjectInfo> = {}): ObjectInfo {
  return {
    node, typeIndex: 1, type: node === 7 ? 'System.Object[]' : 'Leaf', module: 'x.dll', address: `0x7f${node}0`, size: 8_024, retainedSize: 16_048, generation: 'gen2',
    pseudo: false, reachable: true, dominator: 1, outgoing: node === 7 ? 1000 : 0, incoming: node === 7 ? 1 : 1000, addressKind: 'address', ...over,
  };
}
function ref(node: number): ReferenceRow {
  return { node, typeIndex: 2, type: node === 8 ? 'Leaf' : 'Holder', address: `0x7f${node}0`, size: 24, retainedSize: 24, generation: 'gen0', pseudo: false, outgoing: 0, incoming: 1000 };
}

beforeEach(() => {
  pinia = createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  vi.mocked(client.objectInfo).mockImplementation(async ({ node }) => info(node));
  vi.mocked(client.references).mockImplementation(async (r: ReferencesReq) => {
    const total = r.direction === 'outgoing' ? (r.node === 7 ? 1000 : 0) : 1;
    const end = Math.min(r.end, total);
    const rows = Array.from({ length: Math.max(0, end - r.start) }, () => ref(r.direction === 'outgoing' ? 8 : 3));
    return { start: r.start, end, total, rows };
  });
  setClient(client);
});

function mountInspector(analysis: 'running' | 'done' = 'done') {
  const docId = 'doc-x';
  const summary = summaryOf('s1', fileEntry('a.gcdump'), { analysis: { state: analysis, error: null, ms: null } });
  useDocumentsStore().docs[docId] = { id: docId, kind: 'file', title: 'a', file: summary.file, select: null, process: null, capture: null, sessionId: SID, phase: 'ready', progress: null, summary, error: null, openedAt: 0 };
  useTabsStore().views[docId] = { view: 'types', types: { sort: { key: 'retainedSize', dir: 'desc' }, filter: '' }, objects: { sort: { key: 'size', dir: 'desc' }, filter: '' }, diff: { sort: { key: 'retainedDelta', dir: 'desc' }, filter: '' }, selectedType: null, selectedObject: null, pathsFor: 'type', diffBaseline: null, trendWith: null };
  const w = mount(ObjectInspector, { props: { docId, summary }, global: { plugins: [pinia] } });
  return { w, docId };
}

describe('ObjectInspector', () => {
  it('shows the object and the first 200 of its 1,000 references, then 200 more on request', async () => {
    const { w, docId } = mountInspector();
    expect(w.find('[data-testid="inspector"]').exists()).toBe(false);
    useInspectorStore().inspect(docId, 7);
    await flushPromises();
    expect(w.get('[data-testid="inspector-type"]').text()).toBe('System.Object[]');
    expect(w.get('[data-testid="inspector-address"]').text()).toBe('0x7f70');
    expect(w.get('[data-testid="inspector-generation"]').text()).toBe('gen2');
    expect(w.get('[data-testid="inspector-reachable"]').text()).toBe('yes');
    expect(w.get('[data-testid="inspector-outgoing-count"]').text()).toBe('1,000');
    const out = w.get('[data-testid="refs-outgoing"]');
    expect(out.findAll('[data-testid="ref-row"]')).toHaveLength(200);
    expect(out.get('[data-testid="ref-show-more"]').text()).toBe('Show 200 more of 800 remaining…');
    // only windows crossed: [0, 200) outgoing and [0, 200) incoming
    expect(vi.mocked(client.references).mock.calls.map(([r]) => [r.direction, r.node, r.start, r.end])).toEqual([
      ['outgoing', 7, 0, 200],
      ['incoming', 7, 0, 200],
    ]);
    await out.get('[data-testid="ref-show-more"]').trigger('click');
    await flushPromises();
    expect(w.get('[data-testid="refs-outgoing"]').findAll('[data-testid="ref-row"]')).toHaveLength(400);
    expect(w.get('[data-testid="refs-incoming"]').findAll('[data-testid="ref-row"]')).toHaveLength(1);
  });

  it('a reference opens in the inspector; Back returns; Esc closes', async () => {
    const { w, docId } = mountInspector();
    const inspector = useInspectorStore();
    inspector.inspect(docId, 7);
    await flushPromises();
    await w.get('[data-testid="refs-outgoing"] [data-testid="ref-inspect"]').trigger('click');
    await flushPromises();
    expect(inspector.open[docId]).toEqual({ node: 8, history: [7] });
    expect(w.get('[data-testid="inspector-type"]').text()).toBe('Leaf');
    await w.get('[data-testid="inspector-back"]').trigger('click');
    await flushPromises();
    expect(inspector.open[docId]).toEqual({ node: 7, history: [] });
    await w.get('[data-testid="inspector"]').trigger('keydown', { key: 'Escape' });
    expect(inspector.open[docId]).toBeUndefined();
  });

  it('Paths to roots and Show in dominator tree select the object and switch the view', async () => {
    const { w, docId } = mountInspector();
    const tabs = useTabsStore();
    useInspectorStore().inspect(docId, 7);
    await flushPromises();
    await w.get('[data-testid="inspector-paths"]').trigger('click');
    await flushPromises();
    expect(tabs.views[docId].selectedObject).toEqual({ node: 7, type: 'System.Object[]', address: '0x7f70' });
    expect([tabs.views[docId].view, tabs.views[docId].pathsFor]).toEqual(['paths', 'object']);
    await w.get('[data-testid="inspector-dominators"]').trigger('click');
    await flushPromises();
    expect(tabs.views[docId].view).toBe('dominators');
  });

  it('Copy address writes the address to the clipboard', async () => {
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const { w, docId } = mountInspector();
    useInspectorStore().inspect(docId, 7);
    await flushPromises();
    await w.get('[data-testid="inspector-copy"]').trigger('click');
    await flushPromises();
    expect(writeText).toHaveBeenCalledWith('0x7f70');
  });

  it('before the analysis: retained "…", incoming references wait (never requested)', async () => {
    vi.mocked(client.objectInfo).mockImplementation(async ({ node }) => info(node, { retainedSize: null, reachable: null, incoming: 0 }));
    const { w, docId } = mountInspector('running');
    useInspectorStore().inspect(docId, 7);
    await flushPromises();
    expect(w.get('[data-testid="inspector-retained"]').text()).toBe('…');
    expect(w.get('[data-testid="inspector-incoming-count"]').text()).toBe('…');
    expect(w.get('[data-testid="inspector-dominators"]').attributes('disabled')).toBeDefined();
    expect(vi.mocked(client.references).mock.calls.map(([r]) => r.direction)).toEqual(['outgoing']);
  });
});

describe('GoToAddress', () => {
  it('opens the object at the address in the inspector, or says there is none', async () => {
    const docId = 'doc-x';
    const summary = summaryOf('s1', fileEntry('a.gcdump'));
    const inspector = useInspectorStore();
    inspector.openGoTo(docId);
    vi.mocked(client.objectAtAddress).mockImplementation(async ({ address }) => (address === '0x7f70' ? { object: info(7), offset: 0 } : null));
    const w = mount(GoToAddress, { props: { docId, summary }, global: { plugins: [pinia] } });
    await w.get('[data-testid="goto-input"]').setValue('0x1234');
    await w.get('[data-testid="goto-dialog"]').trigger('submit');
    await flushPromises();
    expect(w.get('[data-testid="goto-message"]').text()).toBe('No object at or around 0x1234 in this snapshot.');
    expect(inspector.goTo).toBe(docId);
    await w.get('[data-testid="goto-input"]').setValue(' 0x7f70 ');
    await w.get('[data-testid="goto-dialog"]').trigger('submit');
    await flushPromises();
    expect(client.objectAtAddress).toHaveBeenLastCalledWith({ sessionId: 's1', address: '0x7f70' });
    expect(inspector.open[docId]).toEqual({ node: 7, history: [] });
    expect(inspector.goTo).toBeNull();
  });

  it('shows a coded error for text that is not an address', async () => {
    const summary = summaryOf('s1', fileEntry('a.gcdump'));
    vi.mocked(client.objectAtAddress).mockRejectedValue({ code: 'usage/bad-argument', message: 'not an address: "hello" (expected hex such as 0x7f3a10)' });
    const w = mount(GoToAddress, { props: { docId: 'doc-x', summary }, global: { plugins: [pinia] } });
    await w.get('[data-testid="goto-input"]').setValue('hello');
    await w.get('[data-testid="goto-dialog"]').trigger('submit');
    await flushPromises();
    expect(w.get('[data-testid="goto-message"]').text()).toBe('not an address: "hello" (expected hex such as 0x7f3a10)');
  });
});

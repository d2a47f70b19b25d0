// @vitest-environment happy-dom
import { createTestingPinia } from '@pinia/testing';
import { flushPromises, mount } from '@vue/test-utils';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { DominatorSunburstReq, FileEntry, FileToken, SessionId } from '../../../../../shared/ipc/contract';
import { SnapshotSession } from '../../../../../shared/session/snapshot-session';
import { setClient } from '../../../../../renderer/api/heapscope-client';
import SunburstView from '../../../../../renderer/components/sunburst/SunburstView.vue';
import { OBJECT_ROW_ACTIONS } from '../../../../../renderer/components/inspector/object-actions';
import { HeapGraphBuilder } from '../../../../../shared/graph/heap-graph-builder';
import { NODE_PSEUDO } from '../../../../../shared/graph/heap-graph';
import { emptyMetadata } from '../../../../../shared/graph/metadata';
import { fakeClient, fileEntry, summaryOf, type FakeClient } from '../../fake-client';
import { CancelledError } from '../../../../../shared/errors';
import { useDocumentsStore } from '../../../../../renderer/stores/documents';

// Issue 16: the Sunburst view against the real session query (the chart itself is stubbed: it
// is ECharts' drawing, covered by the browser e2e test).

let client: FakeClient;
beforeEach(() => {
  client = fakeClient();
  setClient(client);
});

// [static vars] → Cache → E1, E2, E3 (Entry) → B (Buf);  [local vars] → T
const NAMES = ['[root]', '[static vars]', '[local vars]', 'Cache', 'E1', 'E2', 'E3', 'B', 'T'];
const TYPES = ['[root]', '[static vars]', '[local vars]', 'Cache', 'Entry', 'Entry', 'Entry', 'Buf', 'Task'];
const SIZES = [0, 0, 0, 10, 8, 8, 8, 100, 30];
const REFS = [[1, 2], [3], [8], [4, 5, 6], [], [], [7], [], []];
const t = (() => {
  const b = new HeapGraphBuilder({ expectedNodes: NAMES.length });
  const typeIds = new Map<string, number>();
  for (const n of TYPES) if (!typeIds.has(n)) typeIds.set(n, b.addType(n));
  b.createNodes(NAMES.length);
  b.setRoot(0);
  for (let n = 0; n < NAMES.length; n++) b.setNode(n, typeIds.get(TYPES[n])!, SIZES[n], REFS[n]);
  for (const n of [0, 1, 2]) b.addFlags(n, NODE_PSEUDO);
  return { graph: b.finish(emptyMetadata('synthetic')), id: (name: string) => NAMES.indexOf(name) };
})();
const FILE: FileEntry = { token: 'tok' as FileToken, name: 'g.gcdump', displayPath: '/x/g.gcdump', size: 1, modifiedMs: 0, source: 'path', formatHint: 'gcdump', exists: true };
const session = new SnapshotSession(t.graph, { sessionId: 's1' as SessionId, file: FILE, parseMs: 1 });
session.runAnalysis();

function mountView() {
  vi.mocked(client.dominatorSunburst).mockImplementation(async (req: DominatorSunburstReq) => session.dominatorSunburst(req));
  const actions = { inspect: vi.fn(), menu: vi.fn(), typeMenu: vi.fn() };
  const w = mount(SunburstView, {
    props: { docId: 'd1', summary: summaryOf('s1', fileEntry('g.gcdump')) },
    global: { plugins: [createTestingPinia({ createSpy: vi.fn })], provide: { [OBJECT_ROW_ACTIONS as symbol]: actions }, stubs: { SunburstChart: true } },
  });
  return { w, actions };
}
const rows = (w: ReturnType<typeof mountView>['w']) => w.findAll('[data-testid="sunburst-row"]').map((r) => [r.find('.name').text(), Number(r.attributes('data-retained'))]);
const crumbs = (w: ReturnType<typeof mountView>['w']) => w.findAll('[data-testid="sunburst-crumb"]').map((c) => c.text());
const lastReq = () => vi.mocked(client.dominatorSunburst).mock.calls.at(-1)![0];

describe('SunburstView', () => {
  it('starts at the whole heap, Enter centers a row, a breadcrumb goes back', async () => {
    const { w } = mountView();
    await flushPromises();
    expect(lastReq()).toEqual({ sessionId: 's1', node: null, mode: 'object', supersedeKey: 'sunburst:d1' });
    expect(w.get('[data-testid="sunburst-center"]').attributes('data-retained')).toBe('164');
    expect(rows(w)).toEqual([['[static vars]', 134], ['[local vars]', 30]]);
    await w.findAll('[data-testid="sunburst-row"]')[0].trigger('keydown', { key: 'Enter' });
    await flushPromises();
    expect(lastReq()).toEqual({ sessionId: 's1', node: t.id('[static vars]'), mode: 'object', supersedeKey: 'sunburst:d1' });
    expect(crumbs(w)).toEqual(['Whole heap', '[static vars]']);
    expect(rows(w)).toEqual([['Cache', 134]]);
    await w.findAll('[data-testid="sunburst-crumb"]')[0].trigger('click');
    await flushPromises();
    expect(crumbs(w)).toEqual(['Whole heap']);
    expect(lastReq()).toEqual({ sessionId: 's1', node: null, mode: 'object', supersedeKey: 'sunburst:d1' });
  });

  it('by type: groups with counts, a group as the center by its type path; back to by object drops type centers', async () => {
    const { w } = mountView();
    await flushPromises();
    await w.get('[data-testid="sunburst-mode-type"]').trigger('click');
    await flushPromises();
    expect(lastReq()).toEqual({ sessionId: 's1', node: null, mode: 'type', typePath: [], supersedeKey: 'sunburst:d1' });
    const ti = (n: string) => t.graph.types.names.indexOf(n);
    await w.findAll('[data-testid="sunburst-row"]')[0].trigger('keydown', { key: 'Enter' }); // [static vars]
    await flushPromises();
    await w.findAll('[data-testid="sunburst-row"]')[0].trigger('keydown', { key: 'Enter' }); // Cache
    await flushPromises();
    expect(lastReq()).toEqual({ sessionId: 's1', node: null, mode: 'type', typePath: [ti('[static vars]'), ti('Cache')], supersedeKey: 'sunburst:d1' });
    expect(rows(w)).toEqual([['Entry ×3', 124]]);
    expect(crumbs(w)).toEqual(['Whole heap', '[static vars]', 'Cache']);
    await w.get('[data-testid="sunburst-mode-object"]').trigger('click');
    await flushPromises();
    expect(crumbs(w)).toEqual(['Whole heap']);
    expect(lastReq()).toEqual({ sessionId: 's1', node: null, mode: 'object', supersedeKey: 'sunburst:d1' });
  });

  // At 10M objects a by-type center takes the worker seconds (sunburst-ui.bench: 4–5 s for the
  // whole heap): the view says it is computing instead of showing the previous chart as if final.
  it('a query still running after 300 ms shows "computing…" until its answer; a quick one never does', async () => {
    vi.useFakeTimers();
    try {
      const { w } = mountView();
      await flushPromises();
      vi.advanceTimersByTime(1000);
      await flushPromises();
      expect(w.find('[data-testid="sunburst-busy"]').exists()).toBe(false);
      let answer: () => void = () => {};
      vi.mocked(client.dominatorSunburst).mockImplementationOnce((req: DominatorSunburstReq) => new Promise((res) => (answer = () => res(session.dominatorSunburst(req)))));
      await w.get('[data-testid="sunburst-mode-type"]').trigger('click');
      await flushPromises();
      vi.advanceTimersByTime(299);
      await flushPromises();
      expect(w.find('[data-testid="sunburst-busy"]').exists()).toBe(false);
      vi.advanceTimersByTime(1);
      await flushPromises();
      expect(w.get('[data-testid="sunburst-busy"]').text()).toBe('computing…');
      expect(w.get('[data-testid="sunburst-view"]').attributes('data-loading')).toBe('true');
      answer();
      await flushPromises();
      expect(w.find('[data-testid="sunburst-busy"]').exists()).toBe(false);
      expect(w.get('[data-testid="sunburst-view"]').attributes('data-loading')).toBe('false');
      expect(rows(w)).toEqual([['[static vars]', 134], ['[local vars]', 30]]);
    } finally {
      vi.useRealTimers();
    }
  });

  // The worker cancels a request superseded by a newer one of the same view (same supersedeKey):
  // its `cancelled` answer is dropped, not shown as an error, and the newer answer is drawn.
  it('a superseded request that fails with `cancelled` is ignored; the newer answer shows', async () => {
    const { w } = mountView();
    await flushPromises();
    const documents = useDocumentsStore();
    let cancelFirst: () => void = () => {};
    vi.mocked(client.dominatorSunburst).mockImplementationOnce(() => new Promise((_res, rej) => (cancelFirst = () => rej(new CancelledError('superseded by a newer request of the same view')))));
    await w.get('[data-testid="sunburst-mode-type"]').trigger('click'); // by type: still computing
    await flushPromises();
    await w.get('[data-testid="sunburst-mode-object"]').trigger('click'); // the user goes back at once
    await flushPromises();
    const keys = vi.mocked(client.dominatorSunburst).mock.calls.slice(-2).map((c) => [c[0].mode, c[0].supersedeKey]);
    expect(keys).toEqual([['type', 'sunburst:d1'], ['object', 'sunburst:d1']]);
    cancelFirst();
    await flushPromises();
    expect(documents.report).not.toHaveBeenCalled();
    expect(w.get('[data-testid="sunburst-view"]').attributes('data-mode')).toBe('object');
    expect(w.get('[data-testid="sunburst-view"]').attributes('data-loading')).toBe('false');
    expect(rows(w)).toEqual([['[static vars]', 134], ['[local vars]', 30]]);
  });

  it('Space inspects an object row; "others" rows neither zoom nor inspect', async () => {
    const { w, actions } = mountView();
    vi.mocked(client.dominatorSunburst).mockImplementation(async (req: DominatorSunburstReq) => session.dominatorSunburst({ ...req, top: 1 }));
    await w.get('[data-testid="sunburst-mode-type"]').trigger('click');
    await w.get('[data-testid="sunburst-mode-object"]').trigger('click'); // asks again, now with top 1
    await flushPromises();
    expect(rows(w)).toEqual([['[static vars]', 134], ['1 other', 30]]);
    const [first, others] = w.findAll('[data-testid="sunburst-row"]');
    await first.trigger('keydown', { key: ' ' });
    expect(actions.inspect).toHaveBeenCalledWith(t.id('[static vars]'));
    await others.trigger('keydown', { key: 'Enter' });
    await others.trigger('keydown', { key: ' ' });
    await flushPromises();
    expect(crumbs(w)).toEqual(['Whole heap']);
    expect(actions.inspect).toHaveBeenCalledTimes(1);
  });
});

// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createTestingPinia } from '@pinia/testing';
import type { DiffRow, RowWindow, TypeRow } from '../../../../../shared/ipc/contract';
import { setClient } from '../../../../../renderer/api/heapscope-client';
import DiffView from '../../../../../renderer/components/diff/DiffView.vue';
import { useDocumentsStore } from '../../../../../renderer/stores/documents';
import { useTabsStore } from '../../../../../renderer/stores/tabs';
import { fakeClient, type FakeClient } from '../../fake-client';
import { gcOnly, openSnapshots } from './open-snapshots';

// DiffView mounted for real with its grid stubbed (AG Grid is covered by e2e): the baseline list,
// and the drill-down from a row into the new snapshot's or the baseline's tab.
let client: FakeClient;
let pinia: ReturnType<typeof createTestingPinia>;
beforeEach(() => {
  pinia = createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  setClient(client);
});

async function mountDiff(names: string[]) {
  const ids = await openSnapshots(client, names, (n) => (n.endsWith('.nettrace') || n.startsWith('empty') ? gcOnly() : {}));
  const documents = useDocumentsStore();
  const me = ids[ids.length - 1];
  const w = mount(DiffView, { props: { docId: me, summary: documents.docs[me].summary! }, global: { plugins: [pinia], stubs: { InfiniteGrid: true } } });
  return { w, ids, me };
}

const row = (type: string, status: DiffRow['status']) => ({ type, status }) as DiffRow;
const typeWindow = (rows: Partial<TypeRow>[]): RowWindow<TypeRow> => ({ start: 0, end: rows.length, total: rows.length, rows: rows as TypeRow[] });

describe('DiffView', () => {
  it('offers as baseline only other tabs with objects: no GC-only trace, no empty snapshot', async () => {
    const { w } = await mountDiff(['old.gcdump', 'gc-only.nettrace', 'empty.gcdump', 'new.gcdump']);
    const options = w.findAll('[data-testid="diff-baseline"] option').map((o) => o.text());
    expect(options).toEqual(['choose an open snapshot…', 'old.gcdump — section 0']);
  });

  it('says a GC-only trace cannot be a baseline when it is the only other tab', async () => {
    const { w } = await mountDiff(['gc-only.nettrace', 'new.gcdump']);
    expect(w.findAll('[data-testid="diff-baseline"] option')).toHaveLength(1);
    expect(w.get('[data-testid="diff-empty"]').text()).toContain('GC-only traces have no types to compare');
  });

  it('double-click opens the type in this tab; the bar opens Instances and Paths in the baseline tab', async () => {
    const { w, ids, me } = await mountDiff(['old.gcdump', 'new.gcdump']);
    const tabs = useTabsStore();
    const [old] = ids;
    tabs.setDiffBaseline(me, old);
    await flushPromises();
    vi.mocked(client.typeRows).mockImplementation(async (q) =>
      typeWindow(q.sessionId === 's-new.gcdump' ? [{ typeIndex: 5, type: 'Leak[]' }, { typeIndex: 4, type: 'Leak' }] : [{ typeIndex: 9, type: 'Leak' }]),
    );
    const grid = w.findComponent({ name: 'InfiniteGrid' });
    grid.vm.$emit('row-activated', row('Leak', 'both'));
    await flushPromises();
    expect([tabs.activeId, tabs.view(me)!.view, tabs.view(me)!.selectedType]).toEqual([me, 'instances', { typeIndex: 4, type: 'Leak' }]);

    tabs.showView(me, 'diff');
    grid.vm.$emit('row-selected', row('Leak', 'both'));
    await flushPromises();
    await w.get('[data-testid="diff-paths-baseline"]').trigger('click');
    await flushPromises();
    expect([tabs.activeId, tabs.view(old)!.view, tabs.view(old)!.pathsFor, tabs.view(old)!.selectedType]).toEqual([old, 'paths', 'type', { typeIndex: 9, type: 'Leak' }]);
    await w.get('[data-testid="diff-instances-baseline"]').trigger('click');
    await flushPromises();
    expect([tabs.activeId, tabs.view(old)!.view]).toEqual([old, 'instances']);

    // a removed type exists only in the baseline: double-click goes there, "this snapshot" is off
    tabs.activate(me);
    tabs.showView(old, 'diff');
    grid.vm.$emit('row-selected', row('Gone', 'removed'));
    await flushPromises();
    expect(w.get('[data-testid="diff-instances-new"]').attributes('disabled')).toBeDefined();
    vi.mocked(client.typeRows).mockResolvedValue(typeWindow([{ typeIndex: 2, type: 'Gone' }]));
    grid.vm.$emit('row-activated', row('Gone', 'removed'));
    await flushPromises();
    expect([tabs.activeId, tabs.view(old)!.view, tabs.view(old)!.selectedType]).toEqual([old, 'instances', { typeIndex: 2, type: 'Gone' }]);
    expect(vi.mocked(client.typeRows).mock.lastCall![0].sessionId).toBe('s-old.gcdump');
  });

  it('a type missing from the snapshot is an info line, not a navigation', async () => {
    const { w, ids, me } = await mountDiff(['old.gcdump', 'new.gcdump']);
    const tabs = useTabsStore();
    tabs.setDiffBaseline(me, ids[0]);
    await flushPromises();
    vi.mocked(client.typeRows).mockResolvedValue(typeWindow([]));
    w.findComponent({ name: 'InfiniteGrid' }).vm.$emit('row-activated', row('Ghost', 'both'));
    await flushPromises();
    expect(tabs.view(me)!.view).toBe('types');
    expect(useDocumentsStore().messages.map((m) => [m.kind, m.title])).toEqual([['info', 'Ghost has no instances in new.gcdump — section 0']]);
  });
});

// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createTestingPinia } from '@pinia/testing';
import type { RowWindow, SessionId, TrendResult, TrendRowDto, TypeRow } from '../../../../../shared/ipc/contract';
import { AppError } from '../../../../../shared/errors';
import { setClient } from '../../../../../renderer/api/heapscope-client';
import TrendView from '../../../../../renderer/components/trend/TrendView.vue';
import { useDocumentsStore } from '../../../../../renderer/stores/documents';
import { useTabsStore } from '../../../../../renderer/stores/tabs';
import { fakeClient, fileEntry, summaryOf, type FakeClient } from '../../fake-client';
import { capturedAt, gcOnly, openSnapshots } from '../diff/open-snapshots';

// The Trend view mounted for real; the back end's `trend` is a fake that echoes the sessions it
// was given, so the order, the choice of tabs and the rendering are what is checked.
let client: FakeClient;
let pinia: ReturnType<typeof createTestingPinia>;
beforeEach(() => {
  pinia = createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  setClient(client);
});

const leak: TrendRowDto = { type: 'Leak', module: 'app.dll', countGrows: true, retainedGrows: true, counts: [1, 2, 3], shallow: [8, 16, 24], retained: [8, 16, 24], countGrowth: 2, retainedGrowth: 16 };
const cache: TrendRowDto = { type: 'Cache', module: null, countGrows: false, retainedGrows: true, counts: [1, 1, 1], shallow: [16, 16, 16], retained: [24, 32, 40], countGrowth: 0, retainedGrowth: 16 };

function echoTrend(rows: TrendRowDto[]) {
  vi.mocked(client.trend).mockImplementation(async ({ sessionIds }): Promise<TrendResult> => ({
    snapshots: sessionIds.map((sessionId) => ({ sessionId, label: sessionId, timeCollected: null, totalCount: 1, totalRetained: 1 })),
    typesSeen: 5,
    rows,
  }));
}

async function mountTrend(names: string[], over: (n: string) => object = () => ({})) {
  const ids = await openSnapshots(client, names, over);
  const me = ids[ids.length - 1];
  const w = mount(TrendView, { props: { docId: me, summary: useDocumentsStore().docs[me].summary! }, global: { plugins: [pinia] } });
  await flushPromises();
  return { w, ids, me };
}

describe('TrendView', () => {
  it('warns when the checked snapshots come from different processes', async () => {
    echoTrend([]);
    const { w } = await mountTrend(['a.gcdump', 'b.gcdump'], (n) => {
      const m = summaryOf('x' as SessionId, fileEntry('x')).metadata;
      return { metadata: { ...m, processName: n === 'a.gcdump' ? 'app' : 'other', processId: n === 'a.gcdump' ? 42 : 7 } };
    });
    expect(w.get('[data-testid="trend-processes"]').text()).toBe('These snapshots come from 2 processes (app (pid 42), other (pid 7)): a trend means something for one process over time.');
    expect(w.get('[data-testid="trend-summary"]').text()).toContain('0 of 5 types grow at every step');
  });

  it('compares every snapshot tab with objects (not the GC-only trace) in tab order when capture times are unknown', async () => {
    echoTrend([leak, cache]);
    const { w } = await mountTrend(['a.gcdump', 'gc.nettrace', 'b.gcdump', 'c.gcdump'], (n) => (n === 'gc.nettrace' ? gcOnly() : {}));
    expect(client.trend).toHaveBeenCalledTimes(1);
    expect(vi.mocked(client.trend).mock.calls[0][0]).toEqual({ sessionIds: ['s-a.gcdump', 's-b.gcdump', 's-c.gcdump'] });
    expect(w.findAll('[data-testid="trend-snapshot"]').map((x) => x.text())).toEqual(['a.gcdump — section 0', 'b.gcdump — section 0', 'c.gcdump — section 0']);
    expect(w.get('[data-testid="trend-order"]').text()).toContain('In tab order, left to right (3 of 3 snapshots have no capture time)');
    expect(w.get('[data-testid="trend-summary"]').text()).toContain('2 of 5 types grow at every step');
    const rows = w.findAll('[data-testid="trend-row"]');
    expect(rows.map((r) => [r.attributes('data-type'), r.get('[data-testid="trend-counts"]').text(), r.get('[data-testid="trend-retained"]').attributes('title')])).toEqual([
      ['Leak', '1 → 2 → 3', '8 bytes → 16 bytes → 24 bytes'],
      ['Cache', '1 → 1 → 1', '24 bytes → 32 bytes → 40 bytes'],
    ]);
    // two sparklines per row: count (Leak: a rising line) and retained
    const lines = rows[0].findAll('svg polyline').map((p) => p.attributes('points'));
    expect(lines).toEqual(['1,17 32,9 63,1', '1,17 32,9 63,1']);
    expect(rows[1].findAll('svg polyline')[0].attributes('points')).toBe('1,9 32,9 63,9');
  });

  it('orders oldest first by capture time when every tab has one, and re-asks when a tab is unchecked', async () => {
    echoTrend([leak]);
    const times: Record<string, string> = { 'x.gcdump': '2023-11-08T15:06:44', 'y.gcdump': '2023-11-08T15:05:15', 'z.gcdump': '2023-11-08T15:07:00' };
    const { w, ids, me } = await mountTrend(['x.gcdump', 'y.gcdump', 'z.gcdump'], (n) => capturedAt(times[n]));
    expect(vi.mocked(client.trend).mock.calls[0][0].sessionIds).toEqual(['s-y.gcdump', 's-x.gcdump', 's-z.gcdump']);
    expect(w.get('[data-testid="trend-order"]').text()).toContain('Oldest first by capture time: y.gcdump — section 0 → x.gcdump — section 0 → z.gcdump — section 0.');
    expect(w.find('[data-testid="trend-processes"]').exists()).toBe(false); // all "app (pid 42)"
    await w.findAll('[data-testid="trend-snapshot"] input')[0].setValue(false); // uncheck x
    await flushPromises();
    expect(vi.mocked(client.trend).mock.lastCall![0].sessionIds).toEqual(['s-y.gcdump', 's-z.gcdump']);
    expect(useTabsStore().view(me)!.trendWith).toEqual([ids[1], ids[2]]);
    await w.findAll('[data-testid="trend-snapshot"] input')[2].setValue(false); // one left: nothing to compare
    await flushPromises();
    expect(client.trend).toHaveBeenCalledTimes(2);
    expect(w.get('[data-testid="trend-order"]').text()).toContain('Check at least two snapshots');
    expect(w.find('[data-testid="trend-table"]').exists()).toBe(false);
  });

  it('double-click on a row opens the type in the newest snapshot; errors are shown in place', async () => {
    echoTrend([leak]);
    const { w, ids } = await mountTrend(['a.gcdump', 'b.gcdump']);
    vi.mocked(client.typeRows).mockResolvedValue({ start: 0, end: 1, total: 1, rows: [{ typeIndex: 3, type: 'Leak' } as TypeRow] } satisfies RowWindow<TypeRow>);
    await w.get('[data-testid="trend-row"]').trigger('dblclick');
    await flushPromises();
    const tabs = useTabsStore();
    expect(vi.mocked(client.typeRows).mock.lastCall![0].sessionId).toBe('s-b.gcdump' as SessionId);
    expect([tabs.activeId, tabs.view(ids[1])!.view, tabs.view(ids[1])!.selectedType]).toEqual([ids[1], 'instances', { typeIndex: 3, type: 'Leak' }]);

    vi.mocked(client.trend).mockRejectedValue(new AppError('usage/bad-argument', 'b.gcdump has no heap objects'));
    await w.findAll('[data-testid="trend-snapshot"] input')[0].setValue(false);
    await w.findAll('[data-testid="trend-snapshot"] input')[0].setValue(true);
    await flushPromises();
    expect(w.get('[data-testid="trend-error"]').text()).toContain('b.gcdump has no heap objects');
  });
});

// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { mount } from '@vue/test-utils';
import { createTestingPinia } from '@pinia/testing';
import type { SessionId, SessionInfo } from '../../../../../shared/ipc/contract';
import { setClient } from '../../../../../renderer/api/heapscope-client';
import { useDocumentsStore } from '../../../../../renderer/stores/documents';
import { useTabsStore } from '../../../../../renderer/stores/tabs';
import StatusBar from '../../../../../renderer/components/shell/StatusBar.vue';
import { deferred, fakeClient, fileEntry, summaryOf, type FakeClient } from '../../fake-client';

// The status bar mounted for real with real stores; only the back end is a fake, because what is
// checked is what the user sees for each load state (progress, cancel, totals, problems badge).
let client: FakeClient;
let pinia: ReturnType<typeof createTestingPinia>;

beforeEach(() => {
  pinia = createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  setClient(client);
});

describe('StatusBar', () => {
  it('shows progress and a Cancel button while parsing, then totals and the problems badge', async () => {
    const summary = deferred<ReturnType<typeof summaryOf>>();
    vi.mocked(client.open).mockResolvedValue({ sessionId: 's1' as SessionId, file: fileEntry('a.gcdump'), state: 'loading' } satisfies SessionInfo);
    vi.mocked(client.summary).mockReturnValue(summary.promise);
    vi.mocked(client.cancel).mockResolvedValue(undefined);
    const docs = useDocumentsStore();
    docs.attach();
    const id = useTabsStore().openFile(fileEntry('a.gcdump'));
    const w = mount(StatusBar, { global: { plugins: [pinia] } });
    await vi.waitFor(() => expect(docs.docs[id].phase).toBe('parsing'));

    client.emit('load-progress', { sessionId: 's1' as SessionId, stage: 'parse', phase: 'parse', done: 300, total: 1200 });
    await w.vm.$nextTick();
    expect(w.get('[data-testid="status-phase"]').text()).toBe('Reading 25 %');
    await w.get('[data-testid="status-cancel"]').trigger('click');
    expect(client.cancel).toHaveBeenCalledWith({ sessionId: 's1' });

    summary.resolve(
      summaryOf('s1', fileEntry('a.gcdump'), {
        objects: { count: 140_391, size: 4_147_128 },
        typeCount: 3333,
        analysis: { state: 'done', error: null, ms: 9 },
        problems: { total: 18, counts: { 'undefined-node': 18 }, entries: [] },
      }),
    );
    await docs.whenSettled(id);
    await w.vm.$nextTick();
    expect(w.get('[data-testid="status-phase"]').text()).toBe('Ready');
    expect(w.find('[data-testid="status-cancel"]').exists()).toBe(false);
    expect(w.text()).toContain('140,391 objects');
    expect(w.text()).toContain('3.96 MB');
    expect(w.text()).toContain('3,333 types');
    const badge = w.get('[data-testid="problems-badge"]');
    expect(badge.text()).toBe('⚠ 18 problems');
    await badge.trigger('click');
    expect(useTabsStore().view(id)!.view).toBe('summary');
  });

  it('words one object, one type and one problem in the singular (issue 14 item 8)', async () => {
    vi.mocked(client.open).mockResolvedValue({ sessionId: 's1' as SessionId, file: fileEntry('a.gcdump'), state: 'loading' } satisfies SessionInfo);
    vi.mocked(client.summary).mockResolvedValue(
      summaryOf('s1', fileEntry('a.gcdump'), {
        objects: { count: 1, size: 24 },
        typeCount: 1,
        analysis: { state: 'done', error: null, ms: 1 },
        problems: { total: 1, counts: { 'undefined-node': 1 }, entries: [] },
      }),
    );
    const docs = useDocumentsStore();
    docs.attach();
    const id = useTabsStore().openFile(fileEntry('a.gcdump'));
    const w = mount(StatusBar, { global: { plugins: [pinia] } });
    await docs.whenSettled(id);
    await w.vm.$nextTick();
    const spans = w.findAll('span').map((x) => x.text());
    expect(spans).toContain('1 object');
    expect(spans).toContain('1 type');
    expect(w.get('[data-testid="problems-badge"]').text()).toBe('⚠ 1 problem');
  });

  it('says so when no tab is active, and cycles the theme', async () => {
    const w = mount(StatusBar, { global: { plugins: [pinia] } });
    expect(w.text()).toContain('No snapshot selected');
    const toggle = w.get('[data-testid="theme-toggle"]');
    expect(toggle.text()).toContain('system');
    await toggle.trigger('click');
    expect(w.get('[data-testid="theme-toggle"]').text()).toContain('light');
    await w.get('[data-testid="size-format"]').trigger('click');
    expect(w.get('[data-testid="size-format"]').text()).toBe('bytes');
  });
});

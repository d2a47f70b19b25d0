// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { mount } from '@vue/test-utils';
import { createTestingPinia } from '@pinia/testing';
import type { SessionId } from '../../../../../shared/ipc/contract';
import { setClient } from '../../../../../renderer/api/heapscope-client';
import { useDocumentsStore } from '../../../../../renderer/stores/documents';
import { useTabsStore } from '../../../../../renderer/stores/tabs';
import TabStrip from '../../../../../renderer/components/shell/TabStrip.vue';
import { fakeClient, fileEntry, summaryOf, type FakeClient } from '../../fake-client';

// The tab strip mounted with real stores (fake back end): what the user reads on two tabs of one
// CF heap log, the tab list menu, and the wheel scrolling the strip (happy-dom has no layout, so
// the strip's widths are set by hand).
let client: FakeClient;
let pinia: ReturnType<typeof createTestingPinia>;

beforeEach(() => {
  pinia = createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  setClient(client);
});

async function openCfLog() {
  const cf = { ...fileEntry('device_heaplog_20240517_101500.log'), formatHint: 'cf-heaplog' as const };
  const names = ['Contoso.Scanner.exe', 'Contoso.Scanner.Plugin'];
  vi.mocked(client.open).mockImplementation(async ({ select }) => ({ sessionId: `s-${select ?? '0'}` as SessionId, file: cf, state: 'loading' }));
  vi.mocked(client.summary).mockImplementation(async ({ sessionId }) => {
    const i = Number(sessionId.slice(2));
    return summaryOf(sessionId, cf, { metadata: { ...summaryOf(sessionId, cf).metadata, format: 'cf-heaplog', extra: { sectionCount: 2, sectionIndex: i, appDomain: names[i] } } });
  });
  const tabs = useTabsStore();
  const docs = useDocumentsStore();
  docs.attach();
  const first = tabs.openFile(cf);
  await docs.whenSettled(first);
  await Promise.all(tabs.order.map((id) => docs.whenSettled(id)));
  return tabs;
}

describe('TabStrip', () => {
  it('two AppDomain sections of one CF log: distinct labels and tooltips naming the AppDomain', async () => {
    await openCfLog();
    const w = mount(TabStrip, { global: { plugins: [pinia] } });
    await w.vm.$nextTick();
    const tabs = w.findAll('[data-testid="tab"]');
    expect(tabs.map((t) => t.get('.name').text())).toEqual(['de…0.log — Contoso.Scanner.exe', 'de…0.log — Contoso.Scanner.Plugin']);
    expect(tabs.map((t) => t.attributes('title'))).toEqual([
      'device_heaplog_20240517_101500.log — Contoso.Scanner.exe\n/data/device_heaplog_20240517_101500.log\nAnalysing…',
      'device_heaplog_20240517_101500.log — Contoso.Scanner.Plugin\n/data/device_heaplog_20240517_101500.log\nAnalysing…',
    ]);
  });

  it('the tab list names every tab, activates the picked one and closes; Escape closes it too', async () => {
    const store = await openCfLog();
    const w = mount(TabStrip, { global: { plugins: [pinia] }, attachTo: document.body });
    await w.get('[data-testid="tab-list"]').trigger('click');
    const items = w.findAll('[data-testid="tab-list-item"]');
    expect(items.map((i) => i.get('.item-name').text())).toEqual(['device_heaplog_20240517_101500.log — Contoso.Scanner.exe', 'device_heaplog_20240517_101500.log — Contoso.Scanner.Plugin']);
    expect(store.activeId).toBe(store.order[0]);
    await items[1].trigger('click');
    expect(store.activeId).toBe(store.order[1]);
    expect(w.find('[data-testid="tab-list-menu"]').exists()).toBe(false);
    await w.get('[data-testid="tab-list"]').trigger('click');
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    await w.vm.$nextTick();
    expect(w.find('[data-testid="tab-list-menu"]').exists()).toBe(false);
    w.unmount();
  });

  it('a vertical wheel scrolls the strip sideways only when it overflows', async () => {
    await openCfLog();
    const w = mount(TabStrip, { global: { plugins: [pinia] } });
    const el = w.get('[data-testid="tab-scroller"]').element as HTMLElement;
    Object.defineProperty(el, 'clientWidth', { configurable: true, value: 500 });
    Object.defineProperty(el, 'scrollWidth', { configurable: true, value: 500 });
    await w.get('[data-testid="tab-scroller"]').trigger('wheel', { deltaY: 120 });
    expect(el.scrollLeft).toBe(0);
    Object.defineProperty(el, 'scrollWidth', { configurable: true, value: 1400 });
    await w.get('[data-testid="tab-scroller"]').trigger('wheel', { deltaY: 120 });
    expect(el.scrollLeft).toBe(120);
    await w.get('[data-testid="tab-scroller"]').trigger('wheel', { deltaY: -50 });
    expect(el.scrollLeft).toBe(70);
  });
});

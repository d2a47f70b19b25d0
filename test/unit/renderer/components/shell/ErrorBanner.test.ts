// @vitest-environment happy-dom
import { createTestingPinia } from '@pinia/testing';
import { mount } from '@vue/test-utils';
import { describe, expect, it, vi } from 'vitest';
import type { SessionId, SessionInfo } from '../../../../../shared/ipc/contract';
import { setClient } from '../../../../../renderer/api/heapscope-client';
import ErrorBanner from '../../../../../renderer/components/shell/ErrorBanner.vue';
import { useDocumentsStore } from '../../../../../renderer/stores/documents';
import { useTabsStore } from '../../../../../renderer/stores/tabs';
import { fakeClient, fileEntry } from '../../fake-client';

// A tab's notice (e.g. "Exported 12 rows") belongs to that tab: it must not follow the user to
// every other tab (issue 14 item 8). App-wide messages still show everywhere.
describe('ErrorBanner', () => {
  it("shows a tab's messages only on that tab, and app-wide ones on all", async () => {
    const pinia = createTestingPinia({ createSpy: vi.fn, stubActions: false });
    const client = fakeClient();
    setClient(client);
    vi.mocked(client.open).mockResolvedValue({ sessionId: 's' as SessionId, file: fileEntry('a.gcdump'), state: 'loading' } satisfies SessionInfo);
    vi.mocked(client.summary).mockReturnValue(new Promise(() => {}));
    const docs = useDocumentsStore();
    const tabs = useTabsStore();
    const a = tabs.openFile(fileEntry('a.gcdump'));
    const b = tabs.openFile(fileEntry('b.gcdump'));
    const w = mount(ErrorBanner, { global: { plugins: [pinia] } });
    tabs.activate(a);
    docs.report('Exported 12 rows (480 bytes), downloaded as a-types.csv', a, 'info');
    docs.report('Heapscope (browser mode)', null, 'info');
    await w.vm.$nextTick();
    const titles = () => w.findAll('.title').map((t) => t.text());
    expect(titles()).toEqual(['Exported 12 rows (480 bytes), downloaded as a-types.csv', 'Heapscope (browser mode)']);
    tabs.activate(b);
    await w.vm.$nextTick();
    expect(titles()).toEqual(['Heapscope (browser mode)']);
    tabs.activate(a);
    await w.vm.$nextTick();
    expect(titles()).toEqual(['Exported 12 rows (480 bytes), downloaded as a-types.csv', 'Heapscope (browser mode)']);
  });
});

// @vitest-environment happy-dom
import { createTestingPinia } from '@pinia/testing';
import { flushPromises, mount } from '@vue/test-utils';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionId } from '../../../../../shared/ipc/contract';
import { setClient } from '../../../../../renderer/api/heapscope-client';
import ExportReport from '../../../../../renderer/components/insights/ExportReport.vue';
import { useDocumentsStore } from '../../../../../renderer/stores/documents';
import { useTabsStore } from '../../../../../renderer/stores/tabs';
import { fakeClient, fileEntry, summaryOf, type FakeClient } from '../../fake-client';

// Export report…: asks the back end for the report of this tab's session, with the tab's baseline
// (shared with Diff) when one is chosen, and reports the outcome in the message banner.
let client: FakeClient;

beforeEach(() => {
  createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  vi.mocked(client.open).mockImplementation(async ({ fileToken }) => ({ sessionId: `s-${fileToken}` as SessionId, file: fileEntry(String(fileToken)), state: 'loading' }));
  vi.mocked(client.summary).mockImplementation(async ({ sessionId }) => summaryOf(sessionId, fileEntry(sessionId)));
  setClient(client);
});

async function twoTabs() {
  const tabs = useTabsStore();
  const docs = useDocumentsStore();
  const a = tabs.openFile(fileEntry('a.gcdump'));
  const b = tabs.openFile(fileEntry('b.gcdump'));
  await Promise.all([docs.whenSettled(a), docs.whenSettled(b)]);
  return { tabs, docs, a, b };
}

describe('ExportReport', () => {
  it('without a baseline: the session only; the saved file is reported', async () => {
    const { docs, a } = await twoTabs();
    vi.mocked(client.exportReport).mockResolvedValue({ outcome: 'saved', bytes: 2048, fileName: 'a-suspects.html', suspects: 4, findings: 11 });
    const report = vi.spyOn(docs, 'report');
    const w = mount(ExportReport, { props: { docId: a, sessionId: docs.docs[a].sessionId! } });
    await w.get('[data-testid="export-report"]').trigger('click');
    await flushPromises();
    expect(client.exportReport).toHaveBeenCalledWith({ sessionId: docs.docs[a].sessionId });
    expect(report).toHaveBeenCalledWith('Leak-suspects report (4 suspects, 11 findings, 2.00 KB) saved to a-suspects.html', a, 'info');
  });

  it('the baseline chosen here is the tab baseline and goes with the request; a cancelled dialog says nothing', async () => {
    const { tabs, docs, a, b } = await twoTabs();
    vi.mocked(client.exportReport).mockResolvedValue({ outcome: 'cancelled', bytes: 0, fileName: '', suspects: 0, findings: 0 });
    const report = vi.spyOn(docs, 'report');
    const w = mount(ExportReport, { props: { docId: b, sessionId: docs.docs[b].sessionId! } });
    const select = w.get<HTMLSelectElement>('[data-testid="report-baseline"]');
    expect(select.findAll('option').map((o) => o.text())).toEqual(['none', 'a.gcdump']);
    await select.setValue(a);
    expect(tabs.views[b].diffBaseline).toBe(a);
    await w.get('[data-testid="export-report"]').trigger('click');
    await flushPromises();
    expect(client.exportReport).toHaveBeenCalledWith({ sessionId: docs.docs[b].sessionId, baselineSessionId: docs.docs[a].sessionId });
    expect(report).not.toHaveBeenCalled();
  });

  it('an error is reported as the coded error', async () => {
    const { docs, a } = await twoTabs();
    const e = Object.assign(new Error('disk full'), { code: 'io/write-failed' });
    vi.mocked(client.exportReport).mockRejectedValue(e);
    const report = vi.spyOn(docs, 'report');
    const w = mount(ExportReport, { props: { docId: a, sessionId: docs.docs[a].sessionId! } });
    await w.get('[data-testid="export-report"]').trigger('click');
    await flushPromises();
    expect(report).toHaveBeenCalledWith(e, a);
  });
});

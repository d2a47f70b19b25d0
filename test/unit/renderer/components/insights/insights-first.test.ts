import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestingPinia } from '@pinia/testing';
import type { SessionId } from '../../../../../shared/ipc/contract';
import { opensInsightsFirst, worthOpeningInsights } from '../../../../../renderer/components/insights/insights-first';
import { setClient } from '../../../../../renderer/api/heapscope-client';
import { useDocumentsStore } from '../../../../../renderer/stores/documents';
import { defaultViewState, useTabsStore } from '../../../../../renderer/stores/tabs';
import { fakeClient, fileEntry, summaryOf } from '../../fake-client';

// When a fresh tab opens on Insights: the rule on findings, and which tabs count as untouched.
describe('worthOpeningInsights', () => {
  const f = (kind: string, bytes: number) => ({ kind, bytes });

  it('an event-handler or timer finding from 1% of the reachable bytes (99,999 of 10,000,000 is not enough)', () => {
    expect(worthOpeningInsights([f('event-handler-leak', 100_000)], 10_000_000)).toBe(true);
    expect(worthOpeningInsights([f('timer-held', 100_000)], 10_000_000)).toBe(true);
    expect(worthOpeningInsights([f('event-handler-leak', 99_999), f('timer-held', 99_999)], 10_000_000)).toBe(false);
  });

  it('or from 1 MB (1,048,576 bytes) on a heap where that is under 1%', () => {
    expect(worthOpeningInsights([f('event-handler-leak', 1_048_576)], 1_000_000_000)).toBe(true);
    expect(worthOpeningInsights([f('timer-held', 1_048_576)], 1_000_000_000)).toBe(true);
    expect(worthOpeningInsights([f('event-handler-leak', 1_048_575), f('timer-held', 1_048_575)], 1_000_000_000)).toBe(false);
  });

  it('a 24-byte subscriber does not open it; the bundled sample\'s 150 ReportViews (166,800 of 6,018,638 reachable bytes) do', () => {
    expect(worthOpeningInsights([f('event-handler-leak', 24)], 6_018_638)).toBe(false);
    expect(worthOpeningInsights([f('timer-held', 24)], 1_000_000)).toBe(false);
    expect(worthOpeningInsights([f('event-handler-leak', 166_800)], 6_018_638)).toBe(true);
  });

  it('finalization and accumulation points from 10% of the reachable bytes (999 of 10,000 is not enough)', () => {
    expect(worthOpeningInsights([f('accumulation-point', 1000)], 10_000)).toBe(true);
    expect(worthOpeningInsights([f('finalization', 1000)], 10_000)).toBe(true);
    expect(worthOpeningInsights([f('accumulation-point', 999), f('finalization', 999)], 10_000)).toBe(false);
  });

  it('statics, large objects and growth never open it; nor does an empty heap', () => {
    expect(worthOpeningInsights([f('static-field', 9000), f('large-objects', 9000), f('growth-type', 9000)], 10_000)).toBe(false);
    expect(worthOpeningInsights([f('accumulation-point', 0)], 0)).toBe(false);
    expect(worthOpeningInsights([], 10_000)).toBe(false);
  });
});

describe('tabs.untouched', () => {
  beforeEach(() => {
    createTestingPinia({ createSpy: vi.fn, stubActions: false });
    const client = fakeClient();
    vi.mocked(client.open).mockImplementation(async ({ fileToken }) => ({ sessionId: `s-${fileToken}` as SessionId, file: fileEntry(String(fileToken)), state: 'loading' }));
    vi.mocked(client.summary).mockImplementation(async ({ sessionId }) => summaryOf(sessionId, fileEntry(sessionId)));
    vi.mocked(client.close).mockResolvedValue(undefined);
    setClient(client);
  });

  it('a new tab is untouched until the user changes view or selection, and stays touched after Back', () => {
    const tabs = useTabsStore();
    const a = tabs.openFile(fileEntry('a'));
    expect(tabs.untouched(a)).toBe(true);
    tabs.views[a].types.sort = { key: 'count', dir: 'desc' }; // a sort is no step
    expect(tabs.untouched(a)).toBe(true);
    tabs.selectType(a, { typeIndex: 1, type: 'T' });
    expect(tabs.untouched(a)).toBe(false);
    tabs.back(a);
    expect(tabs.untouched(a)).toBe(false);
  });

  it('a restored tab is never untouched; a closed one neither', async () => {
    const tabs = useTabsStore();
    const r = tabs.restoreTab(useDocumentsStore().open(fileEntry('r')), defaultViewState());
    expect(tabs.untouched(r)).toBe(false);
    const b = tabs.openFile(fileEntry('b'));
    await tabs.close(b);
    expect(tabs.untouched(b)).toBe(false);
  });
});

// At 10M objects the inspections answer seconds after the Types rows (sunburst-ui.bench: 2.2 s
// after the analysis): time enough for the user to sort or filter Types, which is no Back/Forward
// step. A tab the user is working in must not switch under them.
describe('opensInsightsFirst', () => {
  const leak = [{ kind: 'event-handler-leak', bytes: 166_800 }];
  const REACHABLE = 6_018_638;

  it('a fresh tab on Types with a finding worth it opens Insights; one moved elsewhere or not untouched does not', () => {
    expect(opensInsightsFirst(defaultViewState(), true, leak, REACHABLE)).toBe(true);
    expect(opensInsightsFirst(defaultViewState(), false, leak, REACHABLE)).toBe(false);
    expect(opensInsightsFirst({ ...defaultViewState(), view: 'sunburst' }, true, leak, REACHABLE)).toBe(false);
    expect(opensInsightsFirst(defaultViewState(), true, [{ kind: 'event-handler-leak', bytes: 24 }], REACHABLE)).toBe(false);
  });

  it('Types sorted or filtered by the user (no navigation step) stays on Types', () => {
    const sorted = defaultViewState();
    sorted.types.sort = { key: 'count', dir: 'desc' };
    expect(opensInsightsFirst(sorted, true, leak, REACHABLE)).toBe(false);
    const ascending = defaultViewState();
    ascending.types.sort = { key: 'retainedSize', dir: 'asc' };
    expect(opensInsightsFirst(ascending, true, leak, REACHABLE)).toBe(false);
    const filtered = defaultViewState();
    filtered.types.filter = 'Report';
    expect(opensInsightsFirst(filtered, true, leak, REACHABLE)).toBe(false);
  });
});

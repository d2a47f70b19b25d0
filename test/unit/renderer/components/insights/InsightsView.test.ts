// @vitest-environment happy-dom
import { createTestingPinia } from '@pinia/testing';
import { flushPromises, mount } from '@vue/test-utils';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { FileEntry, FileToken, SessionId, SnapshotSummary } from '../../../../../shared/ipc/contract';
import { SnapshotSession } from '../../../../../shared/session/snapshot-session';
import { setClient } from '../../../../../renderer/api/heapscope-client';
import InsightsView from '../../../../../renderer/components/insights/InsightsView.vue';
import { HeapGraphBuilder } from '../../../../../shared/graph/heap-graph-builder';
import { NODE_PSEUDO } from '../../../../../shared/graph/heap-graph';
import { emptyMetadata } from '../../../../../shared/graph/metadata';
import { fakeClient, fileEntry, summaryOf, type FakeClient } from '../../fake-client';

let client: FakeClient;
beforeEach(() => {
  client = fakeClient();
  setClient(client);
});

/** The real session query on a heap with one event-handler leak and one static field. */
function inspectionsOfTinyHeap() {
  // [root] → [static var App.Bus] → Bus(24) → E(EventHandler, 64) → P(Page, 100)
  const b = new HeapGraphBuilder({ expectedNodes: 5 });
  const types = ['[root]', '[static var App.Bus]', 'Pub.Bus', 'System.EventHandler', 'Page'].map((n) => b.addType(n));
  b.createNodes(5);
  b.setRoot(0);
  const sizes = [0, 0, 24, 64, 100];
  for (let n = 0; n < 5; n++) b.setNode(n, types[n], sizes[n], n < 4 ? [n + 1] : []);
  b.addFlags(0, NODE_PSEUDO);
  b.addFlags(1, NODE_PSEUDO);
  const graph = b.finish(emptyMetadata('synthetic'));
  const file: FileEntry = { token: 'tok' as FileToken, name: 'g.gcdump', displayPath: '/x/g.gcdump', size: 1, modifiedMs: 0, source: 'path', formatHint: 'gcdump', exists: true };
  const s = new SnapshotSession(graph, { sessionId: 's1' as SessionId, file, parseMs: 1 });
  s.runAnalysis();
  return { value: s.inspections({}), page: 4 };
}

function summary(state: 'running' | 'done'): SnapshotSummary {
  const s = summaryOf('s1', fileEntry('a.gcdump'));
  return { ...s, analysis: { ...s.analysis, state } };
}

describe('InsightsView', () => {
  it('asks once the analysis is done and shows each finding with its objects, exact bytes, fix and inspectable examples', async () => {
    const { value, page } = inspectionsOfTinyHeap();
    vi.mocked(client.inspections).mockResolvedValue(value);
    const w = mount(InsightsView, { props: { docId: 'd1', summary: summary('running') }, global: { plugins: [createTestingPinia({ createSpy: vi.fn })] } });
    await flushPromises();
    expect(client.inspections).not.toHaveBeenCalled();
    await w.setProps({ summary: summary('done') } as never);
    await flushPromises();
    expect(client.inspections).toHaveBeenCalledWith({ sessionId: 's1' });
    const cards = w.findAll('[data-testid="insight"]');
    expect(cards.map((c) => c.find('.kind').text())).toEqual(['Event-handler leak', 'Static field']);
    expect(cards[0].text()).toContain('1 × Page kept alive only by delegates of Pub.Bus 0x');
    expect(cards[0].find('.figures').text()).toContain('100 bytes retained (exact)');
    expect(cards[0].text()).toContain('Fix: Unsubscribe');
    const ex = cards[0].get('[data-object-node]');
    expect(ex.attributes('data-object-node')).toBe(String(page));
    expect(w.text()).toContain('Not checked: Duplicate strings need object contents');
  });

  it('says so when no leak pattern is found', async () => {
    vi.mocked(client.inspections).mockResolvedValue({ findings: [], largeHeapShare: null, unavailable: [] });
    const w = mount(InsightsView, { props: { docId: 'd1', summary: summary('done') }, global: { plugins: [createTestingPinia({ createSpy: vi.fn })] } });
    await flushPromises();
    expect(w.find('[data-testid="insights-none"]').exists()).toBe(true);
  });
});

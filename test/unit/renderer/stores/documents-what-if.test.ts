import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestingPinia } from '@pinia/testing';
import type { IgnoredSummary, SessionId } from '../../../../shared/ipc/contract';
import { setClient } from '../../../../renderer/api/heapscope-client';
import { useDocumentsStore } from '../../../../renderer/stores/documents';
import { ignore, restoreAll, unignore } from '../../../../renderer/composables/use-what-if';
import { fakeClient, fileEntry, loadingInfo, summaryOf, type FakeClient } from '../fake-client';

// "What if" (issue 16) in the documents store: the ignore list goes to the back end whole, the
// tab follows the recompute (analysing → ready), and a recompute announced before the call
// returned is not undone.
let client: FakeClient;
beforeEach(() => {
  createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  setClient(client);
});

const sid = (s: string) => s as SessionId;
const done = { state: 'done' as const, error: null, ms: 5 };
const running = { state: 'running' as const, error: null, ms: null };
const feedRule = { kind: 'reference' as const, from: 5, to: 9 };
const ignored = (rules: IgnoredSummary['items'][number]['rule'][]): IgnoredSummary => ({ items: rules.map((rule) => ({ rule, label: JSON.stringify(rule), references: 1 })), references: rules.length });

async function openDone() {
  const file = fileEntry('a.gcdump');
  vi.mocked(client.open).mockResolvedValue(loadingInfo('s1', 'a.gcdump'));
  vi.mocked(client.summary).mockResolvedValue(summaryOf('s1', file, { analysis: done }));
  const docs = useDocumentsStore();
  docs.attach();
  const id = docs.open(file);
  await docs.whenSettled(id);
  return { docs, id, file };
}

describe('what if in the documents store', () => {
  it('adds a rule to the list, follows the recompute, removes one, restores', async () => {
    const { docs, id, file } = await openDone();
    vi.mocked(client.setIgnored).mockResolvedValue(summaryOf('s1', file, { analysis: running, ignored: ignored([feedRule]) }));
    await ignore(id, feedRule);
    expect(client.setIgnored).toHaveBeenLastCalledWith({ sessionId: 's1', rules: [feedRule] });
    expect([docs.docs[id].phase, docs.docs[id].summary?.ignored?.references]).toEqual(['analysing', 1]);
    client.emit('summary-updated', { sessionId: sid('s1'), summary: summaryOf('s1', file, { analysis: done, ignored: ignored([feedRule]) }) });
    expect(docs.docs[id].phase).toBe('ready');

    await ignore(id, feedRule); // already ignored: nothing to send
    expect(client.setIgnored).toHaveBeenCalledTimes(1);

    const typeRule = { kind: 'type' as const, typeIndex: 3 };
    vi.mocked(client.setIgnored).mockResolvedValue(summaryOf('s1', file, { analysis: running, ignored: ignored([feedRule, typeRule]) }));
    await ignore(id, typeRule);
    expect(client.setIgnored).toHaveBeenLastCalledWith({ sessionId: 's1', rules: [feedRule, typeRule] });
    client.emit('summary-updated', { sessionId: sid('s1'), summary: summaryOf('s1', file, { analysis: done, ignored: ignored([feedRule, typeRule]) }) });

    vi.mocked(client.setIgnored).mockResolvedValue(summaryOf('s1', file, { analysis: running, ignored: ignored([typeRule]) }));
    await unignore(id, 0);
    expect(client.setIgnored).toHaveBeenLastCalledWith({ sessionId: 's1', rules: [typeRule] });

    vi.mocked(client.setIgnored).mockResolvedValue(summaryOf('s1', file, { analysis: done }));
    await restoreAll(id);
    expect(client.setIgnored).toHaveBeenLastCalledWith({ sessionId: 's1', rules: [] });
    expect([docs.docs[id].phase, docs.docs[id].summary?.ignored ?? null]).toEqual(['ready', null]);
  });

  it('keeps a recompute whose end was announced before the call returned', async () => {
    const { docs, id, file } = await openDone();
    vi.mocked(client.setIgnored).mockImplementation(async () => {
      client.emit('summary-updated', { sessionId: sid('s1'), summary: summaryOf('s1', file, { analysis: done, ignored: ignored([feedRule]) }) });
      return summaryOf('s1', file, { analysis: running, ignored: ignored([feedRule]) });
    });
    await ignore(id, feedRule);
    expect([docs.docs[id].phase, docs.docs[id].summary?.analysis.state]).toEqual(['ready', 'done']);
  });

  it('reports a refused rule and keeps the tab as it was', async () => {
    const { docs, id } = await openDone();
    vi.mocked(client.setIgnored).mockRejectedValue(Object.assign(new Error('node 9 has no reference to node 5'), { code: 'usage/bad-argument' }));
    await ignore(id, { kind: 'reference', from: 9, to: 5 });
    expect(docs.messages.map((m) => m.kind)).toEqual(['error']);
    expect([docs.docs[id].phase, docs.docs[id].summary?.ignored ?? null]).toEqual(['ready', null]);
  });
});

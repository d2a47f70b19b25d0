import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestingPinia } from '@pinia/testing';
import { AppError } from '../../../../shared/errors';
import type { SessionId } from '../../../../shared/ipc/contract';
import { setClient } from '../../../../renderer/api/heapscope-client';
import { useDocumentsStore } from '../../../../renderer/stores/documents';
import { deferred, fakeClient, fileEntry, loadingInfo, summaryOf, type FakeClient } from '../fake-client';

// A process dump's type rows before its graph (`session-preliminary`): the tab gets a summary to
// open its views on while the document stays 'parsing' (bar and Cancel stay); session-ready
// replaces it; a failure after it drops it and shows the error.
let client: FakeClient;

beforeEach(() => {
  createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  setClient(client);
});

const sid = (s: string) => s as SessionId;
const pending = { state: 'pending' as const, error: null, ms: null };

async function loading() {
  const file = fileEntry('core.42');
  const summary = deferred<ReturnType<typeof summaryOf>>();
  vi.mocked(client.open).mockResolvedValue(loadingInfo('s1', 'core.42'));
  vi.mocked(client.summary).mockReturnValue(summary.promise);
  const docs = useDocumentsStore();
  docs.attach();
  const id = docs.open(file);
  await vi.waitFor(() => expect(docs.docs[id].phase).toBe('parsing'));
  return { docs, id, file, summary };
}

describe('documents store: preliminary type rows of a dump', () => {
  it('shows the preliminary summary while parsing, then session-ready replaces it', async () => {
    const { docs, id, file, summary } = await loading();
    client.emit('session-preliminary', { sessionId: sid('s1'), summary: summaryOf('s1', file, { analysis: pending, preliminary: true }) });
    expect(docs.docs[id].summary?.preliminary).toBe(true);
    expect(docs.docs[id].phase).toBe('parsing');
    client.emit('load-progress', { sessionId: sid('s1'), stage: 'parse', phase: 'parse', done: 5, total: 10 });
    expect(docs.docs[id].progress?.done).toBe(5);

    const ready = summaryOf('s1', file, { analysis: { state: 'running', error: null, ms: null } });
    client.emit('session-ready', { sessionId: sid('s1'), summary: ready });
    expect(docs.docs[id].summary?.preliminary).toBeUndefined();
    expect(docs.docs[id].phase).toBe('analysing');
    // a late preliminary summary never replaces a real one
    client.emit('session-preliminary', { sessionId: sid('s1'), summary: summaryOf('s1', file, { analysis: pending, preliminary: true }) });
    expect(docs.docs[id].summary?.preliminary).toBeUndefined();
    summary.resolve(ready);
    await docs.whenSettled(id);
    expect(docs.docs[id].phase).toBe('analysing');
  });

  it('a failure after the preliminary rows drops them and shows the error', async () => {
    const { docs, id, file, summary } = await loading();
    client.emit('session-preliminary', { sessionId: sid('s1'), summary: summaryOf('s1', file, { analysis: pending, preliminary: true }) });
    expect(docs.docs[id].summary).not.toBeNull();
    client.emit('session-failed', { sessionId: sid('s1'), error: { code: 'dump/helper-crashed', message: 'the dump reader stopped' } });
    expect(docs.docs[id].phase).toBe('failed');
    expect(docs.docs[id].summary).toBeNull();
    expect(docs.docs[id].error?.code).toBe('dump/helper-crashed');
    summary.reject(new AppError('dump/helper-crashed', 'the dump reader stopped'));
    await docs.whenSettled(id);
    expect(docs.docs[id].phase).toBe('failed');
    expect(docs.docs[id].summary).toBeNull();
  });
});

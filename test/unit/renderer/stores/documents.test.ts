import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestingPinia } from '@pinia/testing';
import { AppError } from '../../../../shared/errors';
import type { SessionId, SessionInfo } from '../../../../shared/ipc/contract';
import { setClient } from '../../../../renderer/api/heapscope-client';
import { useDocumentsStore } from '../../../../renderer/stores/documents';
import { deferred, fakeClient, fileEntry, loadingInfo, summaryOf, type FakeClient } from '../fake-client';

// Stores run for real (stubActions: false); only the back end is faked (fake-client.ts), because
// what is under test is how the store reacts to the back end's answers and events.
let client: FakeClient;

beforeEach(() => {
  createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  setClient(client);
});

const sid = (s: string) => s as SessionId;

describe('documents store: load lifecycle', () => {
  it('goes opening → parsing → analysing → ready, following progress events', async () => {
    const file = fileEntry('a.gcdump');
    const summary = deferred<ReturnType<typeof summaryOf>>();
    vi.mocked(client.open).mockResolvedValue(loadingInfo('s1', 'a.gcdump'));
    vi.mocked(client.summary).mockReturnValue(summary.promise);
    const docs = useDocumentsStore();
    docs.attach();

    const id = docs.open(file);
    expect(docs.docs[id].phase).toBe('opening');
    expect(docs.docs[id].title).toBe('a.gcdump');
    await vi.waitFor(() => expect(docs.docs[id].phase).toBe('parsing'));
    expect(client.open).toHaveBeenCalledWith({ fileToken: file.token });
    expect(docs.docs[id].sessionId).toBe('s1');

    client.emit('load-progress', { sessionId: sid('s1'), stage: 'parse', phase: 'parse', done: 250, total: 1000 });
    expect(docs.docs[id].progress).toEqual({ stage: 'parse', phase: 'parse', done: 250, total: 1000 });
    // progress for another session must not touch this document
    client.emit('load-progress', { sessionId: sid('other'), stage: 'parse', phase: 'parse', done: 999, total: 1000 });
    expect(docs.docs[id].progress?.done).toBe(250);

    summary.resolve(summaryOf('s1', file));
    await docs.whenSettled(id);
    expect(docs.docs[id].phase).toBe('analysing');
    expect(docs.docs[id].summary?.objects.count).toBe(9);

    client.emit('load-progress', { sessionId: sid('s1'), stage: 'analysis', phase: 'dominators', done: 5, total: 10 });
    expect(docs.docs[id].progress?.phase).toBe('dominators');
    client.emit('summary-updated', { sessionId: sid('s1'), summary: summaryOf('s1', file, { analysis: { state: 'done', error: null, ms: 12 }, reachable: { count: 8, size: 800 } }) });
    expect(docs.docs[id].phase).toBe('ready');
    expect(docs.docs[id].progress).toBeNull();
    expect(docs.docs[id].summary?.reachable).toEqual({ count: 8, size: 800 });
  });

  it('turns a corrupt file into an error document while another keeps loading', async () => {
    vi.mocked(client.open).mockImplementation(async ({ fileToken }) => loadingInfo(fileToken === 'tok-bad.gcdump' ? 'bad' : 'good', String(fileToken)));
    vi.mocked(client.summary).mockImplementation(async ({ sessionId }) => {
      if (sessionId === 'bad') throw new AppError('format/truncated', 'gcdump ended inside the node table', { offset: 4096 });
      return summaryOf('good', fileEntry('good.gcdump'));
    });
    const docs = useDocumentsStore();
    docs.attach();
    const bad = docs.open(fileEntry('bad.gcdump'));
    const good = docs.open(fileEntry('good.gcdump'));
    await Promise.all([docs.whenSettled(bad), docs.whenSettled(good)]);

    expect(docs.docs[bad].phase).toBe('failed');
    expect(docs.docs[bad].error).toEqual({ code: 'format/truncated', message: 'gcdump ended inside the node table', detail: { offset: 4096 } });
    expect(docs.docs[good].phase).toBe('analysing');
    expect(docs.docs[good].error).toBeNull();
    // a late summary for the failed session must not resurrect it
    client.emit('session-ready', { sessionId: sid('bad'), summary: summaryOf('bad', fileEntry('bad.gcdump')) });
    expect(docs.docs[bad].phase).toBe('failed');
  });

  it('an open that fails (file gone) fails the document without a session', async () => {
    vi.mocked(client.open).mockRejectedValue(new AppError('io/not-found', 'no such file'));
    const docs = useDocumentsStore();
    const id = docs.open(fileEntry('gone.gcdump'));
    await docs.whenSettled(id);
    expect(docs.docs[id].phase).toBe('failed');
    expect(docs.docs[id].sessionId).toBeNull();
    expect(client.summary).not.toHaveBeenCalled();
  });

  it('session-failed {cancelled} during parsing marks the document cancelled, not failed', async () => {
    const summary = deferred<ReturnType<typeof summaryOf>>();
    vi.mocked(client.open).mockResolvedValue(loadingInfo('s1', 'a'));
    vi.mocked(client.summary).mockReturnValue(summary.promise);
    vi.mocked(client.cancel).mockResolvedValue(undefined);
    const docs = useDocumentsStore();
    docs.attach();
    const id = docs.open(fileEntry('a'));
    await vi.waitFor(() => expect(docs.docs[id].phase).toBe('parsing'));

    await docs.cancel(id);
    expect(client.cancel).toHaveBeenCalledWith({ sessionId: 's1' });
    client.emit('session-failed', { sessionId: sid('s1'), error: { code: 'cancelled', message: 'cancelled by the user' } });
    expect(docs.docs[id].phase).toBe('cancelled');
    summary.reject(new AppError('cancelled', 'cancelled by the user'));
    await docs.whenSettled(id);
    expect(docs.docs[id].phase).toBe('cancelled');
    expect(docs.messages).toEqual([]); // the user asked for it: no error banner
  });

  it('cancel is a no-op once the document is ready', async () => {
    vi.mocked(client.open).mockResolvedValue(loadingInfo('s1', 'a'));
    vi.mocked(client.summary).mockResolvedValue(summaryOf('s1', fileEntry('a'), { analysis: { state: 'done', error: null, ms: 1 } }));
    const docs = useDocumentsStore();
    const id = docs.open(fileEntry('a'));
    await docs.whenSettled(id);
    expect(docs.docs[id].phase).toBe('ready');
    await docs.cancel(id);
    expect(client.cancel).not.toHaveBeenCalled();
  });

  it('a crashed worker fails its document with worker/crashed', async () => {
    vi.mocked(client.open).mockResolvedValue(loadingInfo('s1', 'a'));
    vi.mocked(client.summary).mockResolvedValue(summaryOf('s1', fileEntry('a')));
    const docs = useDocumentsStore();
    docs.attach();
    const id = docs.open(fileEntry('a'));
    await docs.whenSettled(id);
    client.emit('session-closed', { sessionId: sid('s1'), reason: 'worker-crashed' });
    expect(docs.docs[id].phase).toBe('failed');
    expect(docs.docs[id].error?.code).toBe('worker/crashed');
    expect(docs.docs[id].sessionId).toBeNull();
  });
});

describe('documents store: close and retry', () => {
  it('close frees the session; closing a failed document does not call the back end', async () => {
    vi.mocked(client.open).mockImplementation(async ({ fileToken }) => loadingInfo(String(fileToken), String(fileToken)));
    vi.mocked(client.summary).mockImplementation(async ({ sessionId }) => {
      if (sessionId === 'tok-bad') throw new AppError('format/bad-magic', 'not a gcdump');
      return summaryOf(sessionId, fileEntry('ok'));
    });
    vi.mocked(client.close).mockResolvedValue(undefined);
    const docs = useDocumentsStore();
    const ok = docs.open(fileEntry('ok'));
    const bad = docs.open(fileEntry('bad'));
    await Promise.all([docs.whenSettled(ok), docs.whenSettled(bad)]);

    await docs.close(ok);
    expect(client.close).toHaveBeenCalledTimes(1);
    expect(client.close).toHaveBeenCalledWith({ sessionId: 'tok-ok' });
    expect(docs.docs[ok]).toBeUndefined();
    await docs.close(bad);
    expect(client.close).toHaveBeenCalledTimes(1);
    expect(docs.list).toHaveLength(0);
  });

  it('closing before the back end answered open closes the session as soon as it exists', async () => {
    const opened = deferred<SessionInfo>();
    vi.mocked(client.open).mockReturnValue(opened.promise);
    vi.mocked(client.close).mockResolvedValue(undefined);
    const docs = useDocumentsStore();
    const id = docs.open(fileEntry('a'));
    const settled = docs.whenSettled(id);
    await docs.close(id);
    expect(client.close).not.toHaveBeenCalled();
    opened.resolve(loadingInfo('late', 'a'));
    await settled;
    expect(client.close).toHaveBeenCalledWith({ sessionId: 'late' });
    expect(client.summary).not.toHaveBeenCalled();
  });

  it('retry reloads a failed document in place', async () => {
    vi.mocked(client.open).mockResolvedValueOnce(loadingInfo('s1', 'a')).mockResolvedValueOnce(loadingInfo('s2', 'a'));
    vi.mocked(client.summary)
      .mockRejectedValueOnce(new AppError('io/read-failed', 'EIO'))
      .mockResolvedValueOnce(summaryOf('s2', fileEntry('a')));
    const docs = useDocumentsStore();
    const id = docs.open(fileEntry('a'));
    await docs.whenSettled(id);
    expect(docs.docs[id].phase).toBe('failed');
    docs.retry(id);
    expect(docs.docs[id].phase).toBe('opening');
    expect(docs.docs[id].error).toBeNull();
    await docs.whenSettled(id);
    expect(docs.docs[id].phase).toBe('analysing');
    expect(docs.docs[id].sessionId).toBe('s2');
  });
});

describe('documents store: messages', () => {
  it('maps codes to words, drops cancellations and keeps the last five', () => {
    const docs = useDocumentsStore();
    docs.report(new AppError('format/truncated', 'ended early', { offset: 12 }), null);
    expect(docs.messages[0]).toMatchObject({ kind: 'error', title: 'The file ends too early (it may be incomplete or still being written)', detail: 'ended early (at byte offset 12)' });
    docs.report(new AppError('cancelled', 'stop'), null);
    expect(docs.messages).toHaveLength(1);
    for (let i = 0; i < 6; i++) docs.report(`notice ${i}`, null, 'info');
    expect(docs.messages).toHaveLength(5);
    expect(docs.messages.map((m) => m.title)).toEqual(['notice 1', 'notice 2', 'notice 3', 'notice 4', 'notice 5']);
    docs.dismiss(docs.messages[0].id);
    expect(docs.messages).toHaveLength(4);
  });

  it('detach removes every event listener', () => {
    const docs = useDocumentsStore();
    docs.attach();
    expect(client.listenerCount('load-progress')).toBe(1);
    docs.attach(); // re-attaching must not double-subscribe
    expect(client.listenerCount('load-progress')).toBe(1);
    docs.detach();
    expect(client.listenerCount('load-progress')).toBe(0);
    expect(client.listenerCount('session-failed')).toBe(0);
  });
});

describe('documents store: live captures', () => {
  it('a capture shows its phases, then becomes an ordinary document of the saved .gcdump; a failed one is captured again by retry', async () => {
    const saved = fileEntry('LeakyApp_20240102_030405_42.gcdump');
    const pending = { ...saved, size: 0, exists: false, source: 'capture' as const };
    const summary = deferred<ReturnType<typeof summaryOf>>();
    vi.mocked(client.captureProcess).mockResolvedValue({ sessionId: sid('c1'), file: pending, state: 'loading' });
    vi.mocked(client.summary).mockReturnValue(summary.promise);
    const docs = useDocumentsStore();
    docs.attach();

    const id = docs.capture({ pid: 42, name: 'LeakyApp' });
    expect(docs.docs[id]).toMatchObject({ kind: 'capture', title: 'LeakyApp (pid 42)', file: null, phase: 'opening' });
    await vi.waitFor(() => expect(docs.docs[id].phase).toBe('parsing'));
    expect(client.captureProcess).toHaveBeenCalledWith({ pid: 42 });
    expect(docs.docs[id].file).toEqual(pending);

    client.emit('capture-progress', { sessionId: sid('c1'), pid: 42, phase: 'walking heap', bytes: 123_456, elapsedMs: 800 });
    expect(docs.docs[id].capture).toEqual({ phase: 'walking heap', bytes: 123_456, elapsedMs: 800 });
    // the saved file is then read like any other: parse progress ends the capture part
    client.emit('load-progress', { sessionId: sid('c1'), stage: 'parse', phase: 'parse', done: 1, total: 2 });
    expect(docs.docs[id].capture).toBeNull();
    summary.resolve(summaryOf('c1', saved));
    await docs.whenSettled(id);
    expect(docs.docs[id]).toMatchObject({ phase: 'analysing', file: saved, title: 'LeakyApp (pid 42)' });

    // a capture that fails (the process exited) keeps its tab; retry captures again
    vi.mocked(client.captureProcess).mockResolvedValue({ sessionId: sid('c2'), file: pending, state: 'loading' });
    vi.mocked(client.summary).mockRejectedValueOnce(new AppError('process/exited', 'process 7 exited during the capture'));
    const bad = docs.capture({ pid: 7, name: null });
    await docs.whenSettled(bad);
    expect(docs.docs[bad]).toMatchObject({ phase: 'failed', error: { code: 'process/exited' }, title: 'process (pid 7)' });
    vi.mocked(client.summary).mockResolvedValue(summaryOf('c2', saved));
    docs.retry(bad);
    await docs.whenSettled(bad);
    expect(client.captureProcess).toHaveBeenLastCalledWith({ pid: 7 });
    expect(docs.docs[bad].phase).toBe('analysing');
  });
});

// Issue 14: "analysis cancelled" was a dead end ("Reopen the file…"); the document now offers Compute again.
describe('documents store: compute the analysis again', () => {
  it('after a cancelled analysis: asks the back end, shows the analysis running, then done', async () => {
    const file = fileEntry('a.gcdump');
    const cancelled = { state: 'cancelled' as const, error: { code: 'cancelled' as const, message: 'analysis cancelled' }, ms: null };
    vi.mocked(client.open).mockResolvedValue(loadingInfo('s1', 'a.gcdump'));
    vi.mocked(client.summary).mockResolvedValue(summaryOf('s1', file, { analysis: cancelled }));
    vi.mocked(client.computeAgain).mockResolvedValue(summaryOf('s1', file, { analysis: { state: 'running', error: null, ms: null } }));
    const docs = useDocumentsStore();
    docs.attach();
    const id = docs.open(file);
    await docs.whenSettled(id);
    expect([docs.docs[id].phase, docs.docs[id].summary?.analysis.state]).toEqual(['ready', 'cancelled']);

    await docs.computeAgain(id);
    expect(client.computeAgain).toHaveBeenCalledWith({ sessionId: 's1' });
    expect([docs.docs[id].phase, docs.docs[id].summary?.analysis.state]).toEqual(['analysing', 'running']);
    client.emit('summary-updated', { sessionId: sid('s1'), summary: summaryOf('s1', file, { analysis: { state: 'done', error: null, ms: 5 } }) });
    expect([docs.docs[id].phase, docs.docs[id].summary?.analysis.state]).toEqual(['ready', 'done']);
  });

  it('does not go back to "running" when the end was announced before the call returned', async () => {
    const file = fileEntry('a.gcdump');
    vi.mocked(client.open).mockResolvedValue(loadingInfo('s1', 'a.gcdump'));
    vi.mocked(client.summary).mockResolvedValue(summaryOf('s1', file, { analysis: { state: 'failed', error: { code: 'worker/crashed', message: 'x' }, ms: null } }));
    const docs = useDocumentsStore();
    docs.attach();
    const id = docs.open(file);
    await docs.whenSettled(id);
    vi.mocked(client.computeAgain).mockImplementation(async () => {
      client.emit('summary-updated', { sessionId: sid('s1'), summary: summaryOf('s1', file, { analysis: { state: 'done', error: null, ms: 5 } }) });
      return summaryOf('s1', file, { analysis: { state: 'running', error: null, ms: null } });
    });
    await docs.computeAgain(id);
    expect([docs.docs[id].phase, docs.docs[id].summary?.analysis.state]).toEqual(['ready', 'done']);
  });
});

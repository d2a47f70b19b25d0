import { vi } from 'vitest';
import type { SessionId, SnapshotSummary } from '../../../../../shared/ipc/contract';
import { useDocumentsStore } from '../../../../../renderer/stores/documents';
import { useTabsStore } from '../../../../../renderer/stores/tabs';
import { fileEntry, summaryOf, type FakeClient } from '../../fake-client';

/**
 * Open tabs through the real stores with a fake back end: each file becomes session "s-<name>"
 * with the summary `over(name)` gives (objects, capture time, format), parsed at once.
 */
export async function openSnapshots(client: FakeClient, names: string[], over: (name: string) => Partial<SnapshotSummary> = () => ({})): Promise<string[]> {
  vi.mocked(client.open).mockImplementation(async ({ fileToken }) => ({ sessionId: `s-${fileToken.replace(/^tok-/, '')}` as SessionId, file: fileEntry(fileToken.replace(/^tok-/, '')), state: 'loading' }));
  vi.mocked(client.summary).mockImplementation(async ({ sessionId }) => {
    const name = sessionId.replace(/^s-/, '');
    return summaryOf(sessionId, fileEntry(name), over(name));
  });
  const tabs = useTabsStore();
  const ids = names.map((n) => tabs.openFile(fileEntry(n), '0')); // '0': no section fan-out
  const documents = useDocumentsStore();
  await Promise.all(ids.map((id) => documents.whenSettled(id)));
  return ids;
}

/** Summary fields of a GC-only trace: no heap objects. */
export function gcOnly(): Partial<SnapshotSummary> {
  const base = summaryOf('x', fileEntry('x'));
  return { objects: { count: 0, size: 0 }, estimated: { count: 0, size: 0 }, metadata: { ...base.metadata, format: 'nettrace' } };
}

/** Summary fields with a capture time. */
export function capturedAt(time: string): Partial<SnapshotSummary> {
  const base = summaryOf('x', fileEntry('x'));
  return { metadata: { ...base.metadata, timeCollected: time } };
}

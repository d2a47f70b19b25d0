import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestingPinia } from '@pinia/testing';
import type { RowWindow, SessionId, TypeRow, TypeRowsReq } from '../../../../../shared/ipc/contract';
import { setClient } from '../../../../../renderer/api/heapscope-client';
import { findTypeByName, snapshotTabs } from '../../../../../renderer/components/diff/snapshot-tabs';
import { useDocumentsStore } from '../../../../../renderer/stores/documents';
import { useTabsStore } from '../../../../../renderer/stores/tabs';
import { fakeClient, type FakeClient } from '../../fake-client';
import { gcOnly, openSnapshots } from './open-snapshots';

let client: FakeClient;
beforeEach(() => {
  createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  setClient(client);
});

describe('snapshotTabs', () => {
  it('offers parsed tabs with objects, in tab order: not GC-only traces, failed loads or monitors', async () => {
    const [a, , c] = await openSnapshots(client, ['a.gcdump', 'trace.nettrace', 'c.gcdump'], (n) => (n === 'trace.nettrace' ? gcOnly() : {}));
    const tabs = useTabsStore();
    const documents = useDocumentsStore();
    vi.mocked(client.startGcMonitor).mockRejectedValue(new Error('no'));
    tabs.openMonitor({ pid: 7, name: 'app' });
    expect(snapshotTabs(tabs.order, documents.docs).map((d) => d.id)).toEqual([a, c]);
    documents.docs[a].phase = 'failed';
    expect(snapshotTabs(tabs.order, documents.docs).map((d) => d.id)).toEqual([c]);
  });
});

/** A fake `typeRows` over `names` (index = typeIndex), most instances first, filtered like the worker. */
function typeRowsOver(names: string[], counts: number[]) {
  return async (q: TypeRowsReq): Promise<RowWindow<TypeRow>> => {
    const f = (q.filter ?? '').toLowerCase();
    const ids = names.map((_, i) => i).filter((i) => names[i].toLowerCase().includes(f));
    ids.sort((x, y) => counts[y] - counts[x] || x - y);
    const rows = ids.slice(q.start, q.end).map((i) => ({ typeIndex: i, type: names[i], count: counts[i] }) as TypeRow);
    return { start: q.start, end: q.start + rows.length, total: ids.length, rows };
  };
}

describe('findTypeByName', () => {
  const S = 's-1' as SessionId;
  it('takes the exact name among the filter matches, the index with most instances when names repeat', async () => {
    const names = ['System.String[]', 'System.String', 'List<System.String>', 'System.String'];
    vi.mocked(client.typeRows).mockImplementation(typeRowsOver(names, [50, 10, 90, 30]));
    expect(await findTypeByName(client, S, 'System.String')).toEqual({ typeIndex: 3, type: 'System.String' });
    expect(vi.mocked(client.typeRows).mock.calls[0][0]).toEqual({ sessionId: S, sort: { key: 'count', dir: 'desc' }, filter: 'System.String', start: 0, end: 2000 });
    expect(await findTypeByName(client, S, 'system.string')).toBeNull(); // names are case-sensitive
  });

  it('pages through many matches, and filters long names by their first 200 characters', async () => {
    const long = `Gen<${'X'.repeat(300)}>`;
    const names = [...Array.from({ length: 4500 }, (_, i) => `${long}.Inner${i}`), long];
    vi.mocked(client.typeRows).mockImplementation(typeRowsOver(names, names.map((_, i) => 10_000 - i)));
    expect(await findTypeByName(client, S, long)).toEqual({ typeIndex: 4500, type: long });
    const calls = vi.mocked(client.typeRows).mock.calls.map((c) => [c[0].filter, c[0].start, c[0].end]);
    expect(calls).toEqual([0, 2000, 4000].map((s) => [long.slice(0, 200), s, s + 2000]));
    expect(await findTypeByName(client, S, `${long}.Missing`)).toBeNull();
  });
});

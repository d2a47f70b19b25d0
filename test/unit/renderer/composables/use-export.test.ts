import { createPinia, setActivePinia } from 'pinia';
import { describe, expect, it, vi } from 'vitest';
import type { ExportCsvReq } from '../../../../shared/ipc/contract';
import { setClient } from '../../../../renderer/api/heapscope-client';
import { useExport } from '../../../../renderer/composables/use-export';
import { useDocumentsStore } from '../../../../renderer/stores/documents';
import { fakeClient } from '../fake-client';

// The export notice agrees with its row count ("Exported 1 row"), and belongs to the tab that exported.
describe('useExport', () => {
  it('reports the outcome on the exporting tab, in the singular for one row', async () => {
    setActivePinia(createPinia());
    const client = fakeClient();
    setClient(client);
    vi.mocked(client.exportCsv)
      .mockResolvedValueOnce({ outcome: 'downloaded', rows: 1, bytes: 40, fileName: 'a-types.csv' })
      .mockResolvedValueOnce({ outcome: 'saved', rows: 1234, bytes: 2048, fileName: '/home/u/a-types.csv' });
    const { run } = useExport(() => 'd1');
    await run({} as ExportCsvReq);
    await run({} as ExportCsvReq);
    expect(useDocumentsStore().messages.map((m) => [m.kind, m.title, m.docId])).toEqual([
      ['info', 'Exported 1 row (40 bytes), downloaded as a-types.csv', 'd1'],
      ['info', 'Exported 1,234 rows (2.00 KB), saved to /home/u/a-types.csv', 'd1'],
    ]);
  });
});

import { ref } from 'vue';
import type { ExportCsvReq } from '../../shared/ipc/contract';
import { useClient } from '../api/heapscope-client';
import { useDocumentsStore, type DocId } from '../stores/documents';
import { formatBytes, formatCountOf } from '../components/grids/format';

/**
 * "Export CSV" for a view: the back end writes ALL rows with the view's sort and filter (a save
 * dialog in Electron, a download in browser mode); we only report the outcome.
 */
export function useExport(docId: () => DocId) {
  const exporting = ref(false);
  const documents = useDocumentsStore();

  async function run(req: ExportCsvReq): Promise<void> {
    if (exporting.value) return;
    exporting.value = true;
    try {
      const r = await useClient().exportCsv(req);
      if (r.outcome !== 'cancelled') {
        const where = r.outcome === 'saved' ? `saved to ${r.fileName}` : `downloaded as ${r.fileName}`;
        documents.report(`Exported ${formatCountOf(r.rows, 'row')} (${formatBytes(r.bytes)}), ${where}`, docId(), 'info');
      }
    } catch (e) {
      documents.report(e, docId());
    } finally {
      exporting.value = false;
    }
  }

  return { exporting, run };
}

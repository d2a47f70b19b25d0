import { ref } from 'vue';
import type { DotnetProcessInfo } from '../../shared/ipc/contract';
import { useClient } from '../api/heapscope-client';
import { useDocumentsStore, type DocId } from '../stores/documents';
import { useTabsStore } from '../stores/tabs';
import { formatBytes } from '../components/grids/format';
import { useFileLists } from './use-file-lists';

/**
 * The live-process commands shared by the Welcome page, the Electron menu and the keyboard:
 * "Capture from process…" and "Monitor GCs…" open the process picker (one dialog, rendered by
 * App.vue); picking a process opens a capture tab or a monitor tab. "Save snapshot as…" copies a
 * tab's snapshot file (a save dialog in Electron, a download in browser mode).
 */
const picker = ref<'capture' | 'monitor' | null>(null);

export function useProcessPicker() {
  const tabs = useTabsStore();
  return {
    picker,
    open(purpose: 'capture' | 'monitor'): void {
      picker.value = purpose;
    },
    close(): void {
      picker.value = null;
    },
    capture(p: DotnetProcessInfo): void {
      picker.value = null;
      tabs.openCapture({ pid: p.pid, name: p.name });
    },
    monitor(p: DotnetProcessInfo): void {
      picker.value = null;
      tabs.openMonitor({ pid: p.pid, name: p.name });
    },
    dump(p: DotnetProcessInfo): Promise<void> {
      picker.value = null;
      return writeProcessDump(p);
    },
  };
}

/**
 * "Full dump": the process's runtime writes a WithHeap process dump into the captures folder
 * (`captureDump`); the outcome goes to the message banner, the file appears under Recent files and
 * opens in a new tab like any snapshot file (read by the dump helper; a missing helper shows as
 * that tab's dump/helper-missing error, the dump stays listed).
 */
export async function writeProcessDump(p: DotnetProcessInfo): Promise<void> {
  const documents = useDocumentsStore();
  const who = `${p.name ?? 'process'} (pid ${p.pid})`;
  documents.report(`Writing a process dump of ${who}…`, null, 'info');
  try {
    const r = await useClient().captureDump({ pid: p.pid });
    documents.report(
      `Process dump of ${who} written: ${r.file.displayPath} (${formatBytes(r.bytes)}), listed under Recent files and opened in a new tab.`,
      null,
      'info',
    );
    useTabsStore().openFile(r.file);
    await useFileLists().refresh();
  } catch (e) {
    documents.report(e, null);
  }
}

/** Save a copy of the tab's snapshot; the outcome is reported in the message banner. */
export async function saveSnapshot(docId: DocId | null): Promise<void> {
  const documents = useDocumentsStore();
  const d = docId ? documents.docs[docId] : undefined;
  if (!d?.sessionId || !d.summary) {
    documents.report('Open or capture a snapshot first: there is nothing to save in this tab', docId, 'info');
    return;
  }
  try {
    const r = await useClient().saveSnapshot({ sessionId: d.sessionId });
    if (r.outcome === 'cancelled') return;
    documents.report(`Snapshot ${r.outcome === 'saved' ? 'saved as' : 'downloaded as'} ${r.fileName} (${formatBytes(r.bytes)})`, docId, 'info');
  } catch (e) {
    documents.report(e, docId);
  }
}

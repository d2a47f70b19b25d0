import { shallowRef } from 'vue';
import type { AppInfo, FileEntry, FileLists } from '../../shared/ipc/contract';
import { useClient } from '../api/heapscope-client';
import { useDocumentsStore } from '../stores/documents';
import { useTabsStore } from '../stores/tabs';

/**
 * What the back end offers to open (recent files, command-line files, the sample) and what it can
 * do (native dialog or not), plus the actions that turn a user gesture into an open tab.
 * Module-level refs: one copy for the whole app, refreshed after every open.
 */
const appInfo = shallowRef<AppInfo | null>(null);
const lists = shallowRef<FileLists>({ commandLine: [], recent: [], sample: null });

export function useFileLists() {
  const client = useClient();
  const documents = useDocumentsStore();
  const tabs = useTabsStore();

  async function refresh(): Promise<void> {
    try {
      const [info, files] = await Promise.all([appInfo.value ? Promise.resolve(appInfo.value) : client.appInfo({}), client.listFiles({})]);
      appInfo.value = info;
      lists.value = files;
    } catch (e) {
      documents.report(e, null);
    }
  }

  function openEntry(file: FileEntry): void {
    tabs.openFile(file);
  }

  /** Ctrl/Cmd+O: the native dialog in Electron; in browser mode the caller falls back to a file input. */
  async function pickAndOpen(): Promise<boolean> {
    if (!appInfo.value?.canPickFile) return false;
    try {
      const file = await client.pickFile({});
      if (file) openEntry(file);
    } catch (e) {
      documents.report(e, null);
    }
    return true;
  }

  /** Dropped or chosen DOM files: Electron resolves their paths in main; browser mode uploads them. */
  async function openDomFiles(files: Iterable<File>): Promise<void> {
    for (const f of files) {
      try {
        openEntry(await client.fileFromDrop(f));
      } catch (e) {
        documents.report(e, null);
      }
    }
  }

  /** Browser mode's "open a path on the server machine" box. */
  async function openTypedPath(path: string): Promise<void> {
    const p = path.trim();
    if (!p) return;
    try {
      openEntry(await client.registerPath({ path: p, via: 'typed' }));
    } catch (e) {
      documents.report(e, null);
    }
  }

  async function removeRecent(file: FileEntry): Promise<void> {
    try {
      await client.removeRecent({ fileToken: file.token });
    } catch (e) {
      documents.report(e, null);
    }
    await refresh();
  }

  async function clearRecent(): Promise<void> {
    try {
      await client.clearRecent({});
    } catch (e) {
      documents.report(e, null);
    }
    await refresh();
  }

  return { appInfo, lists, refresh, openEntry, pickAndOpen, openDomFiles, openTypedPath, removeRecent, clearRecent };
}

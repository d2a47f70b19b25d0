import { dialog, type BrowserWindow } from 'electron';
import type { Shell } from '../host/heapscope-service.js';
import { openDialogFilters } from './open-dialog-filters.js';

/**
 * The Electron shell: native open and save dialogs, owned by main. The renderer only ever sees
 * the resulting token (open) or the outcome of the export (save).
 */
export function electronShell(window: () => BrowserWindow | null): Shell {
  return {
    mode: 'electron',
    canTypePath: false,
    async pickFile() {
      const w = window();
      const opts: Electron.OpenDialogOptions = {
        title: 'Open heap snapshot or process dump',
        properties: ['openFile'],
        filters: openDialogFilters(process.platform),
      };
      const r = w ? await dialog.showOpenDialog(w, opts) : await dialog.showOpenDialog(opts);
      return r.canceled || r.filePaths.length === 0 ? null : r.filePaths[0];
    },
    async exportTarget(suggestedName, kind = 'csv') {
      const w = window();
      const opts: Electron.SaveDialogOptions =
        kind === 'snapshot'
          ? { title: 'Save snapshot as', defaultPath: suggestedName, filters: [{ name: 'Heap snapshot', extensions: [suggestedName.split('.').pop() ?? 'gcdump'] }, { name: 'All files', extensions: ['*'] }] }
          : kind === 'report'
            ? { title: 'Export report', defaultPath: suggestedName, filters: [{ name: 'HTML report', extensions: ['html'] }] }
            : { title: 'Export CSV', defaultPath: suggestedName, filters: [{ name: 'CSV', extensions: ['csv'] }] };
      const r = w ? await dialog.showSaveDialog(w, opts) : await dialog.showSaveDialog(opts);
      return r.canceled || !r.filePath ? null : { path: r.filePath, outcome: 'saved' };
    },
  };
}

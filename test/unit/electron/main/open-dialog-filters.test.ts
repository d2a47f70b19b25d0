import { describe, expect, it } from 'vitest';
import { openDialogFilters, type DialogFilter } from '../../../../electron/main/open-dialog-filters.js';

/** Which files a filter shows, the way Electron's dialogs apply one (a "*.ext" pattern per extension; "*" is everything). */
function shows(f: DialogFilter, file: string): boolean {
  return f.extensions.some((ext) => ext === '*' || file.toLowerCase().endsWith(`.${ext}`));
}

const FILES = ['app.gcdump', 'trace.nettrace', 'heap.log', 'crash.dmp', 'app.core', 'core.4242', 'core_20261125_185200', 'coredump.77'];

describe('the Open dialog filters', () => {
  it('the default filter on Windows and macOS shows snapshots and .dmp/.core dumps; a dump filter has just those', () => {
    for (const platform of ['win32', 'darwin'] as const) {
      const filters = openDialogFilters(platform);
      expect(FILES.filter((f) => shows(filters[0], f))).toEqual(['app.gcdump', 'trace.nettrace', 'heap.log', 'crash.dmp', 'app.core']);
      const dumps = filters.find((f) => f.name.startsWith('Process dumps'))!;
      expect(FILES.filter((f) => shows(dumps, f))).toEqual(['crash.dmp', 'app.core']);
      expect(filters[filters.length - 1]).toEqual({ name: 'All files', extensions: ['*'] });
    }
  });

  it('on Linux the default filter shows core files without an extension too', () => {
    const filters = openDialogFilters('linux');
    expect(FILES.filter((f) => shows(filters[0], f))).toEqual(FILES);
    expect(filters.map((f) => f.name)).toEqual(['All files', 'Heap snapshots and process dumps', 'Heap snapshots (.gcdump, .nettrace, CF heap logs)', 'Process dumps (.dmp, .core)']);
  });
});

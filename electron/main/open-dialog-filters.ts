/**
 * The filters of the native Open dialog. Every format is detected by content, so the filters only
 * help finding files: snapshots (.gcdump, .nettrace, CF heap logs .log/.txt) and process dumps
 * (.dmp minidumps, .core). Linux core dumps are usually named without an extension (core,
 * core.<pid>, core_<date>_<time> from dotnet-dump, coredump.<pid> from createdump), which an
 * extension filter cannot match: on Linux "All files" comes first, so they show by default.
 */
export interface DialogFilter {
  name: string;
  extensions: string[];
}

export const SNAPSHOT_EXTENSIONS = ['gcdump', 'nettrace', 'log', 'txt'];
export const DUMP_EXTENSIONS = ['dmp', 'core'];

export function openDialogFilters(platform: NodeJS.Platform): DialogFilter[] {
  const all: DialogFilter = { name: 'All files', extensions: ['*'] };
  const known: DialogFilter[] = [
    { name: 'Heap snapshots and process dumps', extensions: [...SNAPSHOT_EXTENSIONS, ...DUMP_EXTENSIONS] },
    { name: 'Heap snapshots (.gcdump, .nettrace, CF heap logs)', extensions: SNAPSHOT_EXTENSIONS },
    { name: 'Process dumps (.dmp, .core)', extensions: DUMP_EXTENSIONS },
  ];
  return platform === 'linux' ? [all, ...known] : [...known, all];
}

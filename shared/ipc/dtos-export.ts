import type { MonitorId, SessionId, SessionReq, SortSpec } from './dtos-session.js';
import type { DiffSortKey, ObjectSortKey, PathsTarget, TypeSortKey } from './dtos-views.js';
import type { StringSortKey } from './dtos-strings.js';

/** Contract DTOs (see contract.ts for the rules) of CSV export and "save snapshot as". */

// ---------------------------------------------------------------- export

/** Export of a session's view: all rows (not only the visible window), with the view's current sort and filter. */
export type SessionExportReq = SessionReq &
  (
    | { view: 'types'; sort: SortSpec<TypeSortKey>; filter?: string }
    | { view: 'objects'; typeIndex: number; sort: SortSpec<ObjectSortKey>; filter?: string; generation?: number; valueId?: number }
    | { view: 'dominators'; node: number | null }
    | { view: 'diff'; baselineSessionId: SessionId; sort: SortSpec<DiffSortKey>; filter?: string; changedOnly?: boolean }
    | { view: 'generations' }
    /** Every GC of a trace; the columns and numbers of `heapscope gc-timeline --format csv`. */
    | { view: 'gc-timeline' }
    /** The paths-to-roots view; the columns of `heapscope paths --format csv` (steps for an object, branches for a type). */
    | { view: 'paths'; target: PathsTarget; maxPaths?: number }
    /** Duplicate strings of a process dump; the columns of `heapscope strings --format csv`. */
    | { view: 'strings'; sort: SortSpec<StringSortKey>; filter?: string; minCount?: number }
  );

/** `gc-monitor`: the rows a live GC monitor still holds, in the gc-timeline layout. */
export type ExportCsvReq = SessionExportReq | { view: 'gc-monitor'; monitorId: MonitorId };

export interface ExportResult {
  /** 'saved': written where the user chose (Electron); 'downloaded': handed to the browser; 'cancelled': dialog dismissed. */
  outcome: 'saved' | 'downloaded' | 'cancelled';
  rows: number;
  bytes: number;
  fileName: string;
  /** Browser mode only: where the bridge fetches the file from (token-protected, one use). */
  downloadUrl?: string;
}

/** "Save snapshot as…": a copy of the session's file (a capture's .gcdump, or the file it was opened from). */
export interface SaveSnapshotResult {
  outcome: 'saved' | 'downloaded' | 'cancelled';
  bytes: number;
  fileName: string;
  downloadUrl?: string;
}

import type { IgnoredSummary } from './dtos-what-if.js';
import type { SnapshotMetadata } from '../graph/metadata.js';
import type { AppErrorDto } from './result.js';

/**
 * Contract DTOs (see contract.ts for the rules): the id types, row windows, files, sessions and the
 * snapshot summary. Import from contract.ts; this file only keeps the contract readable.
 */

declare const brand: unique symbol;
/** Opaque handle for a file that main/the server has validated; the UI cannot forge paths. */
export type FileToken = string & { readonly [brand]: 'FileToken' };
/** One opened snapshot, pinned to one worker. */
export type SessionId = string & { readonly [brand]: 'SessionId' };
/** One live GC monitor of a running .NET process (lives in main, not in a worker). */
export type MonitorId = string & { readonly [brand]: 'MonitorId' };

export type SortDir = 'asc' | 'desc';
export interface SortSpec<K extends string> {
  key: K;
  dir: SortDir;
}

/** A window of rows: `rows` are positions [start, end) of `total` rows (after filtering). */
export interface RowWindow<T> {
  start: number;
  end: number;
  total: number;
  rows: T[];
  /** Only when the request had `locate`: that row's number in the whole order, -1 if not in it. */
  located?: number;
}

export interface SessionReq {
  sessionId: SessionId;
}
export interface WindowReq extends SessionReq {
  /** First row wanted (0-based). */
  start: number;
  /** First row NOT wanted (AG Grid's endRow); clipped to total. At most 10,000 rows per call. */
  end: number;
}

// ---------------------------------------------------------------- files

/** 'capture': a .gcdump Heapscope wrote itself from a live process (in its capture cache directory). */
export type FileSource = 'dialog' | 'drop' | 'command-line' | 'open-file' | 'recent' | 'sample' | 'upload' | 'path' | 'capture';
export type FileFormatHint = 'gcdump' | 'nettrace' | 'cf-heaplog' | null;

/** A file the back end is willing to open. `displayPath` is for showing only (tooltips), never sent back. */
export interface FileEntry {
  token: FileToken;
  name: string;
  displayPath: string;
  size: number;
  /** Last modification time, ms since the epoch (0 when unknown). */
  modifiedMs: number;
  source: FileSource;
  /** By extension, for icons only; the reader decides by content. */
  formatHint: FileFormatHint;
  /** False for a recent file that has since disappeared (opening it fails with io/not-found). */
  exists: boolean;
  /** Recent files only: when the user last opened it, ms since the epoch (the list shows this, not modifiedMs). */
  openedAt?: number;
}

export interface AppInfo {
  version: string;
  mode: 'electron' | 'browser';
  /** process.platform of the back end ('linux', 'darwin', 'win32'). */
  platform: string;
  /** A native open dialog exists (`pickFile`); false in browser mode. */
  canPickFile: boolean;
  /** `registerPath({via: 'typed'})` is allowed (browser mode: the server's own "open path" box). */
  canTypePath: boolean;
  /** Dropped files are uploaded (browser mode) rather than referred to by path (Electron). */
  uploadsDroppedFiles: boolean;
  sample: FileEntry | null;
}

export interface FileLists {
  /** Files named on the command line (`heapscope serve A B`, Electron argv). */
  commandLine: FileEntry[];
  /** Most recent first, at most 20. */
  recent: FileEntry[];
  sample: FileEntry | null;
}

// ---------------------------------------------------------------- sessions and summary

export type SessionState = 'loading' | 'ready' | 'failed';
export type AnalysisState = 'pending' | 'running' | 'done' | 'failed' | 'cancelled';

export interface SessionInfo {
  sessionId: SessionId;
  file: FileEntry;
  state: SessionState;
}

/**
 * The snapshot's own metadata (shared/graph/metadata.ts, documented there) minus what stays in the
 * worker: segments, COM interop, per-type multipliers and the collection log.
 */
export type SnapshotMetadataDto = Pick<
  SnapshotMetadata,
  | 'format'
  | 'formatVersion'
  | 'creationTool'
  | 'processName'
  | 'processId'
  | 'machineName'
  | 'timeCollected'
  | 'pointerSize'
  | 'averageCountMultiplier'
  | 'averageSizeMultiplier'
  | 'totalProcessCommit'
  | 'totalProcessWorkingSet'
  | 'declaredTotalSize'
  | 'extra'
>;

export interface CodedMessage {
  code: string;
  message: string;
}

export interface SizeCount {
  count: number;
  size: number;
}

/** Everything the status bar and the summary panel show; re-sent when the analysis finishes. */
export interface SnapshotSummary {
  sessionId: SessionId;
  file: FileEntry;
  metadata: SnapshotMetadataDto;
  nodeCount: number;
  edgeCount: number;
  typeCount: number;
  /** Heap objects (pseudo and undefined nodes excluded) and Σ their sizes, as stored in the file. */
  objects: SizeCount;
  /** Estimate of the real heap: equals `objects` unless the dump is sampled. */
  estimated: SizeCount;
  sampled: boolean;
  hasGenerations: boolean;
  /** Root categories with their reference counts, e.g. "[static vars]", "[other roots]/[strong Handles]". */
  rootsByCategory: { category: string; count: number }[];
  /** Facts to know before trusting the numbers (codes: sampled, node-cap, undefined-nodes, size-mismatch, problems, dependent-roots). */
  warnings: CodedMessage[];
  /** Data problems found while reading: exact counts per code, first 100 messages. */
  problems: { total: number; counts: Record<string, number>; entries: CodedMessage[] };
  analysis: { state: AnalysisState; error: AppErrorDto | null; ms: number | null };
  /**
   * Heap objects reachable from the roots, objects no root reaches (garbage or held only by weak
   * handles), and frozen (non-GC heap) objects no root reaches (never collected, so not garbage):
   * the three add up to `objects`. Pseudo and undefined nodes are in none. Null until the analysis
   * is done.
   */
  reachable: SizeCount | null;
  unreachable: SizeCount | null;
  unreachableFrozen: SizeCount | null;
  /**
   * "What if" (issue 16): the references this tab ignores; every analysis figure above and every
   * view then comes from the analysis recomputed without them. Absent or null: none ignored.
   */
  ignored?: IgnoredSummary | null;
  /** Nodes that are not heap objects, reported apart as `heapscope info` does. */
  pseudoNodeCount: number;
  undefinedNodeCount: number;
  /** Wall time of reading + parsing, ms. */
  parseMs: number;
  /**
   * True in `session-preliminary`'s summary: the type table's counts and sizes (objects,
   * typeCount) come from the dump helper's stats pass while the graph is still being read; the
   * graph figures (nodeCount, edgeCount, roots, problems) are 0 or empty until `session-ready`
   * replaces it. Absent otherwise.
   */
  preliminary?: boolean;
}

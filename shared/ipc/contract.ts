import type { AppErrorDto, Result } from './result.js';

/**
 * The one typed contract between the UI and the back end (ARCHITECTURE §9.8).
 *
 * Three transports speak it unchanged: Electron (preload ⇄ ipcMain), browser mode (ws-bridge ⇄
 * WebSocket server) and tests (direct calls). Rules:
 * - every method takes ONE named-field object and returns a Promise of a `Result` (errors are data);
 * - nothing proportional to the heap crosses: grids ask for windows `[start, end)` with a sort and
 *   a filter and get `{start, end, total, rows}` back;
 * - the UI never sends a path it made up: files are chosen in main (dialog, drop, command line,
 *   recent list, sample) and referred to by an opaque `FileToken`;
 * - node ordinals (`node`) and `typeIndex` are session-local: never reuse them across sessions.
 *
 * The runtime list of methods lives in methods.ts and is checked against this interface both ways.
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
}

interface SessionReq {
  sessionId: SessionId;
}
interface WindowReq extends SessionReq {
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

export interface SnapshotMetadataDto {
  format: string;
  formatVersion: string | null;
  creationTool: string | null;
  processName: string | null;
  processId: number;
  machineName: string | null;
  timeCollected: string | null;
  pointerSize: number;
  averageCountMultiplier: number;
  averageSizeMultiplier: number;
  totalProcessCommit: number;
  totalProcessWorkingSet: number;
  declaredTotalSize: number | null;
  extra: Record<string, string | number>;
}

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
  /** Facts to know before trusting the numbers (codes: sampled, node-cap, undefined-nodes, size-mismatch, problems). */
  warnings: CodedMessage[];
  /** Data problems found while reading: exact counts per code, first 100 messages. */
  problems: { total: number; counts: Record<string, number>; entries: CodedMessage[] };
  analysis: { state: AnalysisState; error: AppErrorDto | null; ms: number | null };
  /** Objects reachable / unreachable from the roots; null until the analysis is done. */
  reachable: SizeCount | null;
  unreachable: SizeCount | null;
  /** Wall time of reading + parsing, ms. */
  parseMs: number;
}

// ---------------------------------------------------------------- rows

export type TypeSortKey = 'type' | 'module' | 'count' | 'shallowSize' | 'retainedSize' | 'scaledCount' | 'scaledShallowSize';

/** Filter: case-insensitive substring of the type name (or of the module name). */
export interface TypeRowsReq extends WindowReq {
  sort: SortSpec<TypeSortKey>;
  filter?: string;
}

export interface TypeRow {
  typeIndex: number;
  type: string;
  module: string | null;
  count: number;
  shallowSize: number;
  /** Σ retained size of the type's objects without double counting nested ones; null until the analysis is done. */
  retainedSize: number | null;
  /** Scaled estimates of a sampled dump; null when not sampled. */
  scaledCount: number | null;
  scaledShallowSize: number | null;
  /** shallowSize / Σ shallow of all objects × 100. */
  shallowPercent: number;
  /** retainedSize / Σ shallow of all objects × 100; null until the analysis is done. */
  retainedPercent: number | null;
}

export type ObjectSortKey = 'address' | 'size' | 'retainedSize' | 'generation';

/** Instances of one type. Filter: case-insensitive substring of the hex address ("7f3a", "0x7f3a"). */
export interface ObjectRowsReq extends WindowReq {
  typeIndex: number;
  sort: SortSpec<ObjectSortKey>;
  filter?: string;
  /** Only objects of this generation (0–4, 255 = unknown). */
  generation?: number;
}

export interface ObjectRow {
  node: number;
  /** 0x-prefixed hex. */
  address: string;
  size: number;
  retainedSize: number | null;
  /** 'gen0' | 'gen1' | 'gen2' | 'LOH' | 'POH', or null when unknown. */
  generation: string | null;
  /** Reachable from the roots; null until the analysis is done. */
  reachable: boolean | null;
}

export interface ObjectInfo {
  node: number;
  typeIndex: number;
  type: string;
  module: string | null;
  address: string;
  size: number;
  retainedSize: number | null;
  generation: string | null;
  pseudo: boolean;
  reachable: boolean | null;
  /** Immediate dominator (null for the root, unreachable objects and before the analysis). */
  dominator: number | null;
  outgoing: number;
  incoming: number;
}

export interface ReferencesReq extends WindowReq {
  node: number;
  /** 'outgoing': objects this one references; 'incoming': objects that reference it (retainers). */
  direction: 'outgoing' | 'incoming';
}

export interface ReferenceRow {
  node: number;
  typeIndex: number;
  type: string;
  address: string;
  size: number;
  retainedSize: number | null;
}

// ---------------------------------------------------------------- dominators and paths

/** Children of `node` (null = the root) in the dominator tree, largest retained size first. Waits for the analysis. */
export interface DominatorChildrenReq extends WindowReq {
  node: number | null;
}

export interface DominatorRow {
  node: number;
  typeIndex: number;
  type: string;
  address: string;
  size: number;
  retainedSize: number;
  /** retainedSize / Σ shallow of all objects × 100. */
  retainedPercent: number;
  childCount: number;
  pseudo: boolean;
}

export interface DominatorPathReq extends SessionReq {
  node: number;
}

/** Root first, `node` last: every dominator on the way (for expanding the tree to an object). */
export interface DominatorPath {
  path: DominatorRow[];
}

export type PathsTarget = { kind: 'object'; node: number } | { kind: 'type'; typeIndex: number };

export interface PathsToRootsReq extends SessionReq {
  target: PathsTarget;
  /** Paths wanted for an object, shortest included (default 5, at most 50). */
  maxPaths?: number;
}

export interface PathStepDto {
  node: number;
  type: string;
  address: string;
  size: number;
  pseudo: boolean;
}

export interface RetentionPathDto {
  /** Edges on the path. */
  length: number;
  rootCategory: string | null;
  rootDetail: string | null;
  /** Root first, target last. */
  steps: PathStepDto[];
}

/**
 * One branch of the merged "why are objects of type T alive" tree, flattened: level 0 is the type
 * itself, each child level the type of the objects holding the previous one, up to the root.
 */
export interface TypePathNode {
  id: number;
  /** Parent id, null at level 0. */
  parent: number | null;
  depth: number;
  type: string;
  /** Instances whose shortest path passes through this branch. */
  count: number;
  /** Instances whose path reaches the root at this branch. */
  endsHere: number;
  /** Instances not followed further (depth bound or size cap). */
  cutOff: number;
  /** Children not listed (breadth bound) and the instances they carry. */
  omittedBranches: number;
  omittedCount: number;
}

export type PathsToRoots =
  | { kind: 'object'; node: number; reachable: boolean; paths: RetentionPathDto[]; truncated: boolean }
  | {
      kind: 'type';
      typeIndex: number;
      type: string;
      instances: number;
      reachable: number;
      unreachable: number;
      /** Depth-first order: a parent comes before its children. */
      nodes: TypePathNode[];
      incomplete: boolean;
    };

// ---------------------------------------------------------------- generations, diff, GC timeline

export interface GenerationsReq extends SessionReq {
  /** Largest types listed per generation (default 20). */
  topTypes?: number;
}

export interface GenerationRow {
  /** 'gen0' | 'gen1' | 'gen2' | 'LOH' | 'POH' | 'unknown'. */
  generation: string;
  count: number;
  size: number;
  sizePercent: number;
  /** Largest types (by bytes) in this generation. */
  topTypes: { typeIndex: number; type: string; count: number; size: number }[];
}

export interface Generations {
  hasData: boolean;
  /** Why there are no rows (no generation data in the file), else null. */
  message: string | null;
  /** Six rows (gen0, gen1, gen2, LOH, POH, unknown) when the file has generation data, else []. */
  rows: GenerationRow[];
  /** Objects of at least `threshold` bytes (85,000: the runtime's LOH threshold), whatever the file says. */
  largeBySize: { count: number; size: number; threshold: number };
  objects: SizeCount;
}

export type DiffSortKey =
  | 'type'
  | 'count'
  | 'baselineCount'
  | 'countDelta'
  | 'shallowSize'
  | 'baselineShallowSize'
  | 'shallowDelta'
  | 'retainedSize'
  | 'baselineRetainedSize'
  | 'retainedDelta';

/**
 * Type-level diff of this session against `baselineSessionId`, keyed by type NAME (objects cannot
 * be matched across dumps). Waits for the analysis of both sessions (retained columns). Filter:
 * case-insensitive substring of the type name.
 */
export interface DiffReq extends WindowReq {
  baselineSessionId: SessionId;
  sort: SortSpec<DiffSortKey>;
  filter?: string;
  /** Only types whose count, shallow or retained size changed (default false). */
  changedOnly?: boolean;
}

export interface DiffNumbers {
  count: number;
  baselineCount: number;
  countDelta: number;
  shallowSize: number;
  baselineShallowSize: number;
  shallowDelta: number;
  retainedSize: number;
  baselineRetainedSize: number;
  retainedDelta: number;
}

export interface DiffRow extends DiffNumbers {
  type: string;
  module: string | null;
  /** 'added': only in this session; 'removed': only in the baseline. */
  status: 'both' | 'added' | 'removed';
}

export interface DiffWindow extends RowWindow<DiffRow> {
  /** Whole heaps (all types, unfiltered); retained = bytes reachable from the roots. */
  totals: DiffNumbers;
  added: number;
  removed: number;
}

/** One garbage collection of a trace (shared/analysis/gc-timeline.ts). */
export interface GcEventDto {
  /** The runtime's GC number. */
  index: number;
  /** Condemned generation 0, 1, 2. */
  generation: number;
  reason: string;
  /** 'NonConcurrent' | 'Background' | 'Foreground'. */
  kind: string;
  /** ms since the trace's start. */
  startMs: number;
  durationMs: number | null;
  /** Time the program was suspended for this GC; null when no suspension was seen. */
  pauseMs: number | null;
  /** Not in GC events (always null today; kept for the chart's scale). */
  heapSizeBefore: number | null;
  /** Σ sizesAfter, null without GCHeapStats. */
  heapSizeAfter: number | null;
  /** Bytes after the GC: gen0, gen1, gen2, LOH, POH; null without GCHeapStats. */
  sizesAfter: number[] | null;
  promotedBytes: number | null;
  mode: 'compacting' | 'sweeping' | null;
}

export interface GcTimelineSummaryDto {
  gcCount: number;
  /** GCs per condemned generation 0, 1, 2. */
  byGeneration: number[];
  induced: number;
  pause: { count: number; totalMs: number; p50: number; p90: number; p99: number; max: number };
  traceDurationMs: number;
  /** Σ GC pauses / trace duration × 100. */
  pausedPercent: number;
}

export interface GcTimeline {
  /** False for snapshots without GC events (.gcdump, CF logs); `reason` says why. */
  available: boolean;
  reason: string | null;
  events: GcEventDto[];
  summary: GcTimelineSummaryDto | null;
}

// ---------------------------------------------------------------- live processes: capture and GC monitor

/** A running .NET process with a diagnostics endpoint this user can open (`listProcesses`). */
export interface DotnetProcessInfo {
  pid: number;
  /** Entry assembly (from the runtime's ProcessInfo), else the OS process name; null when unknown. */
  name: string | null;
  /** CLR version reported by the runtime ("10.0.0"); null when the process did not answer. */
  runtimeVersion: string | null;
  commandLine: string | null;
  /** Why the runtime did not answer ProcessInfo (it may still be capturable), else null. */
  note: string | null;
}

/**
 * Capture a heap snapshot of `pid` (what dotnet-gcdump does, no .NET tool needed). Resolves at once
 * with a loading session; `capture-progress` events follow, then `session-ready` as for a file.
 * Fails at once with process/not-found or process/not-dotnet; later failures (process/exited,
 * process/timeout, process/denied, cancelled) arrive as `session-failed`. `cancel({sessionId})`
 * stops the capture. The snapshot is saved as a .gcdump in the app's capture cache (the session's
 * `file`, source 'capture'), so it can be reopened, diffed and saved elsewhere (`saveSnapshot`).
 */
export interface CaptureReq {
  pid: number;
  /** Overall limit (default 60 s, at most 600). */
  timeoutSec?: number;
}

/** 'saving' (writing the .gcdump) follows the collector's own phases. */
export type CapturePhase = 'connecting' | 'flushing types' | 'walking heap' | 'reading rundown' | 'building graph' | 'saving';

/** A GC monitor: started by `startGcMonitor`, rows streamed by `gc-monitor-rows`. */
export interface GcMonitorInfo {
  monitorId: MonitorId;
  pid: number;
  name: string | null;
  runtimeVersion: string | null;
  /** Epoch ms when the EventPipe session started. */
  startedAt: number;
  /** Rows kept by the back end (oldest dropped first); `gcMonitorRows` and the CSV export see these. */
  maxRows: number;
}

export type GcMonitorStopReason = 'user' | 'exited' | 'failed';

export interface GcMonitorStatus {
  monitorId: MonitorId;
  pid: number;
  state: 'running' | 'stopped';
  stopReason: GcMonitorStopReason | null;
  error: AppErrorDto | null;
  /** GCs seen since the start; row positions are 0…total−1. */
  total: number;
  /** Positions before this one were dropped from the bounded buffer. */
  firstKept: number;
  /** Over every GC seen (not only the kept rows); durations are since the monitor started. */
  summary: GcTimelineSummaryDto;
}

/** Rows [start, end) by absolute position; positions already dropped are skipped (`start` of the answer says where it begins). */
export interface GcMonitorRowsReq {
  monitorId: MonitorId;
  start: number;
  end: number;
}

// ---------------------------------------------------------------- export

export type ExportView = 'types' | 'objects' | 'dominators' | 'diff' | 'generations' | 'gc-timeline' | 'paths' | 'gc-monitor';

/** Export of a session's view: all rows (not only the visible window), with the view's current sort and filter. */
export type SessionExportReq = SessionReq &
  (
    | { view: 'types'; sort: SortSpec<TypeSortKey>; filter?: string }
    | { view: 'objects'; typeIndex: number; sort: SortSpec<ObjectSortKey>; filter?: string; generation?: number }
    | { view: 'dominators'; node: number | null }
    | { view: 'diff'; baselineSessionId: SessionId; sort: SortSpec<DiffSortKey>; filter?: string; changedOnly?: boolean }
    | { view: 'generations' }
    /** Every GC of a trace; the columns and numbers of `heapscope gc-timeline --format csv`. */
    | { view: 'gc-timeline' }
    /** The paths-to-roots view; the columns of `heapscope paths --format csv` (steps for an object, branches for a type). */
    | { view: 'paths'; target: PathsTarget; maxPaths?: number }
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

// ---------------------------------------------------------------- the API

/**
 * Every call the UI can make. Each takes ONE object and resolves to a Result (never rejects).
 *
 * Loading is two-phase: `open` returns a sessionId at once; progress arrives as `load-progress`
 * events; `summary` resolves when parsing is done (type rows work from then on); the dominator
 * analysis continues in the background and `summary-updated` announces retained sizes.
 */
export interface HeapscopeApi {
  /** Mode and capabilities of this back end (Electron or browser mode). */
  appInfo(req: Record<string, never>): Promise<Result<AppInfo>>;
  /** Command-line files, recent files and the bundled sample, each with a token. */
  listFiles(req: Record<string, never>): Promise<Result<FileLists>>;
  /** Files main was asked to open before the UI was ready (argv, macOS open-file); drained by the call. */
  takePendingOpens(req: Record<string, never>): Promise<Result<FileEntry[]>>;
  /** Native open dialog (Electron only); null when the user cancels. */
  pickFile(req: Record<string, never>): Promise<Result<FileEntry | null>>;
  /**
   * A token for a path: 'drop' = from webUtils.getPathForFile (Electron), 'typed' = the browser-mode
   * "open path" box (refused in Electron). Main checks it is an existing readable snapshot file.
   */
  registerPath(req: { path: string; via: 'drop' | 'typed' }): Promise<Result<FileEntry>>;
  removeRecent(req: { fileToken: FileToken }): Promise<Result<void>>;
  clearRecent(req: Record<string, never>): Promise<Result<void>>;

  /** Start loading a file in a worker. Resolves at once; watch `load-progress` and await `summary`. */
  open(req: { fileToken: FileToken; select?: string }): Promise<Result<SessionInfo>>;
  listSessions(req: Record<string, never>): Promise<Result<SessionInfo[]>>;
  /** Waits until parsing is done; fails with the load's error (format/*, cancelled, worker/crashed). */
  summary(req: SessionReq): Promise<Result<SnapshotSummary>>;
  /** Stop the session's load: during parsing the session fails with `cancelled` and closes; during the analysis only the analysis stops. */
  cancel(req: SessionReq): Promise<Result<void>>;
  /** Close and free the session's memory; emits `session-closed {reason: 'user'}`. */
  close(req: SessionReq): Promise<Result<void>>;

  typeRows(req: TypeRowsReq): Promise<Result<RowWindow<TypeRow>>>;
  objectRows(req: ObjectRowsReq): Promise<Result<RowWindow<ObjectRow>>>;
  objectInfo(req: { sessionId: SessionId; node: number }): Promise<Result<ObjectInfo>>;
  references(req: ReferencesReq): Promise<Result<RowWindow<ReferenceRow>>>;
  dominatorChildren(req: DominatorChildrenReq): Promise<Result<RowWindow<DominatorRow>>>;
  dominatorPath(req: DominatorPathReq): Promise<Result<DominatorPath>>;
  pathsToRoots(req: PathsToRootsReq): Promise<Result<PathsToRoots>>;
  generations(req: GenerationsReq): Promise<Result<Generations>>;
  diff(req: DiffReq): Promise<Result<DiffWindow>>;
  gcTimeline(req: SessionReq): Promise<Result<GcTimeline>>;
  /** Electron: save dialog, then streamed to disk. Browser mode: the bridge downloads the file. */
  exportCsv(req: ExportCsvReq): Promise<Result<ExportResult>>;
  /** Copy the session's snapshot file where the user chooses (save dialog / download). */
  saveSnapshot(req: SessionReq): Promise<Result<SaveSnapshotResult>>;

  /** .NET processes that can be captured or monitored, by pid. */
  listProcesses(req: Record<string, never>): Promise<Result<DotnetProcessInfo[]>>;
  /** Capture a heap snapshot of a live process into a new session (see CaptureReq). */
  captureProcess(req: CaptureReq): Promise<Result<SessionInfo>>;
  /** Start a live GC timeline of `pid`; resolves once the runtime accepted the EventPipe session. */
  startGcMonitor(req: { pid: number }): Promise<Result<GcMonitorInfo>>;
  /** Stop it (idempotent); resolves with the final status (`gc-monitor-stopped` is also sent). */
  stopGcMonitor(req: { monitorId: MonitorId }): Promise<Result<GcMonitorStatus>>;
  /** Kept rows by position (to catch up after missed events). At most 10,000 per call. */
  gcMonitorRows(req: GcMonitorRowsReq): Promise<Result<RowWindow<GcEventDto>>>;
  gcMonitorStatus(req: { monitorId: MonitorId }): Promise<Result<GcMonitorStatus>>;
}

export type MethodName = keyof HeapscopeApi;
export type ApiRequest<M extends MethodName> = Parameters<HeapscopeApi[M]>[0];
export type ApiValue<M extends MethodName> = Awaited<ReturnType<HeapscopeApi[M]>> extends Result<infer T> ? T : never;

/** What a back end implements: plain values and throws; transports wrap them into Results. */
export type HeapscopeService = { [M in MethodName]: (req: ApiRequest<M>) => Promise<ApiValue<M>> };

// ---------------------------------------------------------------- events

export type MenuCommand =
  | 'open-file'
  | 'open-sample'
  | 'close-tab'
  | 'export-csv'
  | 'find'
  | 'next-tab'
  | 'previous-tab'
  | 'show-types'
  | 'show-dominators'
  | 'show-generations'
  | 'show-diff'
  | 'capture-process'
  | 'monitor-gcs'
  | 'save-snapshot'
  | 'about';

/** Pushed from the back end; subscribe with `heapscope.on(name, cb)` (returns an unsubscribe). */
export interface HeapscopeEvents {
  /** stage 'parse' then 'analysis'; phase names come from the readers/analyses ('parse', 'retainers', 'dominators', …); total 0 = unknown. */
  'load-progress': { sessionId: SessionId; stage: 'parse' | 'analysis'; phase: string; done: number; total: number };
  /** Parsing done: type rows, objects and generations can be queried. */
  'session-ready': { sessionId: SessionId; summary: SnapshotSummary };
  /** The analysis finished (or failed / was cancelled): retained sizes and reachability filled in. */
  'summary-updated': { sessionId: SessionId; summary: SnapshotSummary };
  /** Loading failed (bad file, cancelled during parsing, out of memory); the session is gone. */
  'session-failed': { sessionId: SessionId; error: AppErrorDto };
  'session-closed': { sessionId: SessionId; reason: 'user' | 'worker-crashed' };
  /** A capture's progress (before `session-ready`): collector phase, trace bytes received so far. */
  'capture-progress': { sessionId: SessionId; pid: number; phase: CapturePhase; bytes: number; elapsedMs: number };
  /** New GCs of a live monitor, batched (about 4 per second): rows at positions from…from+rows.length−1. */
  'gc-monitor-rows': { monitorId: MonitorId; from: number; rows: GcEventDto[]; total: number; summary: GcTimelineSummaryDto };
  /** The monitor ended: stopped by the user, the process exited, or the session failed. */
  'gc-monitor-stopped': { monitorId: MonitorId; status: GcMonitorStatus };
  /** Main wants this file opened (argv of a second instance, macOS open-file, File ▸ Recent). */
  'open-requested': { file: FileEntry };
  'menu-command': { command: MenuCommand };
  /** Some request has been pending for more than 300 ms (spinner), or none is any more. */
  busy: { busy: boolean };
}

export type EventName = keyof HeapscopeEvents;

/** Minimal shape of a dropped DOM File (shared/ has no DOM lib). */
export interface DroppedFileLike {
  readonly name: string;
  readonly size: number;
}

/**
 * `window.heapscope`: installed by the preload (Electron) or by renderer/api/ws-bridge.ts (browser
 * mode), with exactly this shape.
 */
export type HeapscopeBridge = HeapscopeApi & {
  readonly mode: 'electron' | 'browser';
  on<E extends EventName>(event: E, listener: (payload: HeapscopeEvents[E]) => void): () => void;
  /** A token for a file dropped on the window: path via webUtils (Electron) or an upload (browser mode). */
  fileFromDrop(file: DroppedFileLike): Promise<Result<FileEntry>>;
};

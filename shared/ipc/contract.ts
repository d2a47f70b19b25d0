import type { CaptureDumpReq, CaptureDumpResult } from './dtos-live.js';
import type { CapturePhase, CaptureReq, DotnetProcessInfo, GcMonitorInfo, GcMonitorRowsReq, GcMonitorStatus } from './dtos-live.js';
import type { ExportCsvReq, ExportResult, SaveSnapshotResult } from './dtos-export.js';
import type { AppInfo, FileEntry, FileLists, FileToken, MonitorId, RowWindow, SessionId, SessionInfo, SessionReq, SnapshotSummary } from './dtos-session.js';
import type {
  AddressLookup,
  DiffReq,
  DiffWindow,
  DominatorChildrenReq,
  DominatorPath,
  DominatorPathReq,
  DominatorRow,
  GcEventDto,
  GcTimeline,
  GcTimelineSummaryDto,
  Generations,
  GenerationsReq,
  ObjectInfo,
  ObjectRow,
  ObjectRowsReq,
  PathsToRoots,
  PathsToRootsReq,
  ReferenceRow,
  SetRetainedReq,
  SetRetainedResult,
  ReferencesReq,
  TrendReq,
  TrendResult,
  TypeRow,
  TypeRowsReq,
} from './dtos-views.js';
import type { DominatorTypeGroupRow, DominatorTypeGroupsReq, DominatorTypeInstancesReq, RetainedBy, RetainedByObjectRow, RetainedByObjectsReq, RetainedByReq } from './dtos-dominator-groups.js';
import type { ExportReportReq, ExportReportResult, Inspections, InspectionsReq } from './dtos-inspections.js';
import type { DominatorSunburst, DominatorSunburstReq } from './dtos-sunburst.js';
import type { SetIgnoredReq } from './dtos-what-if.js';
import type { StringInstancesReq, StringRow, StringRowsReq } from './dtos-strings.js';
import type { DumpObject, DumpObjectReq, DumpRuntimeInfo, DumpThreads } from './dtos-dump.js';
import type { DominatorTrendResult, TrendDominatorsReq } from './dtos-growth.js';
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
 *
 * The DTOs live in dtos-session.ts (ids, files, sessions, summary), dtos-views.ts (rows and the
 * analysis views), dtos-live.ts (capture, GC monitor) and dtos-export.ts; they are re-exported
 * here, so import everything from this file.
 */
export type * from './dtos-session.js';
export type * from './dtos-views.js';
export type * from './dtos-live.js';
export type * from './dtos-export.js';
export type * from './dtos-dominator-groups.js';
export type * from './dtos-inspections.js';
export type * from './dtos-sunburst.js';
export type * from './dtos-what-if.js';
export type * from './dtos-strings.js';
export type * from './dtos-dump.js';
export type * from './dtos-growth.js';

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
   * "open path" box (refused in Electron), 'restore' = a tab of the saved session reopening its
   * file by the path the back end showed for it earlier (both modes; a known path keeps its source).
   * Main checks it is an existing readable snapshot file.
   */
  registerPath(req: { path: string; via: 'drop' | 'typed' | 'restore' }): Promise<Result<FileEntry>>;
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
  /**
   * Go to address, heap-wide: the object at `address` (hex, `0x` optional; a CF heap log's object
   * id), else the object containing it; null when there is none. Does not wait for the analysis.
   */
  objectAtAddress(req: { sessionId: SessionId; address: string }): Promise<Result<AddressLookup | null>>;
  dominatorChildren(req: DominatorChildrenReq): Promise<Result<RowWindow<DominatorRow>>>;
  dominatorPath(req: DominatorPathReq): Promise<Result<DominatorPath>>;
  pathsToRoots(req: PathsToRootsReq): Promise<Result<PathsToRoots>>;
  generations(req: GenerationsReq): Promise<Result<Generations>>;
  diff(req: DiffReq): Promise<Result<DiffWindow>>;
  /**
   * Types growing at every step over 2–32 sessions, oldest first (the CLI's `trend`): main gathers
   * each session's per-type summary (waits for each analysis) and compares them; all growing rows.
   */
  trend(req: TrendReq): Promise<Result<TrendResult>>;
  /**
   * Growth suspects at dominator level over 2–32 sessions, oldest first (the CLI's
   * `trend --dominators`): each session's worker lists its retainers, main matches them by
   * signature (a heuristic identity). Waits for each analysis.
   */
  trendDominators(req: TrendDominatorsReq): Promise<Result<DominatorTrendResult>>;
  gcTimeline(req: SessionReq): Promise<Result<GcTimeline>>;
  /**
   * Set retained sizes of some types (bytes freed when every instance goes): up to one walk over the
   * reachable graph per type not computed before, in the session's worker, between its other
   * queries. Waits for the analysis; progress as `set-retained-progress`; `cancelSetRetained`
   * stops it (the call fails with `cancelled`). Calls of one session run one after the other.
   */
  setRetained(req: SetRetainedReq): Promise<Result<SetRetainedResult>>;
  /** Cancel the session's running and queued `setRetained` calls (a no-op when none runs). */
  cancelSetRetained(req: SessionReq): Promise<Result<void>>;
  /** Electron: save dialog, then streamed to disk. Browser mode: the bridge downloads the file. */
  exportCsv(req: ExportCsvReq): Promise<Result<ExportResult>>;
  /** Copy the session's snapshot file where the user chooses (save dialog / download). */
  saveSnapshot(req: SessionReq): Promise<Result<SaveSnapshotResult>>;
  /** Export report…: the leak-suspects report as one HTML file (save dialog / download); see ExportReportReq. */
  exportReport(req: ExportReportReq): Promise<Result<ExportReportResult>>;

  /** .NET processes that can be captured or monitored, by pid. */
  listProcesses(req: Record<string, never>): Promise<Result<DotnetProcessInfo[]>>;
  /** Capture a heap snapshot of a live process into a new session (see CaptureReq). */
  captureProcess(req: CaptureReq): Promise<Result<SessionInfo>>;
  /** Have the process's runtime write a process dump into the capture folder (see CaptureDumpReq). */
  captureDump(req: CaptureDumpReq): Promise<Result<CaptureDumpResult>>;
  /** Start a live GC timeline of `pid`; resolves once the runtime accepted the EventPipe session. */
  startGcMonitor(req: { pid: number }): Promise<Result<GcMonitorInfo>>;
  /** Stop it (idempotent); resolves with the final status (`gc-monitor-stopped` is also sent). */
  stopGcMonitor(req: { monitorId: MonitorId }): Promise<Result<GcMonitorStatus>>;
  /** Kept rows by position (to catch up after missed events). At most 10,000 per call. */
  gcMonitorRows(req: GcMonitorRowsReq): Promise<Result<RowWindow<GcEventDto>>>;
  gcMonitorStatus(req: { monitorId: MonitorId }): Promise<Result<GcMonitorStatus>>;

  // Dominator tree grouped by type, "Retained by", Compute again (issue 14).
  /** Top-level rows of the dominator tree grouped by type (see DominatorTypeGroupRow). Waits for the analysis. */
  dominatorTypeGroups(req: DominatorTypeGroupsReq): Promise<Result<RowWindow<DominatorTypeGroupRow>>>;
  /** A type group's outermost instances, largest retained first; expand them with `dominatorChildren`. */
  dominatorTypeInstances(req: DominatorTypeInstancesReq): Promise<Result<RowWindow<DominatorRow>>>;
  /** A type's reachable instances grouped by the type of their immediate dominator. Waits for the analysis. */
  retainedBy(req: RetainedByReq): Promise<Result<RetainedBy>>;
  /** The dominator objects behind one `retainedBy` row, most retained first. */
  retainedByObjects(req: RetainedByObjectsReq): Promise<Result<RowWindow<RetainedByObjectRow>>>;
  /** Known leak patterns with exact retained bytes (the CLI's `inspect`), top N per inspection. Waits for the analysis. */
  inspections(req: InspectionsReq): Promise<Result<Inspections>>;
  /** The dominator tree's top rings below a center, small children folded into "n others" (the Sunburst view). Waits for the analysis. */
  dominatorSunburst(req: DominatorSunburstReq): Promise<Result<DominatorSunburst>>;
  /**
   * Run the dominator analysis of an open session again after it was cancelled or failed. Resolves
   * with the summary (analysis 'running') once it has started; `summary-updated` announces the
   * end as after a load. A no-op returning the summary when the analysis is running or done.
   */
  computeAgain(req: SessionReq): Promise<Result<SnapshotSummary>>;
  /**
   * "What if" (issue 16): replace the session's ignore list and recompute dominators, retained
   * sizes and everything built on them without those references (the original analysis is kept).
   * Resolves with the summary once the recompute has started (analysis 'running', `ignored` set);
   * `summary-updated` announces its end, progress comes as `load-progress` (stage 'analysis'), and
   * `cancel` stops it. `rules: []` restores the original analysis at once. Waits for the original
   * analysis; a rule naming no node, type or reference of this snapshot fails with usage/bad-argument.
   */
  setIgnored(req: SetIgnoredReq): Promise<Result<SnapshotSummary>>;

  // Duplicate strings of process dumps (issue 15); other sessions fail with strings/needs-dump.
  /** Distinct reachable string values with their copies, total and wasted bytes. Waits for the analysis. */
  stringRows(req: StringRowsReq): Promise<Result<RowWindow<StringRow>>>;
  /** The reachable string objects holding one value, in address order. Waits for the analysis. */
  stringInstances(req: StringInstancesReq): Promise<Result<RowWindow<ObjectRow>>>;

  // Inside process dumps (issue 15): answered by the tab's dump reader (one per dump tab, kept
  // while the tab is open), not by the graph. Other tabs fail with dump/not-a-dump.
  /** CLR version, DAC, pointer size, AppDomains, modules of a dump tab (the CLI's `runtime`). */
  dumpRuntime(req: SessionReq): Promise<Result<DumpRuntimeInfo>>;
  /** Managed threads with stacks and the objects each frame roots (the CLI's `threads`). */
  dumpThreads(req: SessionReq): Promise<Result<DumpThreads>>;
  /** One object's fields and values read from the dump (the CLI's `object`); object/not-found for a non-object address. */
  dumpObject(req: DumpObjectReq): Promise<Result<DumpObject>>;
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
  | 'go-to-address'
  | 'about';

/** Pushed from the back end; subscribe with `heapscope.on(name, cb)` (returns an unsubscribe). */
export interface HeapscopeEvents {
  /** stage 'parse' then 'analysis'; phase names come from the readers/analyses ('parse', 'retainers', 'dominators', …); total 0 = unknown. */
  'load-progress': { sessionId: SessionId; stage: 'parse' | 'analysis'; phase: string; done: number; total: number };
  /**
   * A process dump's type table while it is still loading (summary.preliminary: counts and sizes
   * per type from the dump helper's stats pass): `typeRows` answers now, every other query waits
   * for `session-ready`, whose summary replaces this one. The session stays loading (cancel and
   * close as before); `session-failed` may still follow.
   */
  'session-preliminary': { sessionId: SessionId; summary: SnapshotSummary };
  /** Parsing done: type rows, objects and generations can be queried. */
  'session-ready': { sessionId: SessionId; summary: SnapshotSummary };
  /** The analysis finished (or failed / was cancelled): retained sizes and reachability filled in. */
  'summary-updated': { sessionId: SessionId; summary: SnapshotSummary };
  /** Loading failed (bad file, cancelled during parsing, out of memory); the session is gone. */
  'session-failed': { sessionId: SessionId; error: AppErrorDto };
  'session-closed': { sessionId: SessionId; reason: 'user' | 'worker-crashed' };
  /** A `setRetained` call's progress: types finished of `total`, `fraction` 0–1 including the type being walked. */
  'set-retained-progress': { sessionId: SessionId; done: number; total: number; fraction: number };
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

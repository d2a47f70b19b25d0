import type { SuspectsBaseline } from '../../shared/analysis/suspects/suspects-report.js';
import type { TypeSummary } from '../../shared/analysis/type-summary.js';
import type { RetainerSnapshot } from '../../shared/analysis/dominator-signatures.js';
import type { AppErrorDto } from '../../shared/errors.js';
import type {
  ApiRequest,
  ApiValue,
  DiffReq,
  DiffWindow,
  ExportReportReq,
  FileEntry,
  HeapscopeEvents,
  SessionExportReq,
  SessionId,
  SetIgnoredReq,
  SetRetainedReq,
  SetRetainedResult,
  SnapshotSummary,
} from '../../shared/ipc/contract.js';

/**
 * The typed RPC between main (electron/host) and a snapshot worker.
 *
 *   main → worker   { type: 'call', id, method, arg }      { type: 'cancel', id }
 *   worker → main   { type: 'result', id, ok, value | error }   { type: 'event', name, payload }
 *                   { type: 'started' } once, when it listens
 *
 * Worker methods reuse the contract's request shapes where they match (queries) and add the
 * internal ones (load with a resolved path, the per-type summary a diff needs from another
 * worker, export to a path chosen in main). Values are structured-cloned; nothing proportional
 * to the heap crosses, except typed arrays deliberately transferred between worker and analysis
 * worker (see analysis.worker.ts).
 */

/**
 * Contract methods a worker answers as they are (the request carries the sessionId). A type only:
 * session-manager forwards them by name; `ApiRequest<M>` below rejects a name the contract lacks.
 */
export type WorkerQueryMethod =
  | 'summary'
  | 'typeRows'
  | 'objectRows'
  | 'objectInfo'
  | 'references'
  | 'objectAtAddress'
  | 'dominatorChildren'
  | 'dominatorPath'
  | 'pathsToRoots'
  | 'generations'
  | 'gcTimeline'
  | 'dominatorTypeGroups'
  | 'dominatorTypeInstances'
  | 'retainedBy'
  | 'retainedByObjects'
  | 'inspections'
  | 'dominatorSunburst'

  | 'stringRows'
  | 'stringInstances';

type QueryMethods = { [M in WorkerQueryMethod]: (req: ApiRequest<M>) => ApiValue<M> };

export interface WorkerMethods extends QueryMethods {
  /**
   * Parse a file (path already validated by main). Resolves when parsing is done; the analysis
   * continues. `cancelFlag` (shared-cancel.ts) lets main cancel the parse while the worker is busy.
   */
  load(req: { sessionId: SessionId; path: string; file: FileEntry; select?: string; cancelFlag?: SharedArrayBuffer }): SnapshotSummary;
  /**
   * Capture a heap snapshot of a live process, save it as a .gcdump at `outPath` (chosen by main)
   * and keep the graph as the session: like `load`, resolves when the session can answer queries.
   * `file` describes `outPath`; its size and time are filled in once the file is written.
   */
  capture(req: { sessionId: SessionId; pid: number; timeoutSec: number; outPath: string; file: FileEntry; cancelFlag?: SharedArrayBuffer }): SnapshotSummary;
  /** Cancel the session's load (parse, capture) or analysis; a no-op when neither runs. */
  cancelLoad(req: { sessionId: SessionId }): void;
  /** Start the session's analysis again when it was cancelled or failed (a no-op otherwise); resolves with the summary. */
  reanalyze(req: { sessionId: SessionId }): SnapshotSummary;
  /** "What if" (issue 16): replace the ignore list and start the recompute (see the contract's setIgnored). */
  setIgnored(req: SetIgnoredReq): SnapshotSummary;
  /** Drop the session and every reference to its graph. */
  close(req: { sessionId: SessionId }): void;
  /** Per-type-name summary for a diff computed in another worker (waits for the analysis). */
  typeSummary(req: { sessionId: SessionId }): TypeSummary;
  diff(req: DiffReq & { baseline: TypeSummary }): DiffWindow;
  /** The session's retainers for a dominator-level trend (waits for the analysis); `minBytes` null = its own default. */
  retainers(req: { sessionId: SessionId; minBytes: number | null; maxDepth: number }): RetainerSnapshot;
  /** Stream ALL rows of a view as CSV to `outPath` (chosen by main). */
  exportCsv(req: { req: SessionExportReq; outPath: string; baseline?: TypeSummary }): { rows: number; bytes: number; fileName: string };
  /** The session reduced to what a suspects report's growth section needs (waits for the analysis). */
  suspectsBaseline(req: { sessionId: SessionId }): SuspectsBaseline;
  /** Build the session's leak-suspects report (against `baseline` when given) and write it as HTML to `outPath` (chosen by main). */
  exportReport(req: { req: ExportReportReq; outPath: string; baseline: SuspectsBaseline | null }): { bytes: number; suspects: number; findings: number };
  /** Set retained sizes, in slices between other calls; cancelled by `cancelSetRetained`. */
  setRetained(req: SetRetainedReq): SetRetainedResult;
  /** Cancel the session's running and queued setRetained calls. */
  cancelSetRetained(req: { sessionId: SessionId }): void;
  /** Sessions held and memory in use (tests, diagnostics). */
  stats(req: Record<string, never>): { sessions: number; heapUsed: number; arrayBuffers: number; resident: Record<string, number> };
}

export type WorkerMethod = keyof WorkerMethods;
export type WorkerRequest<M extends WorkerMethod> = Parameters<WorkerMethods[M]>[0];
export type WorkerValue<M extends WorkerMethod> = ReturnType<WorkerMethods[M]>;

/** Events a worker pushes (a subset of the contract's events). */
export type WorkerEventName = 'load-progress' | 'session-preliminary' | 'summary-updated' | 'capture-progress' | 'set-retained-progress';
export type WorkerEvent = { [E in WorkerEventName]: { type: 'event'; name: E; payload: HeapscopeEvents[E] } }[WorkerEventName];

export type ToWorker = { type: 'call'; id: number; method: WorkerMethod; arg: unknown } | { type: 'cancel'; id: number };

export type FromWorker =
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; error: AppErrorDto }
  | WorkerEvent
  /** Sent once the worker listens: from then on a call unanswered is a busy worker, not a booting one. */
  | { type: 'started' };

/** How to start a worker script: a built .mjs, or the dev shim that tsImports a .ts entry. */
export interface WorkerScript {
  /** File given to `new Worker` (absolute path). */
  file: string;
  /** When set, `file` is the tsx shim and this is the TypeScript entry it imports (file URL). */
  tsEntry?: string;
}

/** workerData of a snapshot worker. */
export interface SnapshotWorkerData {
  tsEntry?: string;
  /** How to start the analysis child; null = run the analysis inline (blocks queries while it runs). */
  analysis: WorkerScript | null;
  /** resourceLimits for the analysis child. */
  analysisLimits?: { maxOldGenerationSizeMb?: number; maxYoungGenerationSizeMb?: number };
  /** Test-only hook: loads of files with a `<file>.jam` marker spin (debug-jam.ts). */
  debugJam?: boolean;
}

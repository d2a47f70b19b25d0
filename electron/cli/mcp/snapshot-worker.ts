import { isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { computeTypeStats } from '../../../shared/analysis/type-stats.js';
import { BugError, CancelledError, toErrorDto, type AppErrorDto } from '../../../shared/errors.js';
import type { CancellationToken } from '../../../shared/util/cancellation.js';
import { throttledProgress } from '../../../shared/util/progress.js';
import { loadAnalyzed } from '../analyzed-snapshot.js';
import type { OpenSnapshot } from './loaded-snapshot.js';
import { inspectionBaselineQuery, inspectionsQuery, pathsQuery } from './retention-tools.js';
import { summaryJson } from './snapshot-tools.js';
import { suspectsBaselineQuery, suspectsQuery } from './suspects-tool.js';
import { dominatorsQuery, topTypesQuery, typeSummaryQuery } from './table-tools.js';

/**
 * The thread that holds one snapshot of `heapscope mcp`: open_snapshot starts one, reads and
 * analyses the file in it, and every later tool on that snapshot runs here; close_snapshot (or a
 * cancelled open) terminates it, which returns all its memory at once. So a long open or query
 * never holds the server's message loop (pings, tools/list and other snapshots' tools are answered
 * meanwhile), at the price of one thread and V8 heap per open snapshot (a few MB; --max-open caps them).
 *
 * This module is both sides' definition and the worker's entry: the main thread starts a Worker on
 * this very file (SNAPSHOT_WORKER_URL: the source under tsx, or the CLI bundle's chunk that holds
 * this code), and the code below starts serving only in a thread started with WORKER_FLAG.
 *
 * Cancellation crosses as a SharedArrayBuffer flag per call (a message could not reach a thread
 * busy in a synchronous analysis); readers and analyses check it every 65,536 iterations, and a
 * process-dump read kills its helper process when it sees it. Once the cancelled call has ended
 * the main thread terminates the thread (at the latest after a grace period: a reader between
 * checks), which returns all its memory at once.
 */
export const SNAPSHOT_WORKER_URL = import.meta.url;
export const WORKER_FLAG = 'heapscopeMcpSnapshot';

/**
 * What a snapshot's worker can be asked, by name: each takes the loaded snapshot, the tool's
 * arguments (structured-cloned from the main thread) and the request's cancellation token, and
 * returns plain data (JSON for the client, or a baseline / type summary that the main thread
 * passes to another snapshot's worker).
 */
export const QUERIES = {
  summary: summaryJson,
  top_types: topTypesQuery,
  dominators: dominatorsQuery,
  type_summary: typeSummaryQuery,
  paths_to_roots: pathsQuery,
  inspections: inspectionsQuery,
  inspection_baseline: inspectionBaselineQuery,
  suspects: suspectsQuery,
  suspects_baseline: suspectsBaselineQuery,
};

export type QueryName = keyof typeof QUERIES;

/** What open_snapshot reports of a file, besides the id and the open list. */
export interface OpenedInfo {
  file: string;
  fileSize: number;
  format: string;
  objectCount: number;
  typeCount: number;
  totalSize: number;
  reachableBytes: number;
}

export type ToSnapshotWorker =
  | { type: 'open'; call: number; path: string; select?: string; cancel: SharedArrayBuffer }
  | { type: 'query'; call: number; snapshot: string; op: QueryName; args: unknown; cancel: SharedArrayBuffer };

export type FromSnapshotWorker =
  | { type: 'progress'; call: number; phase: string; done: number; total: number }
  | { type: 'result'; call: number; ok: true; value: unknown }
  | { type: 'result'; call: number; ok: false; error: AppErrorDto };

/** Raised by the main thread (Atomics.store) when the request is cancelled. */
export function flagToken(buffer: SharedArrayBuffer): CancellationToken {
  const flag = new Int32Array(buffer);
  return {
    get isCancelled() {
      return Atomics.load(flag, 0) !== 0;
    },
    throwIfCancelled() {
      if (Atomics.load(flag, 0) !== 0) throw new CancelledError('request cancelled by the MCP client');
    },
  };
}

const SILENT = { write() {} };

function serve(port: MessagePort): void {
  let snap: OpenSnapshot | null = null;
  const post = (m: FromSnapshotWorker) => port.postMessage(m);
  port.on('message', (m: ToSnapshotWorker) => {
    void answer(m).then(
      (value) => post({ type: 'result', call: m.call, ok: true, value }),
      (e: unknown) => post({ type: 'result', call: m.call, ok: false, error: toErrorDto(e) }),
    );
  });

  async function answer(m: ToSnapshotWorker): Promise<unknown> {
    if (m.type === 'open') {
      if (snap) throw new BugError('this snapshot worker already holds a snapshot');
      // throttled here too: the reader calls its sink far more often than the main thread forwards
      const progress = throttledProgress((phase, done, total) => post({ type: 'progress', call: m.call, phase, done, total }), 50);
      const s = await loadAnalyzed(m.path, SILENT, { select: m.select, progress, token: flagToken(m.cancel) });
      snap = { ...s, id: '', path: m.path, cache: {} };
      const info: OpenedInfo = {
        file: s.name,
        fileSize: s.fileSize,
        format: s.graph.metadata.format,
        objectCount: computeTypeStats(s.graph).objectCount,
        typeCount: s.graph.types.count,
        totalSize: s.graph.totalSize,
        reachableBytes: s.analysis.reachableSize,
      };
      return info;
    }
    if (!snap) throw new BugError('query before the snapshot was opened');
    snap.id = m.snapshot;
    const run = QUERIES[m.op] as ((s: OpenSnapshot, args: unknown, token: CancellationToken) => unknown) | undefined;
    if (!run) throw new BugError(`unknown snapshot query ${String(m.op)}`);
    return run(snap, m.args, flagToken(m.cancel));
  }
}

const data = workerData as Record<string, unknown> | null;
if (!isMainThread && parentPort && data?.[WORKER_FLAG] === true) serve(parentPort);

import '../../shared/formats/all-readers.js';
import '../dump-reader/register-dump-reader.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import type { CancellationToken } from '../../shared/util/cancellation.js';
import { readSnapshot } from '../../shared/formats/read-snapshot.js';
import type { StretchReader } from '../../shared/formats/read-options.js';
import { throttledProgress, type ProgressSink } from '../../shared/util/progress.js';
import { FileByteSource } from '../files/file-byte-source.js';
import { memoryBudget } from '../files/memory-budget.js';
import { collectGarbage } from '../workers/collect-garbage.js';
import { childStretchReader } from '../workers/stretch-reader.js';
import { resolveWorkerScripts } from '../workers/worker-scripts.js';
import { flag, type FlagSpec, type ParsedArgs } from './args.js';
import type { Writer } from './output.js';
import { escapeControl } from './terminal-text.js';

/**
 * Open a snapshot file for a CLI command: detect the format by content and read it.
 *
 * A progress line ("reading big.gcdump  42%") is drawn on stderr only when stderr is a terminal,
 * so scripts and CI logs that capture stderr see nothing but real errors. Read errors propagate
 * as coded AppErrors; main.ts turns them into one `error <code>: ...` line and exit code 3.
 * A big CF heap log is read on two cores, as in the app (a child worker reads its second half).
 */
export interface LoadedSnapshot {
  graph: HeapGraph;
  /** File name (no directory), for headers. */
  name: string;
  /** File size in bytes. */
  fileSize: number;
}

/** Which snapshot of a multi-snapshot file to open (a CF heap log's AppDomain name or index). */
export interface SnapshotSelect {
  select?: string;
  /**
   * Progress of the read (and, in loadAnalyzed, the analysis) for a caller that reports it itself
   * (heapscope mcp sends MCP progress notifications); the terminal line on stderr is then not drawn.
   */
  progress?: ProgressSink;
  /** Stops the read (and, in loadAnalyzed, the analysis) with CancelledError (heapscope mcp: a cancelled open_snapshot). */
  token?: CancellationToken;
}

/** `--domain NAME|INDEX`: the AppDomain section of a Compact Framework heap log (default: the first). */
export const DOMAIN_FLAG: FlagSpec = { value: true };

export function selectOf(args: ParsedArgs): SnapshotSelect {
  const domain = flag(args, 'domain');
  return domain === undefined ? {} : { select: domain };
}

export async function loadSnapshot(path: string, stderr: Writer, opts: SnapshotSelect = {}): Promise<LoadedSnapshot> {
  const source = await FileByteSource.open(path);
  const line = opts.progress ? NO_LINE : ttyProgress(stderr, source.name);
  try {
    const graph = await readSnapshot(source, { progress: opts.progress ?? line.sink, select: opts.select, stretchReader: cliStretchReader(path), memoryBudget: () => memoryBudget(), token: opts.token, collectGarbage });
    return { graph, name: source.name, fileSize: source.size };
  } finally {
    line.clear();
    await source.close();
  }
}

/** Reads part of a big CF heap log in a child worker (the built bundle, or the sources under tsx). */
export function cliStretchReader(path: string): StretchReader | undefined {
  return childStretchReader(path, { analysis: resolveWorkerScripts(import.meta.url).analysis });
}

const NO_LINE: ReturnType<typeof ttyProgress> = { sink: undefined, clear() {} };

/**
 * A one-line progress display on stderr ("reading big.gcdump 42%", "dominators 10%"), or a no-op
 * sink when stderr is not a terminal. `clear()` erases the line once the work is done.
 */
export function ttyProgress(stderr: Writer, label: string): { sink: ProgressSink | undefined; clear(): void } {
  if ((stderr as { isTTY?: boolean }).isTTY !== true) return { sink: undefined, clear() {} };
  let drawn = false;
  const shown = escapeControl(label); // a file name: never terminal commands
  const sink = throttledProgress((phase, done, total) => {
    const pct = total > 0 ? ` ${Math.floor((done / total) * 100)}%` : '';
    stderr.write(`\r\x1b[K${phase === 'parse' ? 'reading' : phase} ${shown}${pct}`);
    drawn = true;
  }, 200);
  return {
    sink,
    clear() {
      if (drawn) stderr.write('\r\x1b[K');
      drawn = false;
    },
  };
}

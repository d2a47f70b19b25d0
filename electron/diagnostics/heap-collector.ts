import { AppError } from '../../shared/errors.js';
import {
  GC_HEAP_SURVIVAL_AND_MOVEMENT_KEYWORD,
  HEAP_SNAPSHOT_KEYWORDS,
  RUNTIME_PROVIDER,
  SAMPLE_PROFILER_PROVIDER,
} from '../../shared/diagnostics/ipc-messages.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { GcEventId, isClrEvent, readGcEnd, readGcStart } from '../../shared/formats/nettrace/clr-gc-payloads.js';
import { HeapSnapshotAssembler } from '../../shared/formats/nettrace/heap-snapshot-assembler.js';
import { NetTraceParser } from '../../shared/formats/nettrace/nettrace-parser.js';
import type { CancellationToken } from '../../shared/util/cancellation.js';
import { NEVER_CANCELLED } from '../../shared/util/cancellation.js';
import { startSession, stopSession } from './eventpipe-session.js';
import { processExists } from './endpoints.js';
import { endpointFor, queryProcessInfo } from './process-info.js';
import { hostname } from 'node:os';

/**
 * Captures a heap snapshot from a live .NET process the way dotnet-gcdump does
 * (diagnostics-ipc.md §7), with no .NET tool installed:
 *
 * 1. a throw-away session that flushes the runtime's "types already logged" table;
 * 2. the heap-snapshot session (CollectTracing6 in Block mode, falling back to CollectTracing2),
 *    whose GCHeapCollect keyword makes the runtime run one induced gen-2 GC and walk the heap;
 * 3. the stream is parsed while it arrives: a sorted parser feeds the graph assembler, and a
 *    second, unsorted parser watches for the GCEnd that completes the walk (sorted delivery can
 *    lag until the next sequence point, §7.4), so we stop as soon as the dump is complete;
 * 4. StopTracing on a second connection, then drain to EOF (the rundown carries module paths).
 *
 * Completion rules (§7.3): dump complete · no GC data after 5 s · overall timeout · cancellation ·
 * the process exits. Only a complete dump is returned; everything else is a coded error.
 */
export interface CollectOptions {
  pid: number;
  /** Overall limit in seconds (default 30, as dotnet-gcdump). */
  timeoutSec?: number;
  token?: CancellationToken;
  /** Phase messages for a status line: 'connecting', 'flushing types', 'walking heap', 'reading rundown', 'building graph'. */
  onPhase?: (phase: string, bytes: number) => void;
  /** Keep the raw NetTrace bytes (for `--trace-out`). */
  onChunk?: (chunk: Uint8Array) => void;
  /** How long to wait for any GC data before deciding the process has no .NET heap (default 5 s). */
  noDataSec?: number;
}

export interface CollectResult {
  graph: HeapGraph;
  command: 'CollectTracing6' | 'CollectTracing2';
  traceBytes: number;
  elapsedMs: number;
}

const POLL_MS = 100;

export async function collectHeapSnapshot(opts: CollectOptions): Promise<CollectResult> {
  const started = Date.now();
  const token = opts.token ?? NEVER_CANCELLED;
  const timeoutMs = (opts.timeoutSec ?? 30) * 1000;
  const noDataMs = (opts.noDataSec ?? 5) * 1000;
  const phase = opts.onPhase ?? (() => {});
  phase('connecting', 0);
  const endpoint = await endpointFor(opts.pid);
  const info = await queryProcessInfo(endpoint, 5_000).catch(() => null);

  phase('flushing types', 0);
  await flushTypeTable(endpoint, token);
  token.throwIfCancelled();

  phase('walking heap', 0);
  const session = await startSession(endpoint, {
    providers: [{ name: RUNTIME_PROVIDER, keywords: HEAP_SNAPSHOT_KEYWORDS | GC_HEAP_SURVIVAL_AND_MOVEMENT_KEYWORD, level: 5 }],
    rundown: true,
    preferBlocking: true,
  });

  const assembler = new HeapSnapshotAssembler();
  const sorted = new NetTraceParser(
    { onHeader: (h) => assembler.setHeader(h), onEvent: (e) => assembler.onEvent(e) },
    { sort: true, allowTruncated: true, name: `process ${opts.pid}` },
  );
  // Completion watcher: unsorted, so GCEnd is seen as soon as it is decoded.
  let gcNum = -1;
  let sawGcData = false;
  let complete = false;
  const watcher = new NetTraceParser(
    {
      onEvent: (e) => {
        if (isClrEvent(e, GcEventId.GCStart)) {
          sawGcData = true;
          const s = readGcStart(e);
          if (gcNum < 0 && s.depth === 2 && s.type !== 1) gcNum = s.count;
        } else if (isClrEvent(e, GcEventId.BulkNode)) {
          sawGcData = true;
        } else if (isClrEvent(e, GcEventId.GCEnd) && gcNum >= 0 && readGcEnd(e).count === gcNum) {
          complete = true;
        }
      },
    },
    { sort: false, allowTruncated: true },
  );

  let bytes = 0;
  let streamEnded = false;
  let streamError: unknown = null;
  let watching = true;
  const pump = (async () => {
    try {
      for await (const raw of session.connection.chunks()) {
        const chunk = raw.slice(); // the parsers keep references to pushed chunks
        bytes += chunk.length;
        opts.onChunk?.(chunk);
        sorted.push(chunk);
        if (watching) watcher.push(chunk);
      }
    } catch (e) {
      streamError = e;
    } finally {
      streamEnded = true;
    }
  })();

  // Poll like dotnet-gcdump: every 100 ms, until complete / no data / timeout / cancel / exit.
  let stopReason: 'complete' | 'ended' | 'no-data' | 'timeout' | 'cancelled' | 'exited' = 'timeout';
  for (;;) {
    if (complete) {
      stopReason = 'complete';
      break;
    }
    if (streamEnded) {
      stopReason = 'ended';
      break;
    }
    const elapsed = Date.now() - started;
    if (token.isCancelled) {
      stopReason = 'cancelled';
      break;
    }
    if (!sawGcData && elapsed > noDataMs) {
      stopReason = 'no-data';
      break;
    }
    if (elapsed > timeoutMs) {
      stopReason = 'timeout';
      break;
    }
    if (!processExists(opts.pid)) {
      stopReason = 'exited';
      break;
    }
    await sleep(POLL_MS);
    phase('walking heap', bytes);
  }
  watching = false;

  phase('reading rundown', bytes);
  const stopped = await stopSession(endpoint, session.sessionId).catch(() => false);
  // Drain to EOF so the rundown (module paths) arrives; bounded so a wedged runtime can't hang us.
  const drainDeadline = Date.now() + Math.max(10_000, timeoutMs);
  while (!streamEnded && Date.now() < drainDeadline) {
    if (!stopped && !processExists(opts.pid)) break;
    await sleep(POLL_MS);
    phase('reading rundown', bytes);
  }
  if (!streamEnded) session.connection.close();
  await pump;

  if (stopReason === 'cancelled') throw new AppError('cancelled', 'capture cancelled');
  if (stopReason === 'exited' || (!complete && !processExists(opts.pid))) {
    throw new AppError('process/exited', `process ${opts.pid} exited during the capture (${bytes} bytes of trace received, heap walk ${complete ? 'complete' : 'incomplete'})`);
  }
  if (stopReason === 'no-data') {
    throw new AppError('process/timeout', `no GC heap data arrived from process ${opts.pid} within ${noDataMs / 1000} s (is it a .NET process with a GC heap?)`);
  }
  if (!complete) {
    const why = streamError instanceof Error ? `: ${streamError.message}` : '';
    throw new AppError('process/timeout', `the heap walk of process ${opts.pid} did not complete within ${timeoutMs / 1000} s${why}`);
  }

  phase('building graph', bytes);
  const summary = sorted.end();
  const graph = assembler.finish({
    token,
    problems:
      summary.droppedEvents > 0
        ? [{ code: 'other', message: `the runtime dropped ${summary.droppedEvents} events (lossy buffering on this runtime): the graph may be incomplete` }]
        : [],
    traceExtra: { captureCommand: session.command, traceBytes: bytes, droppedEvents: summary.droppedEvents },
  });
  // The trace does not name the process; the diagnostics endpoint does.
  graph.metadata.processId = opts.pid;
  graph.metadata.processName = info?.entrypointAssembly ?? graph.metadata.processName;
  graph.metadata.machineName = hostname();
  if (info?.clrVersion) graph.metadata.extra.runtimeVersion = info.clrVersion;
  if (info?.commandLine) graph.metadata.extra.commandLine = info.commandLine;
  return { graph, command: session.command, traceBytes: bytes, elapsedMs: Date.now() - started };
}

/**
 * Step 1 (§7.1): start a session without the Type keyword and stop it at the first event, which
 * makes the runtime forget which types it already logged (so the real dump names every type).
 */
async function flushTypeTable(endpoint: string, token: CancellationToken): Promise<void> {
  const s = await startSession(endpoint, {
    providers: [{ name: SAMPLE_PROFILER_PROVIDER, keywords: 0xf00000000000n, level: 4 }],
    rundown: false,
    preferBlocking: false,
  });
  let sawEvent = false;
  const parser = new NetTraceParser({ onEvent: () => void (sawEvent = true) }, { allowTruncated: true });
  const deadline = Date.now() + 5_000;
  const stopWhenReady = (async () => {
    while (!sawEvent && Date.now() < deadline && !token.isCancelled) await sleep(20);
    await stopSession(endpoint, s.sessionId).catch(() => false);
    // We only needed the enable/disable cycle; don't wait for this session's rundown.
    setTimeout(() => s.connection.close(), 2_000).unref?.();
  })();
  try {
    for await (const chunk of s.connection.chunks()) {
      if (!sawEvent) {
        try {
          parser.push(chunk.slice());
        } catch {
          sawEvent = true; // a parse problem in a throw-away stream is not worth failing over
        }
      }
    }
  } finally {
    await stopWhenReady;
    s.connection.close();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

import { AppError } from '../../errors.js';
import type { HeapGraph } from '../../graph/heap-graph.js';
import { GrowingMemoryCheck } from '../../graph/memory-estimate.js';
import type { Problem } from '../../graph/problems.js';
import type { ByteSource } from '../../util/byte-source.js';
import type { ReadOptions } from '../read-options.js';
import type { HeapSnapshotAssemblerOptions } from './heap-snapshot-assembler.js';
import { HeapSnapshotAssembler } from './heap-snapshot-assembler.js';
import { readNetTraceEvents } from './read-nettrace-events.js';

export interface NetTraceSnapshotOptions extends ReadOptions, Omit<HeapSnapshotAssemblerOptions, 'select'> {}

/**
 * The snapshot reader for .nettrace/.netperf files: the first (or `opts.select`-th, 0-based) GC
 * heap dump in the trace as a HeapGraph, built with dotnet-gcdump's rules.
 *
 * The whole stream is read in timestamp order, because type names and module paths may come
 * after the heap walk. A trace without a heap dump fails with `format/no-heap-dump`; a trace cut
 * off after its dump still gives the graph, with a 'truncated' problem (names may be missing).
 */
export async function readNetTraceSnapshot(source: ByteSource, opts: NetTraceSnapshotOptions = {}): Promise<HeapGraph> {
  let select = 0;
  if (opts.select !== undefined) {
    if (!/^\d+$/.test(opts.select)) throw new AppError('usage/bad-argument', `--select for a trace is the 0-based heap dump number (got "${opts.select}")`);
    select = Number(opts.select);
  }
  const assembler = new HeapSnapshotAssembler({ select, maxNodes: opts.maxNodes, weakRoots: opts.weakRoots, dependentHandles: opts.dependentHandles, streamBytes: source.size >= 0 ? source.size : undefined, sharedMemory: opts.sharedMemory, memory: opts.memoryBudget ? new GrowingMemoryCheck(source.name, opts.memoryBudget) : undefined });
  const summary = await readNetTraceEvents(
    source,
    { onHeader: (h) => assembler.setHeader(h), onEvent: (e) => assembler.onEvent(e) },
    { sort: true, allowTruncated: true, token: opts.token, progress: opts.progress },
  );
  const problems: Problem[] = [];
  if (summary.truncated) {
    problems.push({ code: 'truncated', message: `the trace ends inside ${summary.truncatedAt} (no end-of-stream marker); type and module names logged later are missing` });
  }
  if (summary.droppedEvents > 0) {
    problems.push({ code: 'other', message: `the runtime dropped ${summary.droppedEvents} events (buffers full): the heap graph may be incomplete` });
  }
  return assembler.finish({
    token: opts.token,
    problems,
    traceExtra: { traceEvents: summary.eventCount, droppedEvents: summary.droppedEvents, heapDumpsInTrace: assembler.heapDumpsSeen },
  });
}

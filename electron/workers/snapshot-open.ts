import { stat } from 'node:fs/promises';
import '../../shared/formats/all-readers.js';
import '../dump-reader/register-dump-reader.js';
import { readSnapshot } from '../../shared/formats/read-snapshot.js';
import { AppError } from '../../shared/errors.js';
import type { CapturePhase, CodedMessage, FileEntry, SnapshotSummary } from '../../shared/ipc/contract.js';
import { timelineOnlyGraph } from '../../shared/session/timeline-only-graph.js';
import { PreliminaryTypes } from '../../shared/session/preliminary-types.js';
import type { TypeHistogram } from '../../shared/formats/dump/type-histogram.js';
import { SnapshotSession } from '../../shared/session/snapshot-session.js';
import { throttledProgress } from '../../shared/util/progress.js';
import { collectHeapSnapshot } from '../diagnostics/heap-collector.js';
import { FileByteSource } from '../files/file-byte-source.js';
import { memoryBudget } from '../files/memory-budget.js';
import { writeGcdumpFile } from '../files/write-gcdump-file.js';
import { discardAnalysisChildren, lowMemoryPlan, prepareAnalysisChildren, spawnAnalysisChildren, startAnalysis, type AnalysisRun } from './analysis-runner.js';
import { collectGarbage } from './collect-garbage.js';
import { debugJam } from './debug-jam.js';
import { shareGraph } from './share-graph.js';
import { beginAnalysis } from './snapshot-analysis-runs.js';
import { newSlot, type HostContext, type Slot } from './snapshot-slots.js';
import { childStretchReader } from './stretch-reader.js';
import type { WorkerRequest } from './worker-protocol.js';

/** The load and capture paths of a snapshot worker (SnapshotHost.load / .capture). */

export async function loadSession(ctx: HostContext, req: WorkerRequest<'load'>): Promise<SnapshotSummary> {
  return openFile(ctx, newSlot(ctx, req.sessionId, req.path, req.cancelFlag), req.file, req.select);
}

/**
 * Live capture, in this worker rather than in main: worker_threads have sockets too, and the
 * expensive part of a capture is decoding the heap-walk events and assembling the graph (seconds
 * of CPU for a large heap). Done in main it would stall every IPC call and event of every other
 * tab for that long; done here it only occupies the worker that will hold the session anyway.
 *
 * The graph is written as a .gcdump to `outPath` (main's capture cache) and the session is then
 * opened from that file like any other, so what the tab shows is exactly what "Save snapshot
 * as…", Recent files and a later reopen give. Re-reading costs a fraction of the capture (the
 * .gcdump parse runs at ~100 MB/s) and frees the trace assembler's memory before the analysis.
 */
export async function captureSession(ctx: HostContext, req: WorkerRequest<'capture'>): Promise<SnapshotSummary> {
  const slot = newSlot(ctx, req.sessionId, req.outPath, req.cancelFlag);
  const t0 = Date.now();
  const progress = (phase: CapturePhase, bytes: number) =>
    ctx.emit({ type: 'event', name: 'capture-progress', payload: { sessionId: req.sessionId, pid: req.pid, phase, bytes, elapsedMs: Date.now() - t0 } });
  let file: FileEntry;
  try {
    const token = slot.parseToken;
    const r = await collectHeapSnapshot({ pid: req.pid, timeoutSec: req.timeoutSec, token, onPhase: (phase, bytes) => progress(phase as CapturePhase, bytes) });
    progress('saving', r.traceBytes);
    await writeGcdumpFile(req.outPath, r.graph, { token });
    const st = await stat(req.outPath);
    file = { ...req.file, size: st.size, modifiedMs: Math.round(st.mtimeMs), exists: true };
  } catch (e) {
    ctx.slots.delete(req.sessionId);
    throw e;
  }
  return openFile(ctx, slot, file);
}

async function openFile(ctx: HostContext, slot: Slot, file: FileEntry, select?: string): Promise<SnapshotSummary> {
  const sessionId = slot.id;
  const emitProgress = (stage: 'parse' | 'analysis') =>
    throttledProgress((phase, done, total) => ctx.emit({ type: 'event', name: 'load-progress', payload: { sessionId, stage, phase, done, total } }), 100);
  // started now, so their start-up overlaps the parse
  let children = spawnAnalysisChildren(ctx.data);
  let run: AnalysisRun | null = null;
  try {
    const t0 = performance.now();
    if (ctx.data.debugJam) debugJam(slot.path, slot.parseToken);
    const source = await FileByteSource.open(slot.path);
    let graph;
    const notes: CodedMessage[] = [];
    // which plan the analysis takes (analysis-runner.ts): decided as soon as the size is known,
    // since the fast plan's children prepare their memory during the parse and the low one's do not
    let lowMemory: boolean | null = null;
    try {
      const sizeHint = (nodes: number, edges: number) => {
        lowMemory = lowMemoryPlan(nodes, edges);
        if (!lowMemory) prepareAnalysisChildren(children, nodes, edges);
      };
      // A dump's type rows before its graph: typeRows answers from them (snapshot-host.ts) and
      // main announces them; the cost is the helper's stats pass, which delays the graph.
      const typeHistogram = (h: TypeHistogram) => {
        slot.preliminary = new PreliminaryTypes(h, { sessionId, file, parseMs: Math.round(performance.now() - t0) });
        ctx.emit({ type: 'event', name: 'session-preliminary', payload: { sessionId, summary: slot.preliminary.summary() } });
      };
      graph = await readSnapshot(source, {
        token: slot.parseToken,
        progress: emitProgress('parse'),
        select,
        stretchReader: childStretchReader(slot.path, ctx.data),
        sharedMemory: true,
        sizeHint,
        memoryBudget: () => memoryBudget(process.env, 'app'),
        typeHistogram,
        collectGarbage,
      });
    } catch (e) {
      if (!(e instanceof AppError && e.code === 'format/no-heap-dump')) throw e;
      graph = timelineOnlyGraph(); // GC events only: the timeline still works
      notes.push({ code: 'no-heap-dump', message: `${e.message}; only the GC timeline is available` });
    } finally {
      await source.close();
    }
    slot.parseToken.throwIfCancelled();
    const parseMs = Math.round(performance.now() - t0);
    const shared = shareGraph(graph);
    lowMemory ??= lowMemoryPlan(graph.nodeCount, graph.edgeCount);
    // the reader's scratch goes before the low-memory plan's child allocates (the GC below is after the start, for speed)
    if (lowMemory) collectGarbage();
    // The analysis children get the graph before the session's own tables are built (the type
    // statistics are a pass over every node): they need none of them, and the dominators are
    // the critical path of the load.
    run = startAnalysis(shared, emitProgress('analysis'), ctx.data, children, lowMemory);
    // The reader's scratch (a .gcdump's node offsets, the builder's 8 bytes per node of pool
    // starts and counts) is garbage now, but this worker allocates little from here on, so V8
    // would keep it resident through the analysis, which is the peak: one full GC of a small
    // JS heap frees it first (test/perf/app-memory.bench.ts).
    collectGarbage();
    children = null;
    const session = new SnapshotSession(shared, { sessionId, file, parseMs, notes }, slot.parseToken);
    slot.session = session;
    slot.preliminary = null;
    beginAnalysis(ctx, slot, session, run);
    return session.summary();
  } catch (e) {
    discardAnalysisChildren(children);
    if (run) {
      run.done.catch(() => undefined); // no session takes its result: its cancellation is no failure to report
      run.cancel();
    }
    ctx.slots.delete(sessionId);
    throw e;
  }
}

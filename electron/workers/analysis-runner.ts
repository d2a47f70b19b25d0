import { Worker } from 'node:worker_threads';
import { analyzeGraph, type DominanceAnalysis, type HeapAnalysis } from '../../shared/analysis/analyze.js';
import type { Retainers } from '../../shared/analysis/retainers.js';
import { AppError, CancelledError, fromErrorDto, type AppErrorDto } from '../../shared/errors.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { CancellationSource } from '../../shared/util/cancellation.js';
import { throttledProgress, type ProgressSink } from '../../shared/util/progress.js';
import type { SnapshotWorkerData } from './worker-protocol.js';

/**
 * Runs one snapshot's analysis and lets the owner cancel it.
 *
 * Default: in two child workers (analysis.worker.ts) reading the SharedArrayBuffer-backed graph,
 * so the session worker stays free to answer type-row queries meanwhile. One computes dominators
 * and everything built on them, the other the retainer index; neither needs the other, so on two
 * or more cores the retainers cost no wall time (0.5–1 s at 5–10M objects). Cancel = terminate
 * both, which is immediate and releases the dominator scratch (~12 bytes/node) at once. An OOM in
 * a child (resourceLimits) fails the analysis only; the session keeps its graph and type rows.
 * Fallback (no child script configured): inline, after one macrotask so the parse result is
 * delivered first; queries then wait until it ends.
 *
 * The children can be spawned before the graph exists (`spawnAnalysisChildren`, called when a
 * file starts to parse): a thread, a V8 isolate and the bundle take 0.1–0.3 s to start on the
 * 2-core reference machine, and that then overlaps the parse instead of delaying the analysis.
 */
export interface AnalysisRun {
  done: Promise<{ analysis: HeapAnalysis; ms: number }>;
  cancel(): void;
}

export function startAnalysis(
  graph: HeapGraph,
  progress: ProgressSink,
  data: Pick<SnapshotWorkerData, 'analysis' | 'analysisLimits'>,
  children: AnalysisChildren | null = null,
): AnalysisRun {
  if (!data.analysis) return inline(graph, progress);
  return inChildren(graph, progress, children ?? spawnAnalysisChildren(data)!);
}

type Part = 'dominance' | 'retainers';
type PartResult<P extends Part> = P extends 'dominance' ? DominanceAnalysis : Retainers;

/** A child worker, started before it has work; what happened to it meanwhile is kept for when it does. */
interface Child {
  worker: Worker;
  failed: (Error & { code?: string }) | null;
  exitCode: number | null;
}

/** The two children of one analysis, started early (see above). */
export interface AnalysisChildren {
  dominance: Child;
  retainers: Child;
}

/** Start both children now; null when analyses run inline. Pass them to startAnalysis, or to discardAnalysisChildren. */
export function spawnAnalysisChildren(data: Pick<SnapshotWorkerData, 'analysis' | 'analysisLimits'>): AnalysisChildren | null {
  const script = data.analysis;
  if (!script) return null;
  const spawn = (): Child => {
    const worker = new Worker(script.file, {
      workerData: script.tsEntry ? { tsEntry: script.tsEntry } : {},
      resourceLimits: data.analysisLimits,
    });
    const child: Child = { worker, failed: null, exitCode: null };
    // listening from the start: an 'error' with no listener would take this worker down
    worker.on('error', (e: Error) => (child.failed ??= e));
    worker.on('exit', (code) => (child.exitCode ??= code));
    return child;
  };
  return { dominance: spawn(), retainers: spawn() };
}

export function discardAnalysisChildren(children: AnalysisChildren | null): void {
  if (!children) return;
  void children.dominance.worker.terminate();
  void children.retainers.worker.terminate();
}

function inChildren(graph: HeapGraph, progress: ProgressSink, children: AnalysisChildren): AnalysisRun {
  const t0 = performance.now();
  const state = { cancelled: false };
  const dominance = inChild(children.dominance, graph, 'dominance', progress, state);
  // No progress from the retainers: it is the shorter part, and two interleaved phases would make the bar jump.
  const retainers = inChild(children.retainers, graph, 'retainers', () => {}, state);
  const done = Promise.all([dominance.done, retainers.done]).then(
    ([d, r]) => ({ analysis: { ...d, retainers: { firstRetainer: r.firstRetainer, retainerNode: r.retainerNode } }, ms: performance.now() - t0 }),
    (e: unknown) => {
      // the first failure decides; the other child has no use any more
      dominance.stop();
      retainers.stop();
      throw e;
    },
  );
  return {
    done,
    cancel() {
      state.cancelled = true;
      dominance.stop();
      retainers.stop();
    },
  };
}

function inChild<P extends Part>(child: Child, graph: HeapGraph, part: P, progress: ProgressSink, state: { cancelled: boolean }): { done: Promise<PartResult<P>>; stop(): void } {
  const worker = child.worker;
  let settled = false;
  const done = new Promise<PartResult<P>>((resolve, reject) => {
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      f();
      void worker.terminate();
    };
    const failed = (e: Error & { code?: string }) =>
      finish(() =>
        reject(
          e.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new AppError('worker/out-of-memory', 'the analysis ran out of memory (worker resource limit)')
            : new AppError('worker/crashed', `the analysis worker failed: ${e.message}`),
        ),
      );
    const exited = (code: number) =>
      finish(() => reject(state.cancelled ? new CancelledError('analysis cancelled') : new AppError('worker/crashed', `the analysis worker exited with code ${code}`)));
    if (child.failed) return failed(child.failed);
    if (child.exitCode !== null) return exited(child.exitCode);
    worker.on('message', (m: { type: 'progress'; phase: string; done: number; total: number } | { type: 'done'; result: PartResult<P> } | { type: 'error'; error: AppErrorDto }) => {
      if (m.type === 'progress') progress(m.phase, m.done, m.total);
      else if (m.type === 'done') finish(() => resolve(m.result));
      else finish(() => reject(fromErrorDto(m.error)));
    });
    worker.on('error', failed);
    worker.on('exit', exited);
  });
  done.catch(() => {}); // observed through Promise.all; a second rejection must not go unhandled
  if (!settled) worker.postMessage({ graph, part });
  return { done, stop: () => void worker.terminate() };
}

function inline(graph: HeapGraph, progress: ProgressSink): AnalysisRun {
  const source = new CancellationSource();
  const done = new Promise<{ analysis: HeapAnalysis; ms: number }>((resolve, reject) => {
    setImmediate(() => {
      const t0 = performance.now();
      try {
        const analysis = analyzeGraph(graph, { token: source.token, progress: throttledProgress(progress, 100) });
        resolve({ analysis, ms: performance.now() - t0 });
      } catch (e) {
        reject(e);
      }
    });
  });
  return { done, cancel: () => source.cancel('analysis cancelled') };
}

import { Worker } from 'node:worker_threads';
import { analyzeGraph, type HeapAnalysis } from '../../shared/analysis/analyze.js';
import { AppError, CancelledError, fromErrorDto, type AppErrorDto } from '../../shared/errors.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { CancellationSource } from '../../shared/util/cancellation.js';
import { throttledProgress, type ProgressSink } from '../../shared/util/progress.js';
import type { SnapshotWorkerData, WorkerScript } from './worker-protocol.js';

/**
 * Runs one snapshot's analysis and lets the owner cancel it.
 *
 * Default: in a child worker (analysis.worker.ts) reading the SharedArrayBuffer-backed graph, so
 * the session worker stays free to answer type-row queries meanwhile; cancel = terminate, which
 * is immediate and releases the ~24 bytes/node of Lengauer–Tarjan scratch at once. An OOM in the
 * child (resourceLimits) fails the analysis only; the session keeps its graph and type rows.
 * Fallback (no child script configured): inline, after one macrotask so the parse result is
 * delivered first; queries then wait until it ends.
 */
export interface AnalysisRun {
  done: Promise<{ analysis: HeapAnalysis; ms: number }>;
  cancel(): void;
}

export function startAnalysis(graph: HeapGraph, progress: ProgressSink, data: Pick<SnapshotWorkerData, 'analysis' | 'analysisLimits'>): AnalysisRun {
  return data.analysis ? inChild(graph, progress, data.analysis, data.analysisLimits) : inline(graph, progress);
}

function inChild(graph: HeapGraph, progress: ProgressSink, script: WorkerScript, limits: SnapshotWorkerData['analysisLimits']): AnalysisRun {
  const worker = new Worker(script.file, {
    workerData: script.tsEntry ? { tsEntry: script.tsEntry } : {},
    resourceLimits: limits,
  });
  let cancelled = false;
  let settled = false;
  const done = new Promise<{ analysis: HeapAnalysis; ms: number }>((resolve, reject) => {
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      f();
      void worker.terminate();
    };
    worker.on('message', (m: { type: 'progress'; phase: string; done: number; total: number } | { type: 'done'; analysis: HeapAnalysis; ms: number } | { type: 'error'; error: AppErrorDto }) => {
      if (m.type === 'progress') progress(m.phase, m.done, m.total);
      else if (m.type === 'done') finish(() => resolve({ analysis: m.analysis, ms: m.ms }));
      else finish(() => reject(fromErrorDto(m.error)));
    });
    worker.on('error', (e: Error & { code?: string }) =>
      finish(() =>
        reject(
          e.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new AppError('worker/out-of-memory', 'the analysis ran out of memory (worker resource limit)')
            : new AppError('worker/crashed', `the analysis worker failed: ${e.message}`),
        ),
      ),
    );
    worker.on('exit', (code) =>
      finish(() => reject(cancelled ? new CancelledError('analysis cancelled') : new AppError('worker/crashed', `the analysis worker exited with code ${code}`))),
    );
  });
  worker.postMessage({ graph });
  return {
    done,
    cancel() {
      cancelled = true;
      void worker.terminate();
    },
  };
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

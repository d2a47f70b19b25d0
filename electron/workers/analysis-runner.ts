import { availableParallelism } from 'node:os';
import { MessageChannel, Worker, type MessagePort, type TransferListItem } from 'node:worker_threads';
import { analyzeGraph, leanDominanceAnalysis, type DominanceAnalysis, type HeapAnalysis } from '../../shared/analysis/analyze.js';
import type { Retainers } from '../../shared/analysis/retainers.js';
import type { TypeRetained } from '../../shared/analysis/type-retained.js';
import { AppError, CancelledError, fromErrorDto, type AppErrorDto } from '../../shared/errors.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { preferLowMemoryApp } from '../../shared/graph/memory-estimate.js';
import { CancellationSource } from '../../shared/util/cancellation.js';
import { throttledProgress, type ProgressSink } from '../../shared/util/progress.js';
import { memoryBudget } from '../files/memory-budget.js';
import type { SnapshotWorkerData } from './worker-protocol.js';
import { analysisGraph } from './share-graph.js';

/**
 * Runs one snapshot's analysis and lets the owner cancel it.
 *
 * What each phase reads (shared/analysis/*; an arrow = "needs the result of"):
 *
 *   graph ──→ retainer index (retainers.ts: edges only)
 *     └────→ dominators (DFS → grouping → semidominators → NCA: one sequential chain)
 *              └→ retained sizes (orderIdom, selfSize)
 *                   └→ tree over positions (orderIdom)
 *                        ├→ sorted dominator tree (+ orderRetained, retainedSize)
 *                        ├→ per-type figures (+ order, reachable, orderRetained, nodeType)
 *                        └→ summary figures (reachable, orderRetained[0])
 *
 * So two branches are independent of each other: the retainer index beside the whole dominator
 * chain, and, once the core exists, the sorted tree beside the per-type figures. The critical
 * path is the dominator chain (most of the CPU: test/perf/analysis-scaling.bench.ts), which has
 * no parallel split: a third thread would only wait.
 *
 * Default: in two child workers (analysis.worker.ts) reading the SharedArrayBuffer-backed graph,
 * so the session worker stays free to answer type-row queries meanwhile:
 *   dominance child: DFS → rest of dominators → retained sizes → (core shared) → sorted tree
 *   other child:            retainer index ...................... → per-type figures
 * The retainer index needs nothing from the rest, and the per-type figures and the tree need
 * only the core (dominators, retained sizes and the tree over positions, all born in
 * SharedArrayBuffers so posting them copies nothing), so on two cores the retainers and the per-type
 * figures cost no wall time (0.3–0.5 s and ~0.25 s at 5M objects). Cancel = terminate both,
 * which is immediate and releases the dominator scratch (~12 bytes/node) at once. An OOM in a
 * child (resourceLimits) fails the analysis only; the session keeps its graph and type rows.
 * Fallback (no child script configured): inline, after one macrotask so the parse result is
 * delivered first; queries then wait until it ends.
 *
 * The children can be spawned before the graph exists (`spawnAnalysisChildren`, called when a
 * file starts to parse): a thread, a V8 isolate and the bundle take 0.1–0.3 s to start on the
 * 2-core reference machine, and that then overlaps the parse instead of delaying the analysis.
 *
 * Low-memory plan (`lowMemory`; chosen by lowMemoryPlan below when the fast plan's peak would
 * take more than half of the memory available): one child runs analyze.ts
 * leanDominanceAnalysis, the CLI's pipeline (the dominators rescan for their later
 * predecessors; every later array, the sorted tree too, lives in their dead scratch) and
 * transfers (or shares) the result; nothing is prepared during the parse, so the peak is the
 * graph plus the dominators' scratch. The other child, on two cores or more, is its helper
 * thread (helper-thread-port.ts): it takes half of each rescan pass and the sort of the tree's
 * widest run, in the same memory (shared), allocating nothing. The retainer index is not built:
 * the first call that reads it has it built in a fresh child (buildRetainersInChild,
 * snapshot-host.ts retainersFor), so the result has no `retainers`. Slower than the fast plan
 * (the rescan's two passes over the references, the semidominators and the DFS on one thread,
 * the tree's long runs sorted in place), and the first incoming-references, object-info or
 * paths query waits for the index; the same numbers (tested).
 */
export interface AnalysisRun {
  /** `analysis` lacks the retainer index in the low-memory plan (see above). */
  done: Promise<{ analysis: HeapAnalysis | DominanceAnalysis; ms: number }>;
  cancel(): void;
}

export function startAnalysis(
  graph: HeapGraph,
  progress: ProgressSink,
  data: Pick<SnapshotWorkerData, 'analysis' | 'analysisLimits'>,
  children: AnalysisChildren | null = null,
  lowMemory = false,
): AnalysisRun {
  if (!data.analysis) return inline(graph, progress, lowMemory);
  return inChildren(graph, progress, children ?? spawnAnalysisChildren(data)!, lowMemory);
}

/**
 * Whether a graph this size takes the low-memory plan (above): memory-estimate.ts
 * preferLowMemoryApp against the memory available now (or HEAPSCOPE_MEMORY_LIMIT).
 */
export function lowMemoryPlan(nodes: number, edges: number, env: NodeJS.ProcessEnv = process.env): boolean {
  return preferLowMemoryApp(nodes, edges, memoryBudget(env, 'app').availableBytes);
}

/**
 * The retainer index of a graph in a fresh child (the low-memory plan leaves it for the first
 * query that reads it: session-analysis-state.ts), so the snapshot worker keeps answering the
 * tab's other queries meanwhile. The child's result buffers are transferred, nothing is copied.
 */
export function buildRetainersInChild(graph: HeapGraph, data: Pick<SnapshotWorkerData, 'analysis' | 'analysisLimits'>): Promise<Retainers> {
  const script = data.analysis;
  if (!script) return Promise.reject(new AppError('bug', 'no analysis worker script'));
  return new Promise<Retainers>((resolve, reject) => {
    const child = spawnChild(script, data.analysisLimits);
    const worker = child.worker;
    let ended = false;
    const end = (settle: () => void) => {
      if (ended) return;
      ended = true;
      void worker.terminate();
      settle();
    };
    worker.on('message', (m: FromChild) => {
      if (m.type === 'done' && m.part === 'retainers') end(() => resolve(m.result));
      else if (m.type === 'error') end(() => reject(fromErrorDto(m.error)));
    });
    worker.on('error', (e: Error) => end(() => reject(childFailure(e, 'the retainer index'))));
    worker.on('exit', (code) => end(() => reject(new AppError('worker/crashed', `the analysis worker exited with code ${code}`))));
    post(child, { graph, part: 'retainers' });
  });
}

/** What analysis.worker.ts gets (see there). */
export type AnalysisJob =
  | { graph: HeapGraph; part: 'dominance' | 'retainers' }
  | { graph: HeapGraph; part: 'lean'; helper?: MessagePort }
  | { graph: HeapGraph; part: 'helper'; port: MessagePort }
  | { graph: HeapGraph; part: 'types'; core: SharedCore }
  | { part: 'prepare'; role: 'dominance' | 'retainers'; nodes: number; edges: number };

/**
 * Dominators' positions, retained sizes and the tree over positions, in SharedArrayBuffers (born
 * there: dominanceCore's sharedMemory): what the per-type job reads.
 */
export interface SharedCore {
  order: Uint32Array;
  orderIdom: Uint32Array;
  reachable: Uint8Array;
  orderRetained: Float64Array;
  firstOrderChild: Uint32Array;
  orderChild: Uint32Array;
}

type FromChild =
  | { type: 'progress'; phase: string; done: number; total: number }
  | { type: 'core'; core: SharedCore }
  | { type: 'done'; part: 'dominance'; result: Omit<DominanceAnalysis, keyof TypeRetained> }
  | { type: 'done'; part: 'lean'; result: DominanceAnalysis }
  | { type: 'done'; part: 'retainers'; result: Retainers }
  | { type: 'done'; part: 'types'; result: TypeRetained }
  | { type: 'error'; error: AppErrorDto };

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
  return { dominance: spawnChild(script, data.analysisLimits), retainers: spawnChild(script, data.analysisLimits) };
}

function spawnChild(script: NonNullable<SnapshotWorkerData['analysis']>, limits: SnapshotWorkerData['analysisLimits']): Child {
  const worker = new Worker(script.file, { workerData: script.tsEntry ? { tsEntry: script.tsEntry } : {}, resourceLimits: limits });
  const child: Child = { worker, failed: null, exitCode: null };
  // listening from the start: an 'error' with no listener would take this worker down
  worker.on('error', (e: Error) => (child.failed ??= e));
  worker.on('exit', (code) => (child.exitCode ??= code));
  return child;
}

/** A child's 'error' as a coded error: out of memory (its resource limit) or crashed. `what` ran out of memory. */
function childFailure(e: Error & { code?: string }, what: string): AppError {
  return e.code === 'ERR_WORKER_OUT_OF_MEMORY'
    ? new AppError('worker/out-of-memory', `${what} ran out of memory (worker resource limit)`)
    : new AppError('worker/crashed', `the analysis worker failed: ${e.message}`);
}

/**
 * Tell both children how big the graph will be (ReadOptions.sizeHint), so they allocate and touch
 * their big arrays while the parse finishes: on the 2-core reference VM a first touch of a page
 * costs ~2–5 µs, and this moved ~60K page faults (5M-object CF log) out of the dominators, which
 * wait for the graph, and ~30K out of the retainer index that runs beside them.
 */
export function prepareAnalysisChildren(children: AnalysisChildren | null, nodes: number, edges: number): void {
  if (!children || !Number.isSafeInteger(nodes) || !Number.isSafeInteger(edges) || nodes < 0 || edges < 0) return;
  post(children.dominance, { part: 'prepare', role: 'dominance', nodes, edges });
  post(children.retainers, { part: 'prepare', role: 'retainers', nodes, edges });
}

export function discardAnalysisChildren(children: AnalysisChildren | null): void {
  if (!children) return;
  void children.dominance.worker.terminate();
  void children.retainers.worker.terminate();
}

function inChildren(graph: HeapGraph, progress: ProgressSink, children: AnalysisChildren, lowMemory: boolean): AnalysisRun {
  const t0 = performance.now();
  let cancelled = false;
  let settled = false;
  let dominance: Omit<DominanceAnalysis, keyof TypeRetained> | null = null;
  let retainers: Retainers | null = null;
  let types: TypeRetained | null = null;
  let finish!: (v: { analysis: HeapAnalysis | DominanceAnalysis; ms: number }) => void;
  let fail!: (e: unknown) => void;
  const done = new Promise<{ analysis: HeapAnalysis | DominanceAnalysis; ms: number }>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const stop = (c: Child) => void c.worker.terminate();
  const failed = (e: unknown) => {
    if (settled) return;
    settled = true;
    stop(children.dominance);
    stop(children.retainers);
    fail(e);
  };
  const check = () => {
    if (settled || !dominance || !retainers || !types) return;
    settled = true;
    stop(children.retainers);
    finish({ analysis: { ...dominance, ...types, retainers: { firstRetainer: retainers.firstRetainer, retainerNode: retainers.retainerNode } }, ms: performance.now() - t0 });
  };
  const watch = (child: Child, onMessage: (m: FromChild) => void) => {
    const crashed = (e: Error) => failed(childFailure(e, 'the analysis'));
    const exited = (code: number) => failed(cancelled ? new CancelledError('analysis cancelled') : new AppError('worker/crashed', `the analysis worker exited with code ${code}`));
    if (child.failed) return crashed(child.failed);
    if (child.exitCode !== null) return exited(child.exitCode);
    child.worker.on('message', (m: FromChild) => (m.type === 'error' ? failed(fromErrorDto(m.error)) : onMessage(m)));
    child.worker.on('error', crashed);
    child.worker.on('exit', (code) => (dominance && child === children.dominance ? undefined : exited(code)));
  };
  if (lowMemory) {
    // One child runs the analysis; the other one, on two cores or more, takes the jobs it hands
    // over (helper-thread-port.ts) and holds no memory of its own. A failure of either fails
    // the analysis (watch), and both go when it ends.
    const helped = availableParallelism() >= 2;
    if (!helped) stop(children.retainers);
    const channel = helped ? new MessageChannel() : null;
    if (channel) watch(children.retainers, () => {});
    watch(children.dominance, (m) => {
      if (m.type === 'progress') progress(m.phase, m.done, m.total);
      else if (m.type === 'done' && m.part === 'lean' && !settled) {
        settled = true;
        stop(children.dominance);
        stop(children.retainers);
        finish({ analysis: m.result, ms: performance.now() - t0 });
      }
    });
    if (!settled && channel) post(children.retainers, { graph, part: 'helper', port: channel.port2 }, [channel.port2]);
    if (!settled) post(children.dominance, { graph, part: 'lean', helper: channel?.port1 }, channel ? [channel.port1] : []);
    return {
      done,
      cancel() {
        cancelled = true;
        stop(children.dominance);
        stop(children.retainers);
      },
    };
  }
  // The retainer index starts once the dominators' DFS is over (half of the 'dominators' phase):
  // the DFS is a chain of dependent cache misses, and the index's bandwidth-heavy passes beside it
  // slowed it by more than they took on the 2-core reference machine. After it, the index still
  // ends long before the tree does, so waiting costs nothing on any machine.
  let retainersPosted = false;
  const postRetainers = () => {
    if (retainersPosted || settled) return;
    retainersPosted = true;
    post(children.retainers, { graph, part: 'retainers' });
  };
  watch(children.dominance, (m) => {
    if (m.type === 'progress') {
      progress(m.phase, m.done, m.total);
      if (m.phase !== 'dominators' || 2 * m.done >= m.total) postRetainers();
    } else if (m.type === 'core') {
      postRetainers();
      post(children.retainers, { graph, part: 'types', core: m.core });
    } else if (m.type === 'done' && m.part === 'dominance') {
      dominance = m.result;
      stop(children.dominance); // its scratch memory goes now
      check();
    }
  });
  // No progress from the other child: its parts are the shorter ones, and two interleaved phases would make the bar jump.
  watch(children.retainers, (m) => {
    if (m.type !== 'done') return;
    if (m.part === 'retainers') retainers = m.result;
    else if (m.part === 'types') types = m.result;
    check();
  });
  if (!settled) post(children.dominance, { graph, part: 'dominance' });
  return {
    done,
    cancel() {
      cancelled = true;
      stop(children.dominance);
      stop(children.retainers);
    },
  };
}

function post(child: Child, job: AnalysisJob, transfer: TransferListItem[] = []): void {
  child.worker.postMessage('graph' in job ? { ...job, graph: analysisGraph(job.graph) } : job, transfer);
}

function inline(graph: HeapGraph, progress: ProgressSink, lowMemory: boolean): AnalysisRun {
  const source = new CancellationSource();
  const done = new Promise<{ analysis: HeapAnalysis | DominanceAnalysis; ms: number }>((resolve, reject) => {
    setImmediate(() => {
      const t0 = performance.now();
      try {
        const opts = { token: source.token, progress: throttledProgress(progress, 100) };
        const analysis = lowMemory ? leanDominanceAnalysis(graph, opts) : analyzeGraph(graph, opts);
        resolve({ analysis, ms: performance.now() - t0 });
      } catch (e) {
        reject(e);
      }
    });
  });
  return { done, cancel: () => source.cancel('analysis cancelled') };
}

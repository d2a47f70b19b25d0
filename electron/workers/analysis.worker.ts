import { parentPort } from 'node:worker_threads';
import { dominanceCore, dominatorTreeOf, leanDominanceAnalysis, prepareDominanceMemory, retentionResult, typeRetentionOf, type DominanceMemory } from '../../shared/analysis/analyze.js';
import { buildRetainers, prepareRetainersMemory, type RetainersMemory } from '../../shared/analysis/retainers.js';
import { toErrorDto } from '../../shared/errors.js';
import { readCfHeapLogFragment } from '../../shared/formats/cf-heaplog/cf-heaplog-reader.js';
import { decodeBlobPart } from '../../shared/formats/gcdump/blob-split.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { throttledProgress } from '../../shared/util/progress.js';
import { FileByteSource } from '../files/file-byte-source.js';
import { collectGarbage } from './collect-garbage.js';
import { PortHelperThread, serveHelperThread } from './helper-thread-port.js';
import type { AnalysisJob, SharedCore } from './analysis-runner.js';
import { resultBuffers, share } from './share-graph.js';
import type { BlobPartJob, FragmentJob } from './stretch-reader.js';

/**
 * Compute child of a snapshot worker: jobs off the thread that answers the snapshot's queries,
 * so the types grid keeps scrolling meanwhile. Jobs run in the order they arrive.
 * - Analysis (analysis-runner.ts says how two children share one analysis), graphs with
 *   SharedArrayBuffer-backed columns (no copy, see share-graph.ts):
 *   - 'dominance': dominators and retained sizes, then { type: 'core', core } (the arrays the
 *     per-type figures need, in SharedArrayBuffers), then the sorted dominator tree; the result
 *     has every field but the per-type ones;
 *   - 'retainers': the reverse reference index;
 *   - 'types': the per-type figures from a 'core';
 *   - 'lean': the app's low-memory plan, everything but the retainer index in one job
 *     (analyze.ts leanDominanceAnalysis, in the dominators' dead buffers, transferred, or
 *     shared where a helper thread made them SharedArrayBuffers); with `helper`, a port to
 *     the other child, which takes the jobs the analysis hands over (helper-thread-port.ts);
 *   - 'helper': serve those jobs on `port` (no reply of its own).
 *   Out: { type: 'progress', phase, done, total } (≤ 10 per second; 'dominance' only), then
 *   { type: 'done', part, result } with every result buffer transferred (zero-copy), or
 *   { type: 'error', error }.
 * - A stretch of a CF heap log read while the snapshot worker reads the rest (stretch-reader.ts):
 *   In: { part: 'cf-fragment', path, request }. Out: { type: 'progress', bytes }, then
 *   { type: 'done', result } with the fragment's arrays transferred, or { type: 'error', error }.
 * - The second half of a .gcdump node blob (stretch-reader.ts, shared/formats/gcdump/blob-split.ts):
 *   In: { part: 'gcdump-blob', path, request }. Out: as for 'cf-fragment', the part's arrays transferred.
 * - { part: 'prepare', role, nodes, edges }: allocate (and touch) the memory of the next
 *   'dominance' or 'retainers' job now, while the parse finishes (analysis-runner.ts
 *   prepareAnalysisChildren). No reply.
 * Cancellation is `worker.terminate()` by the owner: immediate, and it frees the scratch memory.
 */
const port = parentPort;
if (!port) throw new Error('analysis.worker must run in a worker thread');

/** Memory the next 'dominance' or 'retainers' job uses (see 'prepare'); dropped once used. */
let prepared: DominanceMemory | null = null;
let preparedRetainers: RetainersMemory | null = null;

port.on('message', (msg: AnalysisJob | FragmentJob | BlobPartJob) => {
  if (msg.part === 'cf-fragment') {
    void readFragment(msg);
    return;
  }
  if (msg.part === 'gcdump-blob') {
    void readBlobPart(msg);
    return;
  }
  if (msg.part === 'helper') {
    serveHelperThread(msg.port, msg.graph);
    return;
  }
  if (msg.part === 'prepare') {
    // only an optimisation: when the memory cannot be had (a wild hint), the job allocates its own later
    try {
      if (msg.role === 'dominance') prepared = prepareDominanceMemory(msg.nodes, msg.edges, true);
      else preparedRetainers = prepareRetainersMemory(msg.nodes, msg.edges);
    } catch {
      if (msg.role === 'dominance') prepared = null;
      else preparedRetainers = null;
    }
    return;
  }
  try {
    if (msg.part === 'retainers') {
      const memory = preparedRetainers;
      preparedRetainers = null;
      const result = buildRetainers(msg.graph, undefined, undefined, undefined, memory);
      port.postMessage({ type: 'done', part: msg.part, result }, resultBuffers(result));
    } else if (msg.part === 'lean') {
      const progress = throttledProgress((phase, done, total) => port.postMessage({ type: 'progress', phase, done, total }), 100);
      const helper = msg.helper ? new PortHelperThread(msg.helper) : null;
      const result = leanDominanceAnalysis(msg.graph, { progress, helper });
      helper?.close();
      port.postMessage({ type: 'done', part: msg.part, result }, resultBuffers(result));
    } else if (msg.part === 'types') {
      const { core } = msg;
      const result = typeRetentionOf(msg.graph, core, core.orderRetained, { firstOrderChild: core.firstOrderChild, orderChild: core.orderChild });
      port.postMessage({ type: 'done', part: msg.part, result }, resultBuffers(result));
    } else {
      dominance(msg.graph);
    }
  } catch (e) {
    port.postMessage({ type: 'error', error: toErrorDto(e) });
  }
});

const NO_TYPES = {
  typeRetained: new Float64Array(0),
  typeReachableCount: new Float64Array(0),
  typeReachableShallow: new Float64Array(0),
  typeUnreachableCount: new Float64Array(0),
  typeUnreachableShallow: new Float64Array(0),
};

/** The prepared memory, taken once: no variable keeps its scratch (semi, forest) alive after the dominators. */
function takePrepared(): DominanceMemory | null {
  const memory = prepared;
  prepared = null;
  return memory;
}

function dominance(graph: HeapGraph): void {
  const progress = throttledProgress((phase, done, total) => port!.postMessage({ type: 'progress', phase, done, total }), 100);
  const core = dominanceCore(graph, { progress, sharedMemory: true, prepared: takePrepared() });
  // born in SharedArrayBuffers: share() copies nothing (it would if one were not)
  const shared: SharedCore = {
    order: share(core.dom.order),
    orderIdom: share(core.dom.orderIdom),
    reachable: share(core.dom.reachable),
    orderRetained: share(core.orderRetained),
    firstOrderChild: share(core.orderTree.firstOrderChild),
    orderChild: share(core.orderTree.orderChild),
  };
  port!.postMessage({ type: 'core', core: shared });
  // The dominators' scratch (semidominators, DFS records, later-predecessor lists: ~25 bytes per
  // node on the benchmark heap) is garbage now, but this thread's JS heap hardly grows, so V8
  // would keep it resident while the sorted tree allocates its 12 bytes per node, which is the
  // app's peak: one full GC of a small heap frees it first (test/perf/app-memory.bench.ts).
  collectGarbage();
  const tree = dominatorTreeOf(graph, core, { progress });
  // the per-type fields come from the 'types' job
  const { typeRetained: _r, typeReachableCount: _c, typeReachableShallow: _s, typeUnreachableCount: _uc, typeUnreachableShallow: _us, ...rest } = retentionResult(graph, core, NO_TYPES);
  const result = { ...rest, treePosition: tree.treePosition, treeChildStart: tree.treeChildStart, domChildren: tree.domChildren };
  port!.postMessage({ type: 'done', part: 'dominance', result }, resultBuffers(result));
}

async function readFragment(job: FragmentJob): Promise<void> {
  const { from, chunkSize, maxLineBytes } = job.request;
  try {
    const source = await FileByteSource.open(job.path);
    try {
      const progress = throttledProgress((_phase, done) => port!.postMessage({ type: 'progress', bytes: done - from }), 100);
      const result = await readCfHeapLogFragment(source, from, { chunkSize, maxLineBytes, progress });
      port!.postMessage({ type: 'done', result }, resultBuffers(result));
    } finally {
      await source.close();
    }
  } catch (e) {
    port!.postMessage({ type: 'error', error: toErrorDto(e) });
  }
}

async function readBlobPart(job: BlobPartJob): Promise<void> {
  const req = job.request;
  try {
    const source = await FileByteSource.open(job.path);
    try {
      const start = req.blobStart + (req.to > req.from ? req.offsets[req.order ? req.order[req.from] : req.firstNode] : 0);
      const progress = throttledProgress((_phase, done) => port!.postMessage({ type: 'progress', bytes: Math.max(0, done - start) }), 100);
      const result = await decodeBlobPart(source, req, undefined, progress);
      port!.postMessage({ type: 'done', result }, resultBuffers(result));
    } finally {
      await source.close();
    }
  } catch (e) {
    port!.postMessage({ type: 'error', error: toErrorDto(e) });
  }
}

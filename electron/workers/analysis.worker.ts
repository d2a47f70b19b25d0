import { parentPort } from 'node:worker_threads';
import { analyzeGraph } from '../../shared/analysis/analyze.js';
import { toErrorDto } from '../../shared/errors.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { throttledProgress } from '../../shared/util/progress.js';
import { analysisBuffers } from './share-graph.js';

/**
 * Analysis worker: runs the dominator pipeline (analyze.ts) for one snapshot, off the thread that
 * answers the snapshot's queries, so the types grid keeps scrolling while dominators compute.
 *
 * In:  { graph } with SharedArrayBuffer-backed columns (no copy, see share-graph.ts).
 * Out: { type: 'progress', phase, done, total } (≤ 10 per second), then
 *      { type: 'done', analysis, ms } with every result buffer transferred (zero-copy), or
 *      { type: 'error', error }.
 * Cancellation is `worker.terminate()` by the owner: immediate, and it frees the scratch memory.
 */
const port = parentPort;
if (!port) throw new Error('analysis.worker must run in a worker thread');

port.once('message', (msg: { graph: HeapGraph }) => {
  const progress = throttledProgress((phase, done, total) => port.postMessage({ type: 'progress', phase, done, total }), 100);
  const t0 = performance.now();
  try {
    const analysis = analyzeGraph(msg.graph, { progress });
    port.postMessage({ type: 'done', analysis, ms: performance.now() - t0 }, analysisBuffers(analysis));
  } catch (e) {
    port.postMessage({ type: 'error', error: toErrorDto(e) });
  }
});

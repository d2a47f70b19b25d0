import { parentPort } from 'node:worker_threads';
import { analyzeDominance } from '../../shared/analysis/analyze.js';
import { buildRetainers } from '../../shared/analysis/retainers.js';
import { toErrorDto } from '../../shared/errors.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { throttledProgress } from '../../shared/util/progress.js';
import { resultBuffers } from './share-graph.js';

/**
 * Analysis worker: runs one part of a snapshot's analysis (analyze.ts), off the thread that
 * answers the snapshot's queries, so the types grid keeps scrolling while dominators compute.
 * Two run at once per snapshot (analysis-runner.ts): part 'dominance' (dominators, retained sizes,
 * dominator tree, per-type retained) and part 'retainers' (the reverse reference index).
 *
 * In:  { graph, part } with SharedArrayBuffer-backed columns (no copy, see share-graph.ts).
 * Out: { type: 'progress', phase, done, total } (≤ 10 per second), then
 *      { type: 'done', result, ms } with every result buffer transferred (zero-copy), or
 *      { type: 'error', error }.
 * Cancellation is `worker.terminate()` by the owner: immediate, and it frees the scratch memory.
 */
const port = parentPort;
if (!port) throw new Error('analysis.worker must run in a worker thread');

port.once('message', (msg: { graph: HeapGraph; part: 'dominance' | 'retainers' }) => {
  const progress = throttledProgress((phase, done, total) => port.postMessage({ type: 'progress', phase, done, total }), 100);
  const t0 = performance.now();
  try {
    const result = msg.part === 'retainers' ? buildRetainers(msg.graph, undefined, progress) : analyzeDominance(msg.graph, { progress });
    port.postMessage({ type: 'done', result, ms: performance.now() - t0 }, resultBuffers(result));
  } catch (e) {
    port.postMessage({ type: 'error', error: toErrorDto(e) });
  }
});

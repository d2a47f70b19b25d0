import { parentPort } from 'node:worker_threads';
import { analyzeDominance } from '../../shared/analysis/analyze.js';
import { buildRetainers } from '../../shared/analysis/retainers.js';
import { toErrorDto } from '../../shared/errors.js';
import { readCfHeapLogFragment } from '../../shared/formats/cf-heaplog/cf-heaplog-reader.js';
import { fragmentBuffers } from '../../shared/formats/cf-heaplog/section-fragment.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { throttledProgress } from '../../shared/util/progress.js';
import { FileByteSource } from '../files/file-byte-source.js';
import { resultBuffers } from './share-graph.js';
import type { FragmentJob } from './stretch-reader.js';

/**
 * Compute child of a snapshot worker: one job, off the thread that answers the snapshot's
 * queries, so the types grid keeps scrolling meanwhile.
 * - Analysis parts (analyze.ts; two run at once per snapshot, see analysis-runner.ts): part
 *   'dominance' (dominators, retained sizes, dominator tree, per-type retained) and part
 *   'retainers' (the reverse reference index).
 *   In:  { graph, part } with SharedArrayBuffer-backed columns (no copy, see share-graph.ts).
 *   Out: { type: 'progress', phase, done, total } (≤ 10 per second), then
 *        { type: 'done', result, ms } with every result buffer transferred (zero-copy), or
 *        { type: 'error', error }.
 * - A stretch of a CF heap log read while the snapshot worker reads the rest (stretch-reader.ts):
 *   In: { part: 'cf-fragment', path, request }. Out: { type: 'progress', bytes }, then
 *   { type: 'done', result } with the fragment's arrays transferred, or { type: 'error', error }.
 * Cancellation is `worker.terminate()` by the owner: immediate, and it frees the scratch memory.
 */
const port = parentPort;
if (!port) throw new Error('analysis.worker must run in a worker thread');

port.once('message', (msg: { graph: HeapGraph; part: 'dominance' | 'retainers' } | FragmentJob) => {
  if (msg.part === 'cf-fragment') {
    void readFragment(msg);
    return;
  }
  const progress = throttledProgress((phase, done, total) => port.postMessage({ type: 'progress', phase, done, total }), 100);
  const t0 = performance.now();
  try {
    const result = msg.part === 'retainers' ? buildRetainers(msg.graph, undefined, progress) : analyzeDominance(msg.graph, { progress });
    port.postMessage({ type: 'done', result, ms: performance.now() - t0 }, resultBuffers(result));
  } catch (e) {
    port.postMessage({ type: 'error', error: toErrorDto(e) });
  }
});

async function readFragment(job: FragmentJob): Promise<void> {
  const { from, chunkSize, maxLineBytes } = job.request;
  try {
    const source = await FileByteSource.open(job.path);
    try {
      const progress = throttledProgress((_phase, done) => port!.postMessage({ type: 'progress', bytes: done - from }), 100);
      const result = await readCfHeapLogFragment(source, from, { chunkSize, maxLineBytes, progress });
      port!.postMessage({ type: 'done', result }, fragmentBuffers(result));
    } finally {
      await source.close();
    }
  } catch (e) {
    port!.postMessage({ type: 'error', error: toErrorDto(e) });
  }
}

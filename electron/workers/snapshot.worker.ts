import { parentPort, workerData } from 'node:worker_threads';
import { toErrorDto } from '../../shared/errors.js';
import { collectGarbage } from './collect-garbage.js';
import { SnapshotHost } from './snapshot-host.js';
import type { FromWorker, SnapshotWorkerData, ToWorker, WorkerMethod } from './worker-protocol.js';

/**
 * Snapshot worker entry: owns the HeapGraphs of the sessions pinned to it and answers calls
 * `{type:'call', id, method, arg}` with `{type:'result', id, ok, value|error}` (errors as data,
 * never a thrown message). Calls run concurrently as far as JS allows: a call that waits for an
 * analysis does not block type-row calls behind it.
 *
 * `cancel {id}` for a call is accepted and ignored here: the long operations are cancelled by
 * session (load and analysis through `cancelLoad`, setRetained through `cancelSetRetained`) or
 * by the host itself (a superseded sunburst, a what-if's queries once the ignore list changed:
 * snapshot-host.ts `query`).
 */
const port = parentPort;
if (!port) throw new Error('snapshot.worker must run in a worker thread');
const data = (workerData ?? { analysis: null }) as SnapshotWorkerData;

const post = (m: FromWorker) => port.postMessage(m);
const host = new SnapshotHost(post, { analysis: data.analysis ?? null, analysisLimits: data.analysisLimits, debugJam: data.debugJam === true });

port.on('message', (m: ToWorker) => {
  if (m.type !== 'call') return;
  const method = m.method as WorkerMethod;
  const fn = (host as unknown as Record<WorkerMethod, ((arg: unknown) => Promise<unknown>) | undefined>)[method];
  if (typeof fn !== 'function') {
    post({ type: 'result', id: m.id, ok: false, error: { code: 'bug', message: `unknown worker method ${String(method)}` } });
    return;
  }
  fn.call(host, m.arg).then(
    (value) => {
      post({ type: 'result', id: m.id, ok: true, value });
      // a closed session's buffers go back to the OS now, not at some later GC (collect-garbage.ts)
      if (method === 'close') setImmediate(collectGarbage);
    },
    (e: unknown) => post({ type: 'result', id: m.id, ok: false, error: toErrorDto(e) }),
  );
});
post({ type: 'started' });

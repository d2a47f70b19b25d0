import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { runHelperJob, type HelperJob, type HelperThread } from '../../shared/analysis/helper-thread.js';
import { AppError, fromErrorDto, toErrorDto, type AppErrorDto } from '../../shared/errors.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { collectGarbage } from './collect-garbage.js';

/**
 * The second thread of the low-memory plan (shared/analysis/helper-thread.ts): the plan's
 * analysis runs in one child (analysis.worker.ts 'lean') and would leave the other child of the
 * pair idle, so that child takes the jobs the analysis hands over (half of each rescan pass, the
 * sort of the tree's widest run). It holds no memory of its own: every array is shared.
 *
 * The analysis is one synchronous call, so the child running it cannot wait for a message:
 * it posts each job on a MessagePort to the helper child and, when it needs the result, sleeps
 * on a status word in a SharedArrayBuffer (Atomics.wait, allowed in a worker) that the helper
 * sets when the job is done: [status, count]. A helper that throws posts the error on the port
 * first and sets status FAILED; the waiting side reads it with receiveMessageOnPort
 * (synchronous) and throws it. A helper that dies without a word (its thread terminated) is the
 * runner's to see: its 'exit' fails the analysis and terminates the waiting child too; the wait
 * sleeps in slices of a second, so that termination takes effect.
 */
const RUNNING = 0;
const DONE = 1;
const FAILED = 2;
/** How often join's `waiting` is called while the job runs (a progress bar's pace). */
const WAITING_REPORT_MS = 200;

interface JobMessage {
  job: HelperJob;
  status: Int32Array;
}

/** The analysis child's side: hands a job to the helper child behind `port`. */
export class PortHelperThread implements HelperThread {
  private readonly status = new Int32Array(new SharedArrayBuffer(8));
  private pending = false;

  constructor(private readonly port: MessagePort) {}

  start(job: HelperJob): void {
    if (this.pending) throw new AppError('bug', 'helper thread: a job started before the last one was joined');
    this.pending = true;
    // The rescan's first job comes right after the DFS, whose stack (grown by doubling: ~2 bytes per node
    // at 50M objects, its copies as much again) is garbage now. With the later-predecessor list
    // in a SharedArrayBuffer, V8 started no collection before the list was written, and that
    // garbage raised the peak by 1.5 bytes per node (app-memory bench, 100M objects): collect
    // it here, one full GC of a small heap.
    if (job.kind === 'rescan-count') collectGarbage();
    Atomics.store(this.status, 0, RUNNING);
    const message: JobMessage = { job, status: this.status };
    this.port.postMessage(message);
  }

  join(waiting?: () => void): number {
    if (!this.pending) throw new AppError('bug', 'helper thread: join without a job');
    // slices of a second (see above), or shorter when the caller reports progress meanwhile
    const slice = waiting ? WAITING_REPORT_MS : 1000;
    while (Atomics.load(this.status, 0) === RUNNING) {
      Atomics.wait(this.status, 0, RUNNING, slice);
      if (waiting && Atomics.load(this.status, 0) === RUNNING) waiting();
    }
    this.pending = false;
    if (Atomics.load(this.status, 0) === FAILED) {
      const dto = receiveMessageOnPort(this.port)?.message as AppErrorDto | undefined;
      throw dto ? fromErrorDto(dto) : new AppError('worker/crashed', 'the analysis helper thread failed');
    }
    return Atomics.load(this.status, 1);
  }

  close(): void {
    this.port.close();
  }
}

/** The helper child's side: runs each job that arrives on `port` over `graph`, until the port closes. */
export function serveHelperThread(port: MessagePort, graph: HeapGraph): void {
  port.on('message', ({ job, status }: JobMessage) => {
    let outcome = DONE;
    try {
      Atomics.store(status, 1, runHelperJob(graph, job));
    } catch (e) {
      port.postMessage(toErrorDto(e));
      outcome = FAILED;
    }
    Atomics.store(status, 0, outcome);
    Atomics.notify(status, 0);
  });
}

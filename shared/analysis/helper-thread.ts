import { BugError } from '../errors.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import { countLaterPredecessors, fillLaterPredecessors } from './dominators-rescan.js';
import { RunSorter } from './run-sorter.js';
import { prefetchForSemidominators } from './dominators-semi.js';
import { touchPages, type TouchSpan } from './page-touch.js';

/**
 * A second thread for the low-memory analysis (analyze.ts leanDominanceAnalysis), which is one
 * synchronous chain: the steps that split without extra memory are handed to it, one job at a
 * time, and the chain goes on with its own part meanwhile. shared/ stays pure: the host supplies
 * the thread (the app: electron/workers/helper-thread-port.ts, in the analysis child that the
 * low-memory plan leaves idle); without one every step runs on the calling thread.
 *
 * Every array a job names is in a SharedArrayBuffer, and the two threads never write the same
 * words while a job runs, so no step needs an atomic operation on the data (only the look-ahead
 * below syncs a position word, and the page touches are atomic compare-exchanges that change nothing):
 * - 'rescan-count' / 'rescan-fill': one share of a rescan pass (dominators-rescan.ts: the shares
 *   split the targets);
 * - 'sort-run': one long run of the dominator tree sorted in place by retained size
 *   (RunSorter.sortByLookup; dominator-tree.ts hands over the widest run, usually the root's,
 *   and sorts the rest and inverts the order meanwhile); it counts the entries placed in
 *   `placed`, for the tree phase's progress while the analysis thread waits for it;
 * - 'semi-prefetch': loads only, ahead of the semidominator pass (dominators-semi.ts
 *   prefetchForSemidominators), following the position the pass publishes in `control` with
 *   Atomics; the one word it writes is its own (control[1]), and it ends when the pass stores 0;
 * - 'touch-pages': commits the pages of fresh scratch ahead of the DFS that writes them
 *   (page-touch.ts: one atomic compare-exchange per page that changes no word), until done or until the
 *   caller stores 0 in `control`.
 *
 * `start` hands a job over and returns at once; `join` waits for it and returns its count (the
 * pairs a 'rescan-count' share counted; 0 otherwise), or throws the helper's coded error.
 */
export type HelperJob =
  | { readonly kind: 'rescan-count'; readonly rec: Uint32Array; readonly stride: number; readonly part: number }
  | { readonly kind: 'rescan-fill'; readonly rec: Uint32Array; readonly stride: number; readonly part: number; readonly pred: Uint32Array; readonly pairCount: number }
  | { readonly kind: 'sort-run'; readonly nodes: Uint32Array; readonly base: number; readonly k: number; readonly keyOf: Float64Array; readonly placed?: Int32Array | null }
  | { readonly kind: 'semi-prefetch'; readonly pred: Uint32Array; readonly forest: Uint32Array; readonly control: Int32Array }
  | { readonly kind: 'touch-pages'; readonly spans: readonly TouchSpan[]; readonly control: Int32Array };

export interface HelperThread {
  start(job: HelperJob): void;
  /** `waiting`, if given, is called now and then while the job still runs (a caller's progress report). */
  join(waiting?: () => void): number;
}

/** Runs `job` on this thread over `g`: the helper thread's side of every job. */
export function runHelperJob(g: HeapGraph, job: HelperJob): number {
  switch (job.kind) {
    case 'rescan-count':
      return countLaterPredecessors(g, job.rec, job.stride, job.part, 1, NEVER_CANCELLED);
    case 'rescan-fill':
      fillLaterPredecessors(g, job.rec, job.stride, job.pred, job.pairCount, job.part, 1, NEVER_CANCELLED);
      return 0;
    case 'sort-run': {
      const placed = job.placed ?? null;
      new RunSorter(0, true).sortByLookup(job.nodes, job.base, job.k, job.keyOf, placed && ((d) => Atomics.store(placed, 0, d)));
      return 0;
    }
    case 'semi-prefetch':
      return prefetchForSemidominators(job.pred, job.forest, job.control);
    case 'touch-pages':
      return touchPages(job.spans, job.control);
    default:
      throw new BugError(`helper thread: unknown job ${(job as { kind?: unknown }).kind}`);
  }
}

import type { HeapAnalysis } from '../analysis/analyze.js';
import { prepareSetRetainedScratch, SET_RETAINED_STEP, SetRetainedWalk, type SetRetainedScratch } from '../analysis/set-retained.js';
import { groupReachableInstances, type InstancesByType } from '../analysis/set-retained-scope.js';
import { AppError } from '../errors.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import type { SetRetainedResult } from '../ipc/contract.js';
import type { CancellationToken } from '../util/cancellation.js';

/** At most this many types per `setRetained` call (each costs up to one walk over the reachable graph). */
export const MAX_SET_RETAINED_TYPES = 1000;

/** How long a walk may hold the thread before it lets other queries run. */
const SLICE_MS = 30;

export interface SetRetainedRun {
  token: CancellationToken;
  /** Types finished of `total`, and the fraction done including the type being walked. */
  progress?(done: number, total: number, fraction: number): void;
  /** Give the thread back for a moment (the worker: one macrotask, so queued calls are answered). */
  pause(): Promise<void>;
  now?(): number;
}

/**
 * The types grid's set retained sizes (set-retained.ts), computed on demand and kept per type for
 * the session's life (the graph never changes). Each type costs up to one walk over the reachable graph,
 * so the walk runs in slices of about SLICE_MS with a `pause` between them: the session's worker
 * keeps answering grid windows and the cancel call meanwhile. Calls run one after the other (one
 * scratch: 4 bytes per node for the stack and 3 bits per node of marks, plus 4 bytes per reachable
 * node for the instances grouped by type, allocated on first use and kept).
 */
export class SetRetainedView {
  private readonly values: Float64Array;
  private scratch: SetRetainedScratch | null = null;
  private byType: InstancesByType | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly g: HeapGraph) {
    this.values = new Float64Array(g.types.count).fill(NaN);
  }

  /** The computed figure of type `t`, or null. */
  value(t: number): number | null {
    const v = this.values[t];
    return Number.isNaN(v) ? null : v;
  }

  /** Compute (or look up) `typeIndices`, after any call still running. */
  compute(a: HeapAnalysis, typeIndices: readonly number[], run: SetRetainedRun): Promise<SetRetainedResult> {
    this.check(typeIndices);
    const now = run.now ?? (() => Date.now());
    const t0 = now();
    const job = this.queue.then(() => this.walkAll(a, typeIndices, run, now)).then(() => ({
      rows: typeIndices.map((t) => ({ typeIndex: t, setRetainedSize: this.values[t] })),
      ms: Math.round(now() - t0),
    }));
    this.queue = job.catch(() => undefined);
    return job;
  }

  private check(typeIndices: readonly number[]): void {
    if (!Array.isArray(typeIndices) || typeIndices.length > MAX_SET_RETAINED_TYPES) {
      throw new AppError('usage/bad-argument', `setRetained takes a list of at most ${MAX_SET_RETAINED_TYPES} type indices`);
    }
    for (const t of typeIndices) {
      if (!Number.isInteger(t) || t < 0 || t >= this.g.types.count) throw new AppError('usage/bad-argument', `no type ${String(t)} in this snapshot`);
    }
  }

  private async walkAll(a: HeapAnalysis, typeIndices: readonly number[], run: SetRetainedRun, now: () => number): Promise<void> {
    const total = typeIndices.length;
    const r = Math.max(1, a.reachableCount);
    let sliceStart = now();
    for (let i = 0; i < total; i++) {
      run.token.throwIfCancelled();
      run.progress?.(i, total, i / total);
      const t = typeIndices[i];
      if (!Number.isNaN(this.values[t])) continue;
      this.scratch ??= prepareSetRetainedScratch(this.g.nodeCount);
      const byType = (this.byType ??= groupReachableInstances(this.g, a.reachable, run.token));
      const walk = new SetRetainedWalk(this.g, a, t, this.scratch, byType.nodes.subarray(byType.start[t], byType.start[t + 1]));
      while (!walk.step(SET_RETAINED_STEP)) {
        if (now() - sliceStart < SLICE_MS) continue;
        run.progress?.(i, total, (i + Math.min(1, walk.scanned / r)) / total);
        await run.pause();
        // calls are queued, so nothing else touched the scratch meanwhile; a cancel may have come
        run.token.throwIfCancelled();
        sliceStart = now();
      }
      this.values[t] = walk.result;
    }
    run.progress?.(total, total, 1);
  }
}

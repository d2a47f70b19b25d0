import type { HeapGraph } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';
import { countsOutEdges } from './counted-edges.js';

/**
 * A type's set retained size (Eclipse MAT's "precise retained size" of a set of objects): the
 * bytes that become unreachable when every instance of the type is removed from the heap.
 *
 *   setRetained(t) = reachableSize − Σ self size of what the root still reaches over counted
 *                    references when no instance of t may be entered.
 *
 * Reachability is the dominator analysis' own (analyze.ts): from `g.rootIndex`, over every
 * reference except those out of NODE_WEAK_EDGES nodes (`countsOutEdges`), so unreachable objects
 * are in neither term and never count, and pseudo-nodes count like any node (their size is 0; a
 * pseudo type's figure is what its nodes keep alive). Removing the root's own type frees the
 * whole reachable heap.
 *
 * It is never smaller than the type retained size (type-retained.ts, Σ retained of the instances
 * no other instance dominates), and larger exactly when instances keep something alive jointly
 * (one array shared by two Lists: neither List dominates it, removing both frees it).
 *
 * Cost: one marking walk over the reachable graph per type, O(R + E) time (R reachable nodes, E
 * their references), the same order as the DFS of the dominator analysis; memory 4 bytes per node
 * for the stack (each node is pushed at most once) and 1 bit per node for the marks, allocated
 * once and reused for every type. Types with no reachable instance cost nothing (their figure is 0).
 * There is no cheaper exact method in general: the freed set is what a virtual node standing for
 * all instances dominates, which needs a reachability or dominator pass per type.
 */
export interface SetRetainedScratch {
  /** 1 bit per node: seen by the current walk. */
  readonly marks: Uint32Array;
  /** Nodes seen but not yet scanned; a node is pushed once, so nodeCount words suffice. */
  readonly stack: Uint32Array;
}

export function prepareSetRetainedScratch(nodeCount: number): SetRetainedScratch {
  return { marks: new Uint32Array((nodeCount + 31) >>> 5), stack: new Uint32Array(Math.max(1, nodeCount)) };
}

/** What the walk needs from the dominator analysis (HeapAnalysis has all of it). */
export interface SetRetainedBasis {
  readonly reachableCount: number;
  readonly reachableSize: number;
  /** Reachable instances per type: a type with none needs no walk. */
  readonly typeReachableCount: Float64Array;
}

/** How many nodes a walk scans per `step` in the drivers here (and between cancellation checks). */
export const SET_RETAINED_STEP = 0x10000;

/**
 * The set retained size of type `t` as a resumable walk: `step(budget)` scans up to `budget` more
 * nodes and says whether the walk is finished; `scanned` counts the nodes scanned so far (at most
 * the reachable count) and `result` is the figure once finished. A caller that must stay
 * responsive (the app's session worker) runs steps between other work; `setRetainedOf` runs it to
 * the end. (A class rather than a generator: the generator's suspension points cost ~50% more
 * time per node in V8.)
 */
export class SetRetainedWalk {
  scanned = 0;
  result = NaN;
  private sp = 0;
  private kept = 0;

  constructor(
    private readonly g: HeapGraph,
    private readonly basis: SetRetainedBasis,
    private readonly t: number,
    private readonly scratch: SetRetainedScratch,
  ) {
    const root = g.rootIndex;
    if (g.nodeType[root] === t) this.result = basis.reachableSize;
    else if (!(basis.typeReachableCount[t] > 0)) this.result = 0;
    else {
      scratch.marks.fill(0);
      scratch.marks[root >>> 5] |= 1 << (root & 31);
      scratch.stack[0] = root;
      this.sp = 1;
    }
  }

  get done(): boolean {
    return !Number.isNaN(this.result);
  }

  /** Scan up to `budget` nodes; true once the walk is finished (`result` set). */
  step(budget: number): boolean {
    if (this.done) return true;
    const { marks, stack } = this.scratch;
    const g = this.g;
    const t = this.t;
    const nodeType = g.nodeType;
    const selfSize = g.selfSize;
    const firstEdge = g.firstEdge;
    const edgeTarget = g.edgeTarget;
    const flags = g.nodeFlags;
    let sp = this.sp;
    let kept = this.kept;
    let left = budget;
    while (sp > 0 && left > 0) {
      left--;
      const v = stack[--sp];
      kept += selfSize[v];
      if (!countsOutEdges(flags, v)) continue;
      const end = firstEdge[v + 1];
      for (let e = firstEdge[v]; e < end; e++) {
        const w = edgeTarget[e];
        const bit = 1 << (w & 31);
        const word = w >>> 5;
        if ((marks[word] & bit) !== 0) continue;
        // an instance of t is marked too, so its other referrers skip it without reading its type
        marks[word] |= bit;
        if (nodeType[w] !== t) stack[sp++] = w;
      }
    }
    this.sp = sp;
    this.kept = kept;
    this.scanned += budget - left;
    if (sp === 0) this.result = this.basis.reachableSize - kept;
    return sp === 0;
  }
}

/** A SetRetainedWalk run to the end, checking `token` every SET_RETAINED_STEP nodes. */
export function setRetainedOf(g: HeapGraph, basis: SetRetainedBasis, t: number, scratch: SetRetainedScratch, token: CancellationToken = NEVER_CANCELLED): number {
  token.throwIfCancelled();
  const walk = new SetRetainedWalk(g, basis, t, scratch);
  while (!walk.step(SET_RETAINED_STEP)) token.throwIfCancelled();
  return walk.result;
}

/**
 * The set retained sizes of `types`, in that order (the CLI's `report --set-retained`). Progress
 * phase 'set-retained': done/total count scanned nodes, with every type budgeted at the reachable
 * node count (a walk scans at most that many). Throws CancelledError when `token` fires.
 */
export function computeSetRetained(
  g: HeapGraph,
  basis: SetRetainedBasis,
  types: ArrayLike<number>,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
): Float64Array {
  const out = new Float64Array(types.length);
  const total = types.length * basis.reachableCount;
  progress('set-retained', 0, total);
  if (types.length === 0) return out;
  const scratch = prepareSetRetainedScratch(g.nodeCount);
  for (let i = 0; i < types.length; i++) {
    const base = i * basis.reachableCount;
    token.throwIfCancelled();
    const walk = new SetRetainedWalk(g, basis, types[i], scratch);
    while (!walk.step(SET_RETAINED_STEP)) {
      token.throwIfCancelled();
      progress('set-retained', base + walk.scanned, total);
    }
    out[i] = walk.result;
    progress('set-retained', base + basis.reachableCount, total);
  }
  return out;
}

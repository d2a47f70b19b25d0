import { AppError } from '../errors.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';
import { countsOutEdges } from './counted-edges.js';
import { commonDominator, groupReachableInstances, reachableInstancesOf } from './set-retained-scope.js';

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
 * Cost: at most one marking walk over the reachable graph per type, O(R + E) time (R reachable
 * nodes, E their references), the same order as the DFS of the dominator analysis, and usually
 * far less: the walk is confined to the dominator subtree of the instances' nearest common
 * dominator, and skipped when that node is an instance (set-retained-scope.ts). Memory: 4 bytes
 * per node for the stack (each node is pushed at most once) and 3 bits per node of marks,
 * allocated once and reused for every type (plus 4 bytes per level of the deepest idom chain
 * climbed); 4 bytes per reachable node for the instances grouped by type when several types are
 * computed. Types with no reachable instance cost nothing.
 * There is no cheaper exact method in general: the freed set is what a virtual node standing for
 * all instances dominates, which needs a reachability or dominator pass per type.
 */
export interface SetRetainedScratch {
  /** 1 bit per node: seen by the current walk (first the common-dominator climb's marks). */
  readonly marks: Uint32Array;
  /** 1 bit per node each: whether the node's place relative to the walk's subtree is known, and inside it. */
  readonly known: Uint32Array;
  readonly inside: Uint32Array;
  /** Nodes seen but not yet scanned; a node is pushed once, so nodeCount words suffice. */
  readonly stack: Uint32Array;
  /** An idom chain being resolved (grown on demand). */
  chain: Uint32Array;
}

export function prepareSetRetainedScratch(nodeCount: number): SetRetainedScratch {
  const words = (nodeCount + 31) >>> 5;
  return { marks: new Uint32Array(words), known: new Uint32Array(words), inside: new Uint32Array(words), stack: new Uint32Array(Math.max(1, nodeCount)), chain: new Uint32Array(256) };
}

/** What the walk needs from the dominator analysis (HeapAnalysis and TypeRetention have all of it). */
export interface SetRetainedBasis {
  readonly reachableCount: number;
  readonly reachableSize: number;
  readonly idom: Uint32Array;
  readonly retainedSize: Float64Array;
  readonly reachable: Uint8Array;
}

/** How many nodes a walk scans per `step` in the drivers here (and between cancellation checks). */
export const SET_RETAINED_STEP = 0x10000;

/**
 * The set retained size of type `t` as a resumable walk: `step(budget)` scans up to `budget` more
 * nodes and says whether the walk is finished; `scanned` counts the nodes scanned so far (at most
 * the reachable count) and `result` is the figure once finished. A caller that must stay
 * responsive (the app's session worker) runs steps between other work; `setRetainedOf` runs it to
 * the end. (A class rather than a generator: the generator's suspension points cost ~50% more
 * time per node in V8.) `instances` are t's reachable instances (reachableInstancesOf or a
 * grouping); the constructor finds their common dominator, which costs at most R climbing steps.
 */
export class SetRetainedWalk {
  scanned = 0;
  result = NaN;
  /** Where the walk starts: the instances' nearest common dominator (NONE when no walk is needed). */
  readonly top: number = NONE;
  private sp = 0;
  private kept = 0;
  /** The walk covers every reachable node (top = root): no subtree test. */
  private readonly whole: boolean = true;

  constructor(
    private readonly g: HeapGraph,
    private readonly basis: SetRetainedBasis,
    private readonly t: number,
    private readonly scratch: SetRetainedScratch,
    instances: Uint32Array,
  ) {
    const root = g.rootIndex;
    if (g.nodeType[root] === t) {
      this.result = basis.reachableSize;
      return;
    }
    if (instances.length === 0) {
      this.result = 0;
      return;
    }
    const { marks, known, inside, stack } = scratch;
    marks.fill(0);
    const c = commonDominator(basis.idom, root, instances, marks, basis.reachableCount);
    if (g.nodeType[c] === t) {
      this.result = basis.retainedSize[c];
      return;
    }
    this.top = c;
    this.whole = c === root;
    marks.fill(0);
    if (!this.whole) {
      known.fill(0);
      inside.fill(0);
      known[c >>> 5] |= 1 << (c & 31);
      inside[c >>> 5] |= 1 << (c & 31);
    }
    marks[c >>> 5] |= 1 << (c & 31);
    stack[0] = c;
    this.sp = 1;
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
    const whole = this.whole;
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
        // instances and nodes outside the subtree are marked too, so other referrers skip them at once
        marks[word] |= bit;
        if (nodeType[w] !== t && (whole || this.inSubtree(w))) stack[sp++] = w;
      }
    }
    this.sp = sp;
    this.kept = kept;
    this.scanned += budget - left;
    if (sp === 0) this.result = this.basis.retainedSize[this.top] - kept;
    return sp === 0;
  }

  /** Whether `top` dominates w: climb w's idom chain to a node already placed, then place the chain. */
  private inSubtree(w: number): boolean {
    const { known, inside } = this.scratch;
    const idom = this.basis.idom;
    let chain = this.scratch.chain;
    let len = 0;
    let u = w;
    let found = false;
    for (;;) {
      if ((known[u >>> 5] & (1 << (u & 31))) !== 0) {
        found = (inside[u >>> 5] & (1 << (u & 31))) !== 0;
        break;
      }
      if (len === chain.length) {
        const grown = new Uint32Array(2 * len);
        grown.set(chain);
        chain = this.scratch.chain = grown;
      }
      chain[len++] = u;
      u = idom[u];
      if (u === NONE) break; // passed the root without meeting top: outside
    }
    for (let i = 0; i < len; i++) {
      const x = chain[i];
      known[x >>> 5] |= 1 << (x & 31);
      if (found) inside[x >>> 5] |= 1 << (x & 31);
    }
    return found;
  }
}

/** A SetRetainedWalk run to the end, checking `token` every SET_RETAINED_STEP nodes. */
export function setRetainedOf(
  g: HeapGraph,
  basis: SetRetainedBasis,
  t: number,
  scratch: SetRetainedScratch,
  token: CancellationToken = NEVER_CANCELLED,
  instances: Uint32Array = reachableInstancesOf(g, basis.reachable, t),
): number {
  token.throwIfCancelled();
  const walk = new SetRetainedWalk(g, basis, t, scratch, instances);
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
  const byType = groupReachableInstances(g, basis.reachable, token);
  for (let i = 0; i < types.length; i++) {
    const base = i * basis.reachableCount;
    token.throwIfCancelled();
    const t = types[i];
    if (!(t >= 0 && t < g.types.count)) throw new AppError('usage/bad-argument', `no type ${t} in this snapshot`);
    const walk = new SetRetainedWalk(g, basis, t, scratch, byType.nodes.subarray(byType.start[t], byType.start[t + 1]));
    while (!walk.step(SET_RETAINED_STEP)) {
      token.throwIfCancelled();
      progress('set-retained', base + walk.scanned, total);
    }
    out[i] = walk.result;
    progress('set-retained', base + basis.reachableCount, total);
  }
  return out;
}

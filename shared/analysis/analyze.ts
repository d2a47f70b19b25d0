import type { HeapGraph } from '../graph/heap-graph.js';
import { GEN_FROZEN, NODE_PSEUDO, NODE_UNDEFINED } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';
import { newFloat64Array } from '../util/typed-arrays.js';
import { buildDominatorTree, buildOrderTree, type DominatorTree, type OrderTree } from './dominator-tree.js';
import type { HelperThread } from './helper-thread.js';
import { computeDominators, prepareDominatorScratch, type DominatorScratch, type Dominators } from './dominators.js';
import { leanTypeRetention } from './lean-retention.js';
import { computeOrderRetained, computeRetainedSizes, retainedByNode, type RetainedSizes } from './retained-sizes.js';
import { buildRetainers } from './retainers.js';
import { computeTypeRetained, type TypeRetained } from './type-retained.js';

/**
 * Everything the app and the CLI need about who keeps what alive, computed once per snapshot.
 *
 * Exact, not approximated: `idom` are true immediate dominators (Lengauer–Tarjan over the
 * counted references, see dominators.ts) and `retainedSize[n]` is exactly the bytes freed if n
 * went away. PerfView / Visual Studio "inclusive size" is a different, heuristic figure (see
 * perfview-inclusive.ts) and is never reported as retained.
 *
 * Which references count: all except those out of NODE_WEAK_EDGES nodes (weak handles do not
 * keep objects alive), decided by the one predicate in counted-edges.ts.
 *
 * Unreachable policy. A .gcdump keeps objects that no root reaches (dead but not yet collected,
 * or held only weakly). They never influence live results: dominators are computed on the
 * reachable subgraph only, and references out of unreachable objects are ignored, so a dead
 * clique pointing into the live heap cannot make a live object look doubly held. (Attaching them
 * under the root, DevTools-style, would do exactly that.) For an unreachable node:
 *   - idom is NONE (it is the top of its own one-node tree, listed after the root in
 *     `forestRoots(tree)`);
 *   - retainedSize = its own size: garbage frees only itself when "removed", so sizes stay
 *     additive and Σ retained over the forest roots = totalSize;
 *   - it counts in `unreachableCount` / `unreachableSize` (nodes), and when it is a heap object
 *     in `unreachableObjectCount` / `unreachableObjectSize` and the per-type unreachable columns.
 *
 * Objects and nodes. `reachableCount` / `unreachableCount` count graph nodes, pseudo-nodes (the
 * root, root categories, static-variable holders) and undefined nodes included; every figure
 * shown as "objects" uses the `…Object…` fields, which count heap objects only (type-stats.ts).
 *
 * Frozen (non-GC heap) objects (GEN_FROZEN: string literals, RuntimeType objects) are never
 * collected, yet the runtime reports no root for most of them. Those no root reaches stay out of
 * the dominator tree like any unreachable object, but are counted apart in
 * `unreachableFrozenCount` / `unreachableFrozenSize`, so that "garbage or weakly held" =
 * unreachable objects − unreachable frozen objects. (ClrMD and dotnet-dump likewise list them as
 * live objects without roots.)
 *
 * Invariants (tested): retainedSize[root] = reachableSize; reachableSize + unreachableSize =
 * g.totalSize; typeRetained[t] ≤ reachableSize.
 *
 * Memory of the result, per node: idom 4, retainedSize 8, reachable 1, treePosition 4,
 * domChildren 4, firstRetainer 4 (+ 4 per reference for retainerNode, and 4 per reachable node
 * for treeChildStart) = 25 bytes per node and
 * 4 per reference, on top of the graph's 22 + 4. Transient peak, inside `computeDominators`:
 * about 12 bytes per node + 12 per cross/back reference more (see dominators.ts); on
 * analyzeTypeRetention's path (`heapscope report`) 20 per node + 4 per cross/back reference in
 * all, and no later phase takes more (lean-retention.ts).
 */
export interface HeapAnalysis {
  readonly idom: Uint32Array; // NONE for root and unreachable
  readonly retainedSize: Float64Array; // exact, per node
  readonly reachable: Uint8Array; // 1 = reachable from the root through counted edges
  readonly reachableCount: number;
  readonly reachableSize: number;
  readonly unreachableCount: number;
  readonly unreachableSize: number;
  /** Heap objects (pseudo and undefined nodes excluded) reachable from the root. */
  readonly reachableObjectCount: number;
  /** Heap objects no root reaches, frozen ones included, and their Σ size. */
  readonly unreachableObjectCount: number;
  readonly unreachableObjectSize: number;
  /** The frozen (non-GC heap) objects among those: never collected, so not garbage. */
  readonly unreachableFrozenCount: number;
  readonly unreachableFrozenSize: number;
  readonly treePosition: Uint32Array; // the dominator tree (dominator-tree.ts): children sorted by retained desc
  readonly treeChildStart: Uint32Array;
  readonly domChildren: Uint32Array;
  readonly typeRetained: Float64Array; // per type, no double counting
  readonly typeReachableCount: Float64Array;
  readonly typeReachableShallow: Float64Array;
  readonly typeUnreachableCount: Float64Array; // heap objects only; frozen ones included
  readonly typeUnreachableShallow: Float64Array;
  readonly retainers: { firstRetainer: Uint32Array; retainerNode: Uint32Array };
}

/** Everything but the retainer index: what depends on dominators. */
export type DominanceAnalysis = Omit<HeapAnalysis, 'retainers'>;

export interface AnalyzeOptions {
  token?: CancellationToken;
  progress?: ProgressSink;
  /**
   * The core's arrays another thread reads (`dom.order`, `dom.orderIdom`, `dom.reachable`,
   * `orderRetained`, `orderTree`) are allocated in SharedArrayBuffers (dominanceCore only): no
   * copy to share them.
   */
  sharedMemory?: boolean;
  /** Memory prepared ahead of time (prepareDominanceMemory; dominanceCore only). */
  prepared?: DominanceMemory | null;
  /**
   * analyzeTypeRetention without shared or prepared memory only (default true): the dominators
   * find their later predecessors by rescanning the references ('rescan' in dominators.ts)
   * instead of storing them during the DFS: 12 bytes per cross or back reference less at the
   * peak (about 15 per node on the synthetic benchmark heap), for about 20% more CPU in the
   * analysis. `heapscope report` runs this path, whose point is the lowest peak.
   */
  lowMemory?: boolean;
  /**
   * A second thread (helper-thread.ts; leanDominanceAnalysis only): it takes half of the
   * rescan's passes and the sort of the tree's widest run. The DFS records and the
   * later-predecessor list are then born in SharedArrayBuffers, and so are the result columns
   * that reuse their memory.
   */
  helper?: HelperThread | null;
}

/**
 * dominanceCore's big arrays, allocated and touched before the graph exists (the app does it in
 * its analysis worker while the parse finishes: see DominatorScratch for why). Single use;
 * whatever is too small for the graph is allocated afresh instead.
 */
export interface DominanceMemory {
  dominators: DominatorScratch;
  retained: RetainedSizes;
}

/** For a graph of about `nodes` nodes and `edges` references; `sharedMemory` as in AnalyzeOptions. */
export function prepareDominanceMemory(nodes: number, edges: number, sharedMemory = false): DominanceMemory {
  return {
    dominators: prepareDominatorScratch(nodes, edges, sharedMemory),
    retained: { orderRetained: newFloat64Array(nodes, sharedMemory).fill(0), retainedSize: new Float64Array(nodes).fill(0) },
  };
}

/**
 * Run the whole pipeline. Progress phases, in order: 'retainers', 'dominators', 'retained',
 * 'tree', 'types'. Throws CancelledError when `token` fires (checked every 64Ki iterations).
 *
 * The retainer index and the rest do not depend on each other: the app builds them on two
 * threads (analysis-runner.ts), this runs them one after the other.
 */
export function analyzeGraph(g: HeapGraph, opts: AnalyzeOptions = {}): HeapAnalysis {
  const retainers = buildRetainers(g, opts.token ?? NEVER_CANCELLED, opts.progress ?? NO_PROGRESS);
  return { ...analyzeDominance(g, opts), retainers: { firstRetainer: retainers.firstRetainer, retainerNode: retainers.retainerNode } };
}

/** Dominators, retained sizes, the dominator tree and per-type retained sizes (phases 'dominators' … 'types'). */
export function analyzeDominance(g: HeapGraph, opts: AnalyzeOptions = {}): DominanceAnalysis {
  const { result, tree } = retention(g, opts, true);
  return { ...result, treePosition: tree!.treePosition, treeChildStart: tree!.treeChildStart, domChildren: tree!.domChildren };
}

/** Everything but the retainer index and the sorted dominator tree. */
export type TypeRetention = Omit<DominanceAnalysis, 'treePosition' | 'treeChildStart' | 'domChildren'>;

/**
 * What a per-type report needs (retained sizes, per-type retained, reachability) without the
 * dominator tree with its sorted child lists, which only tree views read: `heapscope report`
 * skips 0.5–0.7 s of a 5M-object analysis this way. Phases 'dominators', 'retained', 'types'.
 */
export function analyzeTypeRetention(g: HeapGraph, opts: AnalyzeOptions = {}): TypeRetention {
  // the same numbers as analyzeDominance (tested), minus the tree
  return retention(g, opts, false).result;
}

function retention(g: HeapGraph, opts: AnalyzeOptions, withTree: boolean): { result: TypeRetention; tree: DominatorTree | null } {
  const token = opts.token ?? NEVER_CANCELLED;
  const progress = opts.progress ?? NO_PROGRESS;
  if (!withTree) return { result: leanRetention(g, opts, token, progress), tree: null };
  const core = dominanceCore(g, opts);
  const tree = buildDominatorTree(core.dom, core.orderTree, core.orderRetained, g.selfSize, g.rootIndex, token, progress, core.retainedSize);
  const types = computeTypeRetained(g, core.dom, core.orderTree, core.orderRetained, token, progress);
  return { result: retentionResult(g, core, types, token), tree };
}

/**
 * dominanceCore and the per-type pass in the order that holds the least at once: the per-node
 * retained sizes (8 bytes per node) are made after the per-type pass, in the memory of its
 * position tree (8 per reachable node), so the two never take memory together. Same arithmetic, same
 * numbers (tested against analyzeDominance). Without shared or prepared memory (`heapscope
 * report`) it goes further: lean-retention.ts puts every array after the dominators in the
 * buffers they left dead (see test/perf/peak-memory.bench.ts).
 */
function leanRetention(g: HeapGraph, opts: AnalyzeOptions, token: CancellationToken, progress: ProgressSink): TypeRetention {
  const shared = opts.sharedMemory === true;
  const prepared = opts.prepared ?? null;
  if (!shared && prepared === null) {
    // the CLI: every array after the dominators in memory they left dead (lean-retention.ts)
    const lean = leanTypeRetention(g, token, progress, opts.lowMemory === false ? 'buckets' : 'rescan');
    return retentionResult(g, { dom: lean.dom as Dominators, retainedSize: lean.retainedSize, orderRetained: lean.orderRetained }, lean.types, token);
  }
  const dom = computeDominators(g, token, progress, 'auto', 'auto', shared, prepared?.dominators ?? null);
  const orderRetained = computeOrderRetained(g.selfSize, dom, token, progress, shared, prepared?.retained ?? null);
  // 'retained' ends here, so phases keep their order; its last third (one O(N) scatter) runs after 'types'
  progress('retained', 3 * dom.order.length, 3 * dom.order.length);
  // The position tree (8R + 4 bytes) and then the per-node sizes (8N) in one buffer: garbage is
  // freed only when V8 next collects, so a tree merely dropped would still be resident beside a
  // new column. Not with sharedMemory (the app's children share the tree, dominanceCore).
  const storage = shared ? null : new ArrayBuffer(8 * (g.nodeCount + 1));
  const types = computeTypeRetained(g, dom, buildOrderTree(dom, token, shared, storage), orderRetained, token, progress);
  const retainedSize = retainedByNode(g.selfSize, dom.order, orderRetained, token, prepared?.retained ?? null, storage);
  return retentionResult(g, { dom, retainedSize, orderRetained }, types, token);
}

/**
 * analyzeDominance in as little memory as `heapscope report`'s analysis (the app's low-memory
 * plan: analysis.worker.ts 'lean'): the dominators rescan for their later predecessors, every
 * array after them lives in a buffer they left dead (lean-retention.ts), and the sorted tree
 * takes the last two: `domChildren` in the position tree's child list (when that buffer, the
 * later-predecessor list, holds n words) and `treePosition` in `order`'s, inverted in place
 * (dominator-tree.ts invertOrderInPlace). So the result is the dominators' own buffers: `idom`
 * in the DFS parents, `retainedSize` in the DFS records, `treeChildStart` in the semidominators,
 * `treePosition` in the preorder, `domChildren` in the later predecessors; `reachable` is the
 * one new column. Same numbers as analyzeDominance (tested); no shared memory, so the caller
 * transfers the buffers rather than sharing them. Phases 'dominators', 'retained', 'types', 'tree'.
 */
export function leanDominanceAnalysis(g: HeapGraph, opts: Pick<AnalyzeOptions, 'token' | 'progress' | 'helper'> = {}): DominanceAnalysis {
  const token = opts.token ?? NEVER_CANCELLED;
  const progress = opts.progress ?? NO_PROGRESS;
  const helper = opts.helper ?? null;
  const lean = leanTypeRetention(g, token, progress, 'rescan', helper);
  const { order, reachable } = lean.dom;
  // the summary first: it counts `order`, which the tree then turns into treePosition
  const result = retentionResult(g, { dom: lean.dom as Dominators, retainedSize: lean.retainedSize, orderRetained: lean.orderRetained }, lean.types, token);
  const { orderChild } = lean.tree;
  const n = g.nodeCount;
  const inPlace = orderChild.byteOffset === 0 && orderChild.buffer.byteLength >= 4 * n ? new Uint32Array(orderChild.buffer, 0, n) : null;
  const tree = buildDominatorTree({ order, reachable }, lean.tree, null, g.selfSize, g.rootIndex, token, progress, lean.retainedSize, { domChildren: inPlace, positionsInOrder: true, helper });
  return { ...result, treePosition: tree.treePosition, treeChildStart: tree.treeChildStart, domChildren: tree.domChildren };
}

/** Dominators and retained sizes: what the dominator tree and the per-type figures are built from. */
export interface DominanceCore {
  dom: Dominators;
  retainedSize: Float64Array;
  orderRetained: Float64Array;
  /** The dominator tree over positions, which both the sorted tree and the per-type pass walk. */
  orderTree: OrderTree;
}

/** Phases 'dominators' and 'retained'. */
export function dominanceCore(g: HeapGraph, opts: AnalyzeOptions = {}): DominanceCore {
  const token = opts.token ?? NEVER_CANCELLED;
  const progress = opts.progress ?? NO_PROGRESS;
  const shared = opts.sharedMemory === true;
  const prepared = opts.prepared ?? null;
  const dom = computeDominators(g, token, progress, 'auto', 'auto', shared, prepared?.dominators ?? null);
  const { retainedSize, orderRetained } = computeRetainedSizes(g.selfSize, dom, token, progress, shared, prepared?.retained ?? null);
  return { dom, retainedSize, orderRetained, orderTree: buildOrderTree(dom, token, shared) };
}

/**
 * The per-type figures from a core computed elsewhere (another thread: see analysis-runner.ts;
 * only `order`, `orderIdom` and `reachable` of its Dominators are read). Phase 'types'.
 */
export function typeRetentionOf(g: HeapGraph, dom: Pick<Dominators, 'order' | 'orderIdom' | 'reachable'>, orderRetained: Float64Array, orderTree: OrderTree, opts: AnalyzeOptions = {}): TypeRetained {
  return computeTypeRetained(g, dom as Dominators, orderTree, orderRetained, opts.token ?? NEVER_CANCELLED, opts.progress ?? NO_PROGRESS);
}

/** The sorted dominator tree from a core (phase 'tree'). */
export function dominatorTreeOf(g: HeapGraph, core: DominanceCore, opts: AnalyzeOptions = {}): DominatorTree {
  const token = opts.token ?? NEVER_CANCELLED;
  return buildDominatorTree(core.dom, core.orderTree, core.orderRetained, g.selfSize, g.rootIndex, token, opts.progress ?? NO_PROGRESS, core.retainedSize);
}

/** The summary figures of a core plus its per-type figures. */
export function retentionResult(g: HeapGraph, core: Pick<DominanceCore, 'dom' | 'retainedSize' | 'orderRetained'>, types: TypeRetained, token: CancellationToken = NEVER_CANCELLED): TypeRetention {
  const n = g.nodeCount;
  const { idom, reachable } = core.dom;
  // the root retains exactly the reachable nodes (position 0 of `order` is the root): no pass over n
  const reachableSize = core.orderRetained.length > 0 ? core.orderRetained[0] : 0;
  const reachableCount = core.dom.order.length;
  const objects = objectReachability(g, reachable, token);
  return {
    idom,
    retainedSize: core.retainedSize,
    reachable,
    reachableCount,
    reachableSize,
    unreachableCount: n - reachableCount,
    unreachableSize: g.totalSize - reachableSize,
    reachableObjectCount: reachableCount - objects.reachableNonObjects,
    unreachableObjectCount: objects.unreachableCount,
    unreachableObjectSize: objects.unreachableSize,
    unreachableFrozenCount: objects.frozenCount,
    unreachableFrozenSize: objects.frozenSize,
    typeRetained: types.typeRetained,
    typeReachableCount: types.typeReachableCount,
    typeReachableShallow: types.typeReachableShallow,
    typeUnreachableCount: types.typeUnreachableCount,
    typeUnreachableShallow: types.typeUnreachableShallow,
  };
}

/**
 * How many reachable nodes are not heap objects, and the unreachable heap objects (frozen ones
 * apart). One sequential pass over two byte columns; sizes and generations are read for
 * unreachable objects only. O(N), no allocation.
 */
function objectReachability(g: HeapGraph, reachable: Uint8Array, token: CancellationToken): { reachableNonObjects: number; unreachableCount: number; unreachableSize: number; frozenCount: number; frozenSize: number } {
  const { nodeFlags, selfSize, generation, nodeCount } = g;
  const NOT_OBJECT = NODE_PSEUDO | NODE_UNDEFINED;
  let reachableNonObjects = 0;
  let unreachableCount = 0;
  let unreachableSize = 0;
  let frozenCount = 0;
  let frozenSize = 0;
  for (let v = 0; v < nodeCount; v++) {
    if ((v & 0xffff) === 0) token.throwIfCancelled();
    if (nodeFlags[v] & NOT_OBJECT) {
      if (reachable[v] !== 0) reachableNonObjects++;
    } else if (reachable[v] === 0) {
      unreachableCount++;
      unreachableSize += selfSize[v];
      if (generation[v] === GEN_FROZEN) {
        frozenCount++;
        frozenSize += selfSize[v];
      }
    }
  }
  return { reachableNonObjects, unreachableCount, unreachableSize, frozenCount, frozenSize };
}

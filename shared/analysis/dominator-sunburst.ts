import { AppError } from '../errors.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { DominanceAnalysis } from './analyze.js';
import { typeSunburstSteps } from './dominator-sunburst-types.js';
import { childRange } from './dominator-tree.js';

/**
 * The top rings of the dominator tree below one center, aggregated for drawing (the sunburst and
 * treemap view, issue 16): a bounded number of items whatever the heap's size.
 *
 * Rings: ring 0 is the center; ring d + 1 holds the dominator-tree children of ring d's items.
 * - mode 'object': an item is one object; its children are its dominator-tree children.
 * - mode 'type': an item is a group of objects of one type; its children are the dominator-tree
 *   children of all its members, grouped by their type. All objects of ring d sit at tree depth
 *   (center depth + d), so no item contains another and Σ retained of a ring never exceeds its
 *   parent's: each group's retained size counts every byte once.
 *
 * Folding ("n others"): an item's children are ordered by retained size desc (ties: ascending
 * ordinal, or ascending type index for groups). A child is kept when it is among the first `top`
 * AND its retained size is at least `minShare` × the center's retained size; the rest fold into
 * one "others" item whose retained size is their exact sum and whose `folded` is their number.
 * Kept items are pairwise disjoint, so a ring keeps at most 1 / minShare of them, plus one
 * "others" per parent: the payload is O(depth / minShare) items, never proportional to the heap.
 *
 * Cost: one pass over the children of every expanded item (object mode: the kept children only
 * are read for the rows, the folded tail is summed), so at most every node of the top `depth`
 * tree levels once; type mode adds a second pass to gather each kept group's members (4 bytes
 * per member, dropped once the group is expanded; the groups' child counts are summed there, so a
 * folded type costs one read of its type and size per object) and per-type scratch of 16 bytes per type.
 * `typePath` (type mode) walks from `center` through groups of those types first: one pass over
 * the children of each step's members. Type mode (dominator-sunburst-types.ts) reads children
 * through per-child columns built once per analysis (child-columns.ts: 16 bytes per object).
 */
export type SunburstMode = 'object' | 'type';

export interface SunburstOptions {
  mode: SunburstMode;
  /** Rings below the center (1..8). */
  depth: number;
  /** Children kept per item at most (1..200). */
  top: number;
  /** A kept child's retained size is at least this share of the center's (0.001..0.5). */
  minShare: number;
  /** Type mode: the group path from `center` (each step: the previous members' children of that type). */
  typePath: readonly number[];
}

export const SUNBURST_DEFAULTS = { depth: 4, top: 30, minShare: 0.005 } as const;
export const SUNBURST_LIMITS = { depth: [1, 8], top: [1, 200], minShare: [0.001, 0.5], typePath: 256 } as const;

export type SunburstKind = 'object' | 'group' | 'others';

export interface SunburstItem {
  /** Index of the parent item; -1 for the center (items[0]). Parents come before children. */
  parent: number;
  /** Ring: 0 = the center. */
  depth: number;
  kind: SunburstKind;
  /** The object (object items; a group of exactly one member); NONE otherwise. */
  node: number;
  /** The type (object and group items); -1 for "others". */
  typeIndex: number;
  /** Exact retained size (groups and "others": Σ over what they stand for). */
  retained: number;
  /** Objects the item stands for: 1 for an object, the members of a group, Σ of the folded items. */
  count: number;
  /** "others" only: how many items were folded into it (objects or groups). */
  folded: number;
  /** Objects one ring further down (dominator-tree children of the item's objects); 0 for "others". */
  childCount: number;
}

export interface SunburstTree {
  items: SunburstItem[];
}

/** Work units (dominator-tree children read) between two checkpoints of the rings' walk. */
export const SUNBURST_CHECK_EVERY = 0x10000;
/** How long a sliced query may hold the thread before it lets other calls run. */
export const SUNBURST_SLICE_MS = 20;

/** Builds the aggregated rings below `center` (a node ordinal; the graph's root for the whole heap). */
export function dominatorSunburst(g: HeapGraph, a: DominanceAnalysis, center: number, opts: SunburstOptions, token: CancellationToken = NEVER_CANCELLED): SunburstTree {
  checkOptions(g, opts);
  const steps = sunburstSteps(g, a, center, opts, SUNBURST_CHECK_EVERY);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    token.throwIfCancelled();
  }
}

/** How a sliced query runs (the snapshot worker: a macrotask per pause, so queued calls are answered). */
export interface SunburstRun {
  token: CancellationToken;
  /** Give the thread back for a moment; the token is checked again afterwards. */
  pause(): Promise<void>;
  now?(): number;
  /** Default SUNBURST_SLICE_MS; 0 pauses at every checkpoint. */
  sliceMs?: number;
  /** Default SUNBURST_CHECK_EVERY (tests use small ones to get many checkpoints from a small heap). */
  checkEvery?: number;
}

/**
 * The same rings, computed in slices of about `sliceMs` with `run.pause()` between them: by type,
 * the whole heap's rings read most of a large heap's objects, and the worker
 * must keep answering the tab's other calls meanwhile, including the one that supersedes this
 * query (its token fires, the walk stops at the next checkpoint with `cancelled`). Same items as
 * dominatorSunburst; the cost of slicing is one clock read per checkpoint.
 */
export async function dominatorSunburstSliced(g: HeapGraph, a: DominanceAnalysis, center: number, opts: SunburstOptions, run: SunburstRun): Promise<SunburstTree> {
  checkOptions(g, opts);
  const now = run.now ?? (() => Date.now());
  const sliceMs = run.sliceMs ?? SUNBURST_SLICE_MS;
  run.token.throwIfCancelled();
  const steps = sunburstSteps(g, a, center, opts, run.checkEvery ?? SUNBURST_CHECK_EVERY);
  let sliceStart = now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    run.token.throwIfCancelled();
    if (now() - sliceStart < sliceMs) continue;
    await run.pause();
    run.token.throwIfCancelled();
    sliceStart = now();
  }
}

/**
 * The walk itself, as a generator that yields at a checkpoint every `checkEvery` units of work
 * (children read); the drivers above check the token (and pause) there. The graph and the
 * analysis never change under it; every scratch array is its own, so two walks may interleave.
 */
function* sunburstSteps(g: HeapGraph, a: DominanceAnalysis, center: number, opts: SunburstOptions, checkEvery: number): Generator<void, SunburstTree, void> {
  if (opts.mode === 'type') return yield* typeSunburstSteps(g, a, center, opts, checkEvery);
  const { retainedSize: rs, domChildren } = a;
  const nodeType = g.nodeType;
  const centerItem: SunburstItem = { parent: -1, depth: 0, kind: 'object', node: center, typeIndex: nodeType[center], retained: rs[center], count: 1, folded: 0, childCount: childCount(a, center) };
  const items: SunburstItem[] = [centerItem];
  const threshold = opts.minShare * centerItem.retained;
  let work = 0;
  let level = [0];
  for (let d = 1; d <= opts.depth && level.length > 0; d++) {
    const next: number[] = [];
    for (const p of level) {
      const { start, end } = childRange(a, items[p].node);
      work += end - start + 1;
      if (work >= checkEvery) {
        work = 0;
        yield;
      }
      let k = start;
      // domChildren runs are sorted by retained desc: the kept ones are a prefix
      for (; k < end && k - start < opts.top && rs[domChildren[k]] >= threshold; k++) {
        const v = domChildren[k];
        const c = childCount(a, v);
        if (c > 0) next.push(items.length);
        items.push({ parent: p, depth: d, kind: 'object', node: v, typeIndex: nodeType[v], retained: rs[v], count: 1, folded: 0, childCount: c });
      }
      if (k < end) {
        const sum = sumRetained(rs, domChildren, k, end);
        items.push({ parent: p, depth: d, kind: 'others', node: NONE, typeIndex: -1, retained: sum, count: end - k, folded: end - k, childCount: 0 });
      }
    }
    level = next;
  }
  return { items };
}

// The inner loops live in plain functions: V8 optimizes them better than the same loops inside
// the generator (a measured difference on the 2M-object bench heap).

function sumRetained(rs: Float64Array, domChildren: Uint32Array, from: number, end: number): number {
  let sum = 0;
  for (let j = from; j < end; j++) sum += rs[domChildren[j]];
  return sum;
}

function childCount(a: DominanceAnalysis, v: number): number {
  const { start, end } = childRange(a, v);
  return end - start;
}

function checkOptions(g: HeapGraph, o: SunburstOptions): void {
  const L = SUNBURST_LIMITS;
  const bad = (what: string) => new AppError('usage/bad-argument', `sunburst: ${what}`);
  if (!Number.isInteger(o.depth) || o.depth < L.depth[0] || o.depth > L.depth[1]) throw bad(`depth must be ${L.depth[0]}..${L.depth[1]}`);
  if (!Number.isInteger(o.top) || o.top < L.top[0] || o.top > L.top[1]) throw bad(`top must be ${L.top[0]}..${L.top[1]}`);
  if (!(o.minShare >= L.minShare[0] && o.minShare <= L.minShare[1])) throw bad(`minShare must be ${L.minShare[0]}..${L.minShare[1]}`);
  if (o.mode !== 'object' && o.mode !== 'type') throw bad('mode must be object or type');
  if (o.mode === 'object' && o.typePath.length > 0) throw bad('a type path needs mode type');
  if (o.typePath.length > L.typePath) throw bad(`a type path has at most ${L.typePath} steps`);
  for (const t of o.typePath) if (!Number.isInteger(t) || t < 0 || t >= g.types.count) throw bad(`no type with index ${t}`);
}

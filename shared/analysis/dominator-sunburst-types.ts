import { AppError } from '../errors.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { NONE } from '../graph/heap-graph.js';
import type { DominanceAnalysis } from './analyze.js';
import { childColumns, type ChildColumns } from './child-columns.js';
import type { SunburstItem, SunburstOptions, SunburstTree } from './dominator-sunburst.js';

/**
 * The Sunburst's rings by type (see dominator-sunburst.ts for what the items are and how they
 * fold). Members are tree positions (treePosition), and every child is read through the per-child
 * columns (child-columns.ts): a member's children are one run of consecutive entries, and a
 * group's members, gathered in the order of their parents' runs, are visited front to back.
 * The loops over members run in plain functions, a batch of about `checkEvery` children read per
 * call, the generator only yields between batches (V8 optimizes plain loops better than the same
 * loops inside a generator). Same items, same summation order as reading through the ordinals.
 */

/** A batch loop's carry between calls: work since the last checkpoint, and whether one is due. */
interface Budget {
  work: number;
  due: boolean;
  readonly checkEvery: number;
}

/** The kept groups of one item being filled, by slot: members' tree positions, how many so far, the first member (an ordinal), Σ of the members' child counts. */
interface Groups {
  members: Uint32Array[];
  fill: Uint32Array;
  first: Uint32Array;
  kids: Float64Array;
}

const NO_MEMBERS = new Uint32Array(0);

interface Scratch {
  count: Uint32Array;
  bytes: Float64Array;
  slot: Int32Array;
  /** The types seen in the current item's children, in first-seen order. */
  touched: number[];
}

export function* typeSunburstSteps(g: HeapGraph, a: DominanceAnalysis, center: number, opts: SunburstOptions, checkEvery: number): Generator<void, SunburstTree, void> {
  const cols = yield* childColumns(g, a, checkEvery);
  const tcs = a.treeChildStart;
  const budget: Budget = { work: 0, due: false, checkEvery };
  const c = opts.typePath.length > 0 ? yield* walkTypePath(g, a, cols, center, opts.typePath, budget) : { members: Uint32Array.of(a.treePosition[center]), retained: a.retainedSize[center], first: center };
  const grouped = opts.typePath.length > 0;
  let centerChildren = 0;
  for (let i = 0; i < c.members.length; i++) centerChildren += childrenAt(tcs, c.members[i]);
  const items: SunburstItem[] = [
    {
      parent: -1,
      depth: 0,
      kind: grouped ? 'group' : 'object',
      node: c.members.length === 1 ? c.first : NONE,
      typeIndex: grouped ? opts.typePath[opts.typePath.length - 1] : g.nodeType[center],
      retained: c.retained,
      count: c.members.length,
      folded: 0,
      childCount: centerChildren,
    },
  ];
  const threshold = opts.minShare * c.retained;
  const tc = g.types.count;
  const sc: Scratch = { count: new Uint32Array(tc), bytes: new Float64Array(tc), slot: new Int32Array(tc).fill(-1), touched: [] };
  const { count, bytes, slot, touched } = sc;
  let level: { item: number; members: Uint32Array }[] = [{ item: 0, members: c.members }];
  for (let d = 1; d <= opts.depth && level.length > 0; d++) {
    const next: { item: number; members: Uint32Array }[] = [];
    for (const { item: p, members } of level) {
      for (let i = 0; i < members.length; ) {
        i = tallyMembers(tcs, cols, members, i, sc, budget);
        if (budget.due) yield;
      }
      touched.sort((x, y) => bytes[y] - bytes[x] || x - y);
      let kept = 0;
      while (kept < touched.length && kept < opts.top && bytes[touched[kept]] >= threshold) kept++;
      const gs: Groups = { members: [], fill: new Uint32Array(kept), first: new Uint32Array(kept), kids: new Float64Array(kept) };
      const firstItem = items.length;
      for (let j = 0; j < kept; j++) {
        const t = touched[j];
        slot[t] = j;
        gs.members.push(d < opts.depth ? new Uint32Array(count[t]) : NO_MEMBERS); // the last ring is not expanded
        items.push({ parent: p, depth: d, kind: 'group', node: NONE, typeIndex: t, retained: bytes[t], count: count[t], folded: 0, childCount: 0 });
      }
      if (kept < touched.length) {
        let sum = 0;
        let objects = 0;
        for (let j = kept; j < touched.length; j++) {
          sum += bytes[touched[j]];
          objects += count[touched[j]];
        }
        items.push({ parent: p, depth: d, kind: 'others', node: NONE, typeIndex: -1, retained: sum, count: objects, folded: touched.length - kept, childCount: 0 });
      }
      if (kept > 0) {
        for (let i = 0; i < members.length; ) {
          i = gatherMembers(tcs, cols, a.domChildren, members, i, slot, gs, budget);
          if (budget.due) yield;
        }
      }
      for (let j = 0; j < kept; j++) {
        const it = items[firstItem + j];
        it.childCount = gs.kids[j];
        if (it.count === 1) it.node = gs.first[j];
        if (it.childCount > 0 && d < opts.depth) next.push({ item: firstItem + j, members: gs.members[j] });
      }
      for (const t of touched) {
        bytes[t] = 0;
        count[t] = 0;
        slot[t] = -1;
      }
      touched.length = 0;
    }
    level = next;
  }
  return { items };
}

/** The center's members (tree positions) after walking `typePath` from `center`. */
function* walkTypePath(g: HeapGraph, a: DominanceAnalysis, cols: ChildColumns, center: number, typePath: readonly number[], budget: Budget): Generator<void, { members: Uint32Array; retained: number; first: number }, void> {
  const tcs = a.treeChildStart;
  let step = { members: Uint32Array.of(a.treePosition[center]), retained: a.retainedSize[center], first: center };
  for (const t of typePath) {
    let n = 0;
    for (let i = 0; i < step.members.length; ) {
      const r = countOfType(tcs, cols.type, step.members, i, t, budget);
      i = r.next;
      n += r.count;
      if (budget.due) yield;
    }
    if (n === 0) throw new AppError('usage/bad-argument', `no dominated objects of type ${g.types.names[t] ?? t} on this path`);
    const next = { members: new Uint32Array(n), retained: 0, first: NONE, fill: 0 };
    for (let i = 0; i < step.members.length; ) {
      i = takeOfType(tcs, cols, a.domChildren, step.members, i, t, next, budget);
      if (budget.due) yield;
    }
    step = next;
  }
  return step;
}

function childrenAt(tcs: Uint32Array, q: number): number {
  return q === NONE ? 0 : tcs[q + 1] - tcs[q];
}

/** Charges a member's children to the budget; true when a checkpoint is due after it. */
function charge(budget: Budget, children: number): boolean {
  budget.work += children + 1;
  if (budget.work < budget.checkEvery) return false;
  budget.work = 0;
  budget.due = true;
  return true;
}

/** Counts and sums by type the children of members[from..] until a checkpoint is due; returns the next member. */
function tallyMembers(tcs: Uint32Array, cols: ChildColumns, members: Uint32Array, from: number, sc: Scratch, budget: Budget): number {
  const { type, retained } = cols;
  const { count, bytes, touched } = sc;
  budget.due = false;
  for (let i = from; i < members.length; ) {
    const q = members[i++];
    if (q === NONE) continue; // a center no root reaches: no children
    const start = tcs[q];
    const end = tcs[q + 1];
    for (let k = start; k < end; k++) {
      const t = type[k];
      if (count[t] === 0) touched.push(t);
      count[t]++;
      bytes[t] += retained[k];
    }
    if (charge(budget, end - start)) return i;
  }
  return members.length;
}

/** Adds the children of members[from..] of a kept type to its group (positions, child count). */
function gatherMembers(tcs: Uint32Array, cols: ChildColumns, domChildren: Uint32Array, members: Uint32Array, from: number, slot: Int32Array, gs: Groups, budget: Budget): number {
  const { type, position } = cols;
  const { fill, kids, first, members: out } = gs;
  const keep = out.length > 0 && out[0] !== NO_MEMBERS;
  budget.due = false;
  for (let i = from; i < members.length; ) {
    const q = members[i++];
    if (q === NONE) continue;
    const start = tcs[q];
    const end = tcs[q + 1];
    for (let k = start; k < end; k++) {
      const s = slot[type[k]];
      if (s < 0) continue;
      const p = position[k];
      if (fill[s] === 0) first[s] = domChildren[k];
      if (keep) out[s][fill[s]] = p;
      fill[s]++;
      kids[s] += tcs[p + 1] - tcs[p]; // kept groups only: folded types never pay for it
    }
    if (charge(budget, end - start)) return i;
  }
  return members.length;
}

function countOfType(tcs: Uint32Array, type: Uint32Array, members: Uint32Array, from: number, t: number, budget: Budget): { next: number; count: number } {
  budget.due = false;
  let n = 0;
  for (let i = from; i < members.length; ) {
    const q = members[i++];
    if (q === NONE) continue;
    const start = tcs[q];
    const end = tcs[q + 1];
    for (let k = start; k < end; k++) if (type[k] === t) n++;
    if (charge(budget, end - start)) return { next: i, count: n };
  }
  return { next: members.length, count: n };
}

function takeOfType(tcs: Uint32Array, cols: ChildColumns, domChildren: Uint32Array, members: Uint32Array, from: number, t: number, out: { members: Uint32Array; retained: number; first: number; fill: number }, budget: Budget): number {
  const { type, retained, position } = cols;
  budget.due = false;
  for (let i = from; i < members.length; ) {
    const q = members[i++];
    if (q === NONE) continue;
    const start = tcs[q];
    const end = tcs[q + 1];
    for (let k = start; k < end; k++) {
      if (type[k] !== t) continue;
      if (out.fill === 0) out.first = domChildren[k];
      out.members[out.fill++] = position[k];
      out.retained += retained[k];
    }
    if (charge(budget, end - start)) return i;
  }
  return members.length;
}

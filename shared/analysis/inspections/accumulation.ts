import { NODE_PSEUDO, NODE_UNDEFINED } from '../../graph/heap-graph.js';
import { childRange } from '../dominator-tree.js';
import { exampleOf, grouped, type Finding, type InspectionContext } from './finding.js';

/** Thresholds of the accumulation-point rule (heuristic). */
export interface AccumulationOptions {
  /** Minimum share of the reachable bytes the object retains. */
  minShare: number;
  /** Minimum number of objects it immediately dominates. */
  minChildren: number;
  /** Maximum share of its retained size its largest dominated child may hold. */
  maxLargestChildShare: number;
}

export const ACCUMULATION_DEFAULTS: AccumulationOptions = { minShare: 0.01, minChildren: 100, maxLargestChildShare: 0.2 };

/**
 * Accumulation points (MAT's "big drop"): the collection that keeps growing.
 *
 * Rule (heuristic thresholds, exact figures): a heap object D with
 *   retainedSize[D] ≥ minShare × reachable bytes, at least minChildren dominator-tree children,
 *   and no child retaining more than maxLargestChildShare of retainedSize[D]
 * — a large retained size made of many small parts. A List<T> whose array holds everything fails
 * the last test and its array is reported instead. The element type is the most frequent type
 * among D's dominator children. One finding per object: objects = D's dominator children,
 * shallowBytes = their Σ shallow size, bytes = retainedSize[D].
 */
export function inspectAccumulation(ctx: InspectionContext, opts: AccumulationOptions = ACCUMULATION_DEFAULTS): Finding[] {
  const { g, a, token } = ctx;
  const { retainedSize, domChildren } = a;
  const names = g.types.names;
  const minBytes = Math.max(1, opts.minShare * a.reachableSize);
  const out: Finding[] = [];
  for (let n = 0; n < g.nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    if (retainedSize[n] < minBytes || g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED) || a.treePosition[n] === 0xffffffff) continue;
    const { start, end } = childRange(a, n);
    const children = end - start;
    // children are sorted by retained size, largest first
    if (children < opts.minChildren || retainedSize[domChildren[start]] > opts.maxLargestChildShare * retainedSize[n]) continue;
    const perType = new Map<number, number>();
    let childBytes = 0;
    let childShallow = 0;
    for (let k = start; k < end; k++) {
      const t = g.nodeType[domChildren[k]];
      perType.set(t, (perType.get(t) ?? 0) + 1);
      childBytes += retainedSize[domChildren[k]];
      childShallow += g.selfSize[domChildren[k]];
    }
    let elementType = -1;
    let elementCount = 0;
    for (const [t, c] of perType) if (c > elementCount || (c === elementCount && t < elementType)) [elementType, elementCount] = [t, c];
    const type = names[g.nodeType[n]];
    const examples = [];
    for (let k = start; k < Math.min(end, start + ctx.exampleCount); k++) examples.push(exampleOf(ctx, domChildren[k]));
    out.push({
      kind: 'accumulation-point',
      title: `${type} accumulates ${grouped(children)} objects (mostly ${names[elementType]})`,
      explanation: `This ${type} alone keeps ${children} objects alive, none of them large: a collection or cache that grows as items are added and never removed.`,
      fix: 'Bound the collection (evict, cap or expire entries) or remove items when they are no longer needed.',
      objects: children,
      bytes: retainedSize[n],
      shallowBytes: childShallow,
      examples,
      details: {
        node: n,
        type,
        address: exampleOf(ctx, n).address,
        shallowSize: g.selfSize[n],
        elementType: names[elementType],
        elementCount,
        childCount: children,
        childRetainedBytes: childBytes,
        largestChildBytes: retainedSize[domChildren[start]],
        heuristic: true,
      },
    });
  }
  // nested points (a dictionary of big lists) are each reported; the list is sorted by bytes
  return out.sort((x, y) => y.bytes - x.bytes || (x.details.node as number) - (y.details.node as number));
}

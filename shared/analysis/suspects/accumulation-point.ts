import type { HeapGraph } from '../../graph/heap-graph.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { NEVER_CANCELLED } from '../../util/cancellation.js';
import type { DominanceAnalysis } from '../analyze.js';
import { childRange } from '../dominator-tree.js';

/**
 * Where a big retainer's memory actually sits (Eclipse MAT's "accumulation point").
 *
 * Rule: start at the suspect S. While the current object C has dominator-tree children and the
 * largest of them (children are sorted by retained size, largest first; ties by lower ordinal)
 * retains at least BIG_DROP_PERCENT (70%) of retainedSize[C], step down to that child. The object
 * where the walk stops, the first whose largest child holds less than 70% of it (or that has no
 * children), is the accumulation point: below it the memory spreads over many children, a "big
 * drop". MAT's FindLeaks uses the same walk with the same default ratio (big_drop_ratio 0.7).
 *
 * A List<T> stops at its array (the list's only child holds ~all of it, the array's elements each
 * hold little); a linked list of N nodes walks all N: O(depth) steps, one comparison each. The
 * comparison is child × 100 ≥ percent × parent, exact in doubles for sizes below 2^46 (no 0.7 × x
 * rounding deciding a tie).
 */
export const BIG_DROP_PERCENT = 70;

export interface AccumulationPoint {
  node: number;
  /** Dominator-tree steps from the suspect down to this object (0: the suspect itself). */
  depth: number;
  /** Objects it immediately dominates. */
  childCount: number;
  /**
   * The most frequent type among those children, or -1 without children. Ties go to the type whose
   * children retain more (a dictionary's entries: as many keys as values, the values hold the
   * bytes), then to the lower type index.
   */
  elementType: number;
  /** Children of that type and Σ their exact retained sizes. */
  elementCount: number;
  elementRetained: number;
}

export function accumulationPoint(g: HeapGraph, a: DominanceAnalysis, suspect: number, percent = BIG_DROP_PERCENT, token: CancellationToken = NEVER_CANCELLED): AccumulationPoint {
  const { retainedSize, domChildren } = a;
  let cur = suspect;
  let depth = 0;
  for (;;) {
    if ((depth & 0xffff) === 0xffff) token.throwIfCancelled();
    const { start, end } = childRange(a, cur);
    if (end === start) break;
    const largest = domChildren[start];
    if (retainedSize[largest] * 100 < percent * retainedSize[cur]) break;
    cur = largest;
    depth++;
  }
  const { start, end } = childRange(a, cur);
  // per type among the children: a Map keyed by type (types are few), not by node
  const perType = new Map<number, { count: number; retained: number }>();
  for (let k = start; k < end; k++) {
    if (((k - start) & 0xffff) === 0xffff) token.throwIfCancelled();
    const c = domChildren[k];
    const t = g.nodeType[c];
    const e = perType.get(t);
    if (e) {
      e.count++;
      e.retained += retainedSize[c];
    } else perType.set(t, { count: 1, retained: retainedSize[c] });
  }
  let elementType = -1;
  let elementCount = 0;
  let elementRetained = 0;
  for (const [t, e] of perType) {
    const better = e.count > elementCount || (e.count === elementCount && (e.retained > elementRetained || (e.retained === elementRetained && t < elementType)));
    if (better) {
      elementType = t;
      elementCount = e.count;
      elementRetained = e.retained;
    }
  }
  return { node: cur, depth, childCount: end - start, elementType, elementCount, elementRetained };
}

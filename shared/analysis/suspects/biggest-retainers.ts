import type { HeapGraph } from '../../graph/heap-graph.js';
import { NODE_UNDEFINED } from '../../graph/heap-graph.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { NEVER_CANCELLED } from '../../util/cancellation.js';
import type { DominanceAnalysis } from '../analyze.js';
import { childRange } from '../dominator-tree.js';
import { isPseudo } from '../paths-to-roots.js';

/**
 * The biggest retainers: the top-most heap objects of the dominator tree that retain at least
 * `minBytes` each.
 *
 * "Top-most" means every dominator above the object is a synthetic node (the root, a root category
 * such as "[static vars]", a static-variable holder): the objects MAT calls top dominators, read
 * through the pseudo-nodes a .gcdump puts under its root. They are never nested in one another, so
 * their retained sizes add up without double counting.
 *
 * Walk: from the root, down pseudo-nodes only; children come sorted by retained size, so a run is
 * left at its first child below `minBytes` (nothing under it can reach the threshold). Cost:
 * O(children of the pseudo-nodes retaining ≥ minBytes); a stack of pseudo-nodes, no per-node
 * allocation. Result: largest retained first (ties by lower ordinal), at most `max` objects, and
 * how many qualified in all.
 */
export function biggestRetainers(g: HeapGraph, a: DominanceAnalysis, minBytes: number, max: number, token: CancellationToken = NEVER_CANCELLED): { nodes: number[]; total: number } {
  const { retainedSize, domChildren } = a;
  const found: number[] = [];
  const stack: number[] = [g.rootIndex];
  let steps = 0;
  while (stack.length > 0) {
    const p = stack.pop()!;
    const { start, end } = childRange(a, p);
    for (let k = start; k < end; k++) {
      if ((++steps & 0xffff) === 0) token.throwIfCancelled();
      const c = domChildren[k];
      if (retainedSize[c] < minBytes) break;
      if (g.nodeFlags[c] & NODE_UNDEFINED) continue;
      if (isPseudo(g, c)) stack.push(c);
      else found.push(c);
    }
  }
  found.sort((x, y) => retainedSize[y] - retainedSize[x] || x - y);
  return { nodes: found.slice(0, Math.max(0, max)), total: found.length };
}

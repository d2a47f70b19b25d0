import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';

/**
 * Exact retained sizes: the bytes that would be freed if the node went away, i.e. Σ selfSize
 * over the node's dominator subtree.
 *
 * Every node starts with its own size and adds itself into its immediate dominator, visiting the
 * reachable nodes in reverse `order` (a DFS preorder, where a node always comes after its idom),
 * so each subtree is complete before it is added to its parent. One pass, O(N), output 8N bytes
 * (Float64: totals pass 2^32 and stay exact up to 2^53).
 *
 * Nodes outside `order` (unreachable) keep their own size: garbage retains nothing but itself
 * (the policy documented in analyze.ts).
 */
export function computeRetainedSizes(
  selfSize: Uint32Array,
  idom: Uint32Array,
  order: Uint32Array,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
): Float64Array {
  const n = selfSize.length;
  const retained = new Float64Array(n);
  retained.set(selfSize);
  const r = order.length;
  progress('retained', 0, r);
  token.throwIfCancelled();
  for (let i = r - 1; i >= 1; i--) {
    if ((i & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('retained', r - i, r);
    }
    const w = order[i];
    retained[idom[w]] += retained[w];
  }
  progress('retained', r, r);
  return retained;
}

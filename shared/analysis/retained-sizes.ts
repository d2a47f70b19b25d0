import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';
import { newFloat64Array } from '../util/typed-arrays.js';
import type { Dominators } from './dominators.js';

/**
 * Exact retained sizes: the bytes that would be freed if the node went away, i.e. Σ selfSize
 * over the node's dominator subtree.
 *
 * Each position of `order` (a DFS preorder, where every node comes after its idom) adds its
 * total into its idom's, from the last position back to the first, so a subtree is complete
 * before it is added to its parent. The fold runs in preorder positions, where an idom usually
 * sits near its children, instead of node ordinals, where it is a random access on a big heap;
 * one gather and one scatter translate. O(N); Float64 because totals pass 2^32 (exact to 2^53).
 *
 * Nodes outside `order` (unreachable) keep their own size: garbage retains nothing but itself
 * (the policy documented in analyze.ts).
 */
export interface RetainedSizes {
  /** Per node ordinal (the result analyzeGraph publishes). */
  readonly retainedSize: Float64Array;
  /** The same numbers per position of `order`, for the later preorder passes. */
  readonly orderRetained: Float64Array;
}

export function computeRetainedSizes(
  selfSize: Uint32Array,
  dom: Dominators,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
  sharedMemory = false,
  prepared: RetainedSizes | null = null,
): RetainedSizes {
  const orderRetained = computeOrderRetained(selfSize, dom, token, progress, sharedMemory, prepared);
  const retainedSize = retainedByNode(selfSize, dom.order, orderRetained, token, prepared);
  progress('retained', 3 * dom.order.length, 3 * dom.order.length);
  return { retainedSize, orderRetained };
}

/**
 * The first two thirds of computeRetainedSizes: retained sizes per position of `order` only
 * (progress 'retained' up to 2r of 3r). A caller that needs the per-node column later calls
 * retainedByNode then, so its 8 bytes per node are not alive at the same time as whatever the
 * caller drops in between (the per-type pass's position tree, analyze.ts).
 */
export function computeOrderRetained(
  selfSize: Uint32Array,
  dom: Pick<Dominators, 'order' | 'orderIdom'>,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
  sharedMemory = false,
  prepared: RetainedSizes | null = null,
): Float64Array {
  const { order, orderIdom } = dom;
  const r = order.length;
  progress('retained', 0, 3 * r);
  token.throwIfCancelled();
  // `prepared`: arrays allocated and touched ahead of time (analyze.ts prepareDominanceMemory), used when big enough
  const ready = prepared !== null && prepared.orderRetained.length >= r && (prepared.orderRetained.buffer instanceof SharedArrayBuffer) === sharedMemory;
  const orderRetained = ready ? prepared.orderRetained.subarray(0, r) : newFloat64Array(r, sharedMemory); // read by the per-type pass, maybe on another thread
  for (let j = 0; j < r; j++) {
    if ((j & 0xffff) === 0) token.throwIfCancelled();
    orderRetained[j] = selfSize[order[j]];
  }
  progress('retained', r, 3 * r);
  for (let j = r - 1; j >= 1; j--) {
    if ((j & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('retained', 2 * r - j, 3 * r);
    }
    orderRetained[orderIdom[j]] += orderRetained[j];
  }
  token.throwIfCancelled();
  return orderRetained;
}

/** The last third: retained size per node ordinal (own size for nodes outside `order`), from the per-position sizes. */
export function retainedByNode(
  selfSize: Uint32Array,
  order: Uint32Array,
  orderRetained: Float64Array,
  token: CancellationToken = NEVER_CANCELLED,
  prepared: RetainedSizes | null = null,
  storage: ArrayBuffer | null = null,
): Float64Array {
  // `storage`: memory the caller no longer needs, at least 8 bytes per node (every entry is written below)
  const ready = prepared !== null && prepared.retainedSize.length >= selfSize.length;
  const inStorage = !ready && storage !== null && storage.byteLength >= 8 * selfSize.length;
  const retainedSize = ready ? prepared.retainedSize.subarray(0, selfSize.length) : inStorage ? new Float64Array(storage, 0, selfSize.length) : new Float64Array(selfSize.length);
  retainedSize.set(selfSize);
  const r = order.length;
  for (let j = 0; j < r; j++) {
    if ((j & 0xffff) === 0) token.throwIfCancelled();
    retainedSize[order[j]] = orderRetained[j];
  }
  return retainedSize;
}

/**
 * Retained sizes per node ordinal straight into `storage` (at least 8 bytes per node, e.g. a
 * dead scratch buffer), without the per-position column: the same fold as computeOrderRetained,
 * in the same order (so the same sums, bit for bit), addressed through `order`. Its reads and
 * writes are at random, but independent of each other, so the CPU overlaps their misses.
 * Progress 'retained' from 0 to 3r of 3r. For `heapscope report` (lean-retention.ts), which thus
 * never holds the per-position and the per-node sizes at once.
 */
export function retainedByNodeInto(
  storage: ArrayBuffer,
  selfSize: Uint32Array,
  dom: Pick<Dominators, 'order' | 'orderIdom'>,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
): Float64Array {
  const { order, orderIdom } = dom;
  const r = order.length;
  progress('retained', 0, 3 * r);
  token.throwIfCancelled();
  const retainedSize = new Float64Array(storage, 0, selfSize.length);
  retainedSize.set(selfSize);
  progress('retained', r, 3 * r);
  for (let j = r - 1; j >= 1; j--) {
    if ((j & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('retained', 2 * r - j, 3 * r);
    }
    retainedSize[order[orderIdom[j]]] += retainedSize[order[j]];
  }
  progress('retained', 3 * r, 3 * r);
  return retainedSize;
}

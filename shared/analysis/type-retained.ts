import type { HeapGraph } from '../graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';
import type { OrderTree } from './dominator-tree.js';
import type { Dominators } from './dominators.js';

/**
 * Per-type figures over the live (reachable) heap.
 *
 * `typeRetained[t]` is the size of the union of the instances' dominator subtrees: the bytes
 * that some single instance of t keeps alive on its own. Subtrees of a tree are nested or
 * disjoint, so that union is Σ retained over the instances that no other instance of t dominates;
 * summing every instance instead would count a List's nodes once per enclosing List (DevTools'
 * `calculateClassesRetainedSize` idea). An object kept alive only jointly by two instances (one
 * array shared by two Lists) is not in it, although removing every instance would free it too:
 * so this is NOT "what would be freed if every instance went away". That figure, the set
 * retained size (MAT's "precise retained size"), is computed on demand per type by
 * set-retained.ts at the cost of one walk over the reachable graph per type; it is never smaller
 * than this one.
 *
 * Unreachable objects are not counted in any of the three reachable columns; they have columns of
 * their own, `typeUnreachableCount` / `typeUnreachableShallow` (heap objects only: pseudo and
 * undefined nodes are never objects), so that per type Σ shallow = reachable + unreachable and
 * a retained size below the type's shallow size is always explained: typeRetained[t] ≥
 * typeReachableShallow[t] = shallow − unreachable. Frozen (non-GC heap) objects that no root
 * reaches count as unreachable here: the graph has no path to them; the summary tells them apart
 * from garbage (analyze.ts).
 */
export interface TypeRetained {
  readonly typeRetained: Float64Array;
  readonly typeReachableCount: Float64Array;
  readonly typeReachableShallow: Float64Array;
  readonly typeUnreachableCount: Float64Array;
  readonly typeUnreachableShallow: Float64Array;
}

/**
 * One iterative depth-first walk of the dominator tree from the root, keeping
 * `open[t]` = how many instances of t are on the current root→node chain: a node adds its
 * retained size only when no instance of its type is open above it. The walk runs over preorder
 * positions (`OrderTree`), with the types gathered into that order first, so it reads nearby
 * memory instead of node columns at random. O(N) time; memory 5 × Float64Array(typeCount)
 * output, Int32Array(typeCount), 4 bytes per reachable node for the gathered types (in
 * `orderTypeStorage` when the caller has a dead buffer that size), a bit per reachable node (the
 * positions that count) and a stack of 8 bytes per tree level (grown on demand), dropped on return. With `retainedIsByNode`,
 * `orderRetained` is the per-node column instead (read through `order`: lean-retention.ts).
 */
export function computeTypeRetained(
  g: HeapGraph,
  dom: Pick<Dominators, 'order' | 'reachable'>,
  orderTree: OrderTree,
  orderRetained: Float64Array,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
  orderTypeStorage: ArrayBuffer | null = null,
  retainedIsByNode = false,
): TypeRetained {
  const typeCount = g.types.count;
  const nodeType = g.nodeType;
  const selfSize = g.selfSize;
  const { order, reachable } = dom;
  const { firstOrderChild, orderChild } = orderTree;
  const r = order.length;
  const n = g.nodeCount;
  progress('types', 0, 2 * r);
  token.throwIfCancelled();

  // Count and shallow size need no tree: one sequential pass over the nodes.
  const typeReachableCount = new Float64Array(typeCount);
  const typeReachableShallow = new Float64Array(typeCount);
  const typeUnreachableCount = new Float64Array(typeCount);
  const typeUnreachableShallow = new Float64Array(typeCount);
  const nodeFlags = g.nodeFlags;
  for (let v = 0; v < n; v++) {
    if ((v & 0xffff) === 0) token.throwIfCancelled();
    if (reachable[v] === 0) {
      if (nodeFlags[v] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
      const t = nodeType[v];
      typeUnreachableCount[t]++;
      typeUnreachableShallow[t] += selfSize[v];
      continue;
    }
    const t = nodeType[v];
    typeReachableCount[t]++;
    typeReachableShallow[t] += selfSize[v];
  }
  // `orderTypeStorage`: a dead buffer of the caller's (every entry is written below)
  const orderType = orderTypeStorage !== null && orderTypeStorage.byteLength >= 4 * r ? new Uint32Array(orderTypeStorage, 0, r) : new Uint32Array(r);
  for (let j = 0; j < r; j++) {
    if ((j & 0xffff) === 0) token.throwIfCancelled();
    orderType[j] = nodeType[order[j]];
  }
  progress('types', r, 2 * r);

  const typeRetained = new Float64Array(typeCount);
  // The walk only marks the positions whose size counts; one pass in position order adds them up
  // afterwards. Reading the size inside the walk was a dependent random load per node (through
  // `order` with retainedIsByNode), which grows dearer with the heap; in position order the loads
  // are independent and overlap. r / 8 bytes. The sums are of integers below 2^53: exact in any order.
  const counted = new Int32Array((r >>> 5) + 1);
  const open = new Int32Array(typeCount);
  let stackPos = new Uint32Array(1024);
  let stackCursor = new Uint32Array(1024);
  let sp = 0;
  let visited = 0;
  let p = 0; // the root's position
  for (;;) {
    // enter p
    const t = orderType[p];
    if (open[t] === 0) counted[p >>> 5] |= 1 << (p & 31);
    open[t]++;
    if ((++visited & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('types', r + visited, 2 * r);
    }
    if (sp === stackPos.length) {
      const grownPos = new Uint32Array(2 * sp);
      grownPos.set(stackPos);
      stackPos = grownPos;
      const grownCursor = new Uint32Array(2 * sp);
      grownCursor.set(stackCursor);
      stackCursor = grownCursor;
    }
    stackPos[sp] = p;
    stackCursor[sp] = firstOrderChild[p];
    sp++;
    // find the next position to enter, leaving finished subtrees on the way
    let next = -1;
    while (sp > 0) {
      const top = sp - 1;
      const u = stackPos[top];
      const c = stackCursor[top];
      if (c < firstOrderChild[u + 1]) {
        stackCursor[top] = c + 1;
        next = orderChild[c];
        break;
      }
      open[orderType[u]]--;
      sp--;
    }
    if (next < 0) break;
    p = next;
  }
  for (let w = 0; w < counted.length; w++) {
    if ((w & 0xffff) === 0) token.throwIfCancelled();
    let bits = counted[w];
    while (bits !== 0) {
      const low = bits & -bits;
      const j = (w << 5) | (31 - Math.clz32(low));
      typeRetained[orderType[j]] += retainedIsByNode ? orderRetained[order[j]] : orderRetained[j];
      bits ^= low;
    }
  }
  progress('types', 2 * r, 2 * r);
  return { typeRetained, typeReachableCount, typeReachableShallow, typeUnreachableCount, typeUnreachableShallow };
}

import type { HeapGraph } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';
import type { DominatorTree } from './dominator-tree.js';

/**
 * Per-type figures over the live (reachable) heap.
 *
 * `typeRetained[t]` is the size of the union of the instances' dominator subtrees: the bytes
 * that some single instance of t keeps alive on its own. Subtrees of a tree are nested or
 * disjoint, so that union is Σ retained over the instances that no other instance of t dominates;
 * summing every instance instead would count a List's nodes once per enclosing List (DevTools'
 * `calculateClassesRetainedSize` idea). An object kept alive only jointly by two instances (one
 * array shared by two Lists) is not in it, although removing every instance would free it too:
 * that figure needs one dominator computation per type and is not what heap tools call the
 * type's retained size.
 *
 * Unreachable objects are not counted in any of the three columns (they are garbage; analyze.ts
 * reports them as `unreachableCount` / `unreachableSize`).
 */
export interface TypeRetained {
  readonly typeRetained: Float64Array;
  readonly typeReachableCount: Float64Array;
  readonly typeReachableShallow: Float64Array;
}

/**
 * One iterative depth-first walk of the dominator tree from the root, keeping
 * `open[t]` = how many instances of t are on the current root→node chain: a node adds its
 * retained size only when no instance of its type is open above it. O(N) time; memory 3 ×
 * Float64Array(typeCount) output, Int32Array(typeCount) and a stack of 8 bytes per tree level
 * (grown on demand, so a shallow tree costs almost nothing).
 */
export function computeTypeRetained(
  g: HeapGraph,
  tree: DominatorTree,
  retained: Float64Array,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
): TypeRetained {
  const typeCount = g.types.count;
  const nodeType = g.nodeType;
  const selfSize = g.selfSize;
  const { firstChild, domChildren } = tree;
  const typeRetained = new Float64Array(typeCount);
  const typeReachableCount = new Float64Array(typeCount);
  const typeReachableShallow = new Float64Array(typeCount);
  const open = new Int32Array(typeCount);
  // The tree holds every reachable node once: firstChild[N] edges plus the root.
  const total = firstChild[g.nodeCount] + 1;
  progress('types', 0, total);
  token.throwIfCancelled();

  let stackNode = new Uint32Array(1024);
  let stackCursor = new Uint32Array(1024);
  let sp = 0;
  let visited = 0;

  let v = g.rootIndex;
  for (;;) {
    // enter v
    const t = nodeType[v];
    if (open[t] === 0) typeRetained[t] += retained[v];
    open[t]++;
    typeReachableCount[t]++;
    typeReachableShallow[t] += selfSize[v];
    if ((++visited & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('types', visited, total);
    }
    if (sp === stackNode.length) {
      const grownNode = new Uint32Array(2 * sp);
      grownNode.set(stackNode);
      stackNode = grownNode;
      const grownCursor = new Uint32Array(2 * sp);
      grownCursor.set(stackCursor);
      stackCursor = grownCursor;
    }
    stackNode[sp] = v;
    stackCursor[sp] = firstChild[v];
    sp++;
    // find the next node to enter, leaving finished subtrees on the way
    let next = -1;
    while (sp > 0) {
      const top = sp - 1;
      const u = stackNode[top];
      const c = stackCursor[top];
      if (c < firstChild[u + 1]) {
        stackCursor[top] = c + 1;
        next = domChildren[c];
        break;
      }
      open[nodeType[u]]--;
      sp--;
    }
    if (next < 0) break;
    v = next;
  }
  progress('types', total, total);
  return { typeRetained, typeReachableCount, typeReachableShallow };
}

import type { CancellationToken } from '../util/cancellation.js';

/**
 * SEMI-NCA's last step (Georgiadis, "Linear-Time Algorithms for Dominators and Related
 * Problems", PhD thesis, Princeton 2005): in preorder, idom(w) is the nearest common ancestor
 * of parent(w) and semi(w) in the dominator tree built so far, i.e. the first dominator-tree
 * ancestor x of parent(w) with x ≤ semi(w) (preorder numbers fall strictly along every
 * dominator chain, so "x > semi(w)" holds on a bottom part of the chain and nowhere above it).
 *
 * Climbing one idom at a time is quadratic in the worst case: a list of k objects whose tail
 * holds m objects that something visited later also references climbs the whole list m times.
 * The benchmark heap has that shape (lists of up to 8,000 nodes whose values are shared), where
 * the plain climb took 90M steps before a third of the vertices were done. So each vertex also
 * gets a skew-binary jump pointer (E. W. Myers, "An applicative random-access stack", IPL 17(5),
 * 1983): jump(w) is either idom(w) or jump(jump(idom(w))), chosen from depths so that the
 * distances form a skew-binary decomposition. Searching for the first ancestor with a monotone
 * property then takes O(log depth) steps: take the jump while its target still fails the test,
 * else one idom step. Whatever the shape this step costs O(N log N), and about 0.1 s at 10M
 * objects, most of it writing the records.
 *
 * `dom` holds the DFS parents on entry and the idoms (preorder numbers) on return; the climb reads
 * dom[x] of vertices already done. `tree` is scratch of 2 words per vertex (the caller's forest
 * records, free by now), [jump, depth], written in preorder. Returns the number of climb steps
 * taken (the tests bound it).
 */
export function nearestCommonAncestors(dom: Uint32Array, semi: Uint32Array, tree: Uint32Array, reachableCount: number, token: CancellationToken): number {
  // the root (vertex 1): depth 0, its own jump target, so no climb ever passes it
  tree[2] = 1;
  tree[3] = 0;
  let steps = 0;
  for (let w = 2; w <= reachableCount; w++) {
    if ((w & 0xffff) === 0) token.throwIfCancelled();
    const s = semi[w];
    let x = dom[w];
    while (x > s) {
      const j = tree[2 * x];
      x = j > s ? j : dom[x];
      steps++;
    }
    dom[w] = x;
    const jx = tree[2 * x];
    const jjx = tree[2 * jx];
    const dx = tree[2 * x + 1];
    const djx = tree[2 * jx + 1];
    tree[2 * w] = dx - djx === djx - tree[2 * jjx + 1] ? jjx : x;
    tree[2 * w + 1] = dx + 1;
  }
  return steps;
}

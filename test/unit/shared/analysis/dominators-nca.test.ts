import { describe, expect, it } from 'vitest';
import { nearestCommonAncestors } from '../../../../shared/analysis/dominators-nca.js';
import { NEVER_CANCELLED } from '../../../../shared/util/cancellation.js';
import { mulberry32 } from '../../../helpers/random-graph.js';

/**
 * The SEMI-NCA last step on its own: inputs are a DFS tree (parent[w] < w, preorder numbers from
 * 1) and a semidominator per vertex (a proper DFS ancestor of it); the oracle climbs one idom at
 * a time, exactly the textbook step.
 */
function plainClimb(parent: Uint32Array, semi: Uint32Array, r: number): Uint32Array {
  const dom = parent.slice();
  for (let w = 2; w <= r; w++) {
    let x = dom[w];
    while (x > semi[w]) x = dom[x];
    dom[w] = x;
  }
  return dom;
}

function run(parent: Uint32Array, semi: Uint32Array, r: number): { dom: Uint32Array; steps: number } {
  const dom = parent.slice();
  const steps = nearestCommonAncestors(dom, semi, new Uint32Array(2 * (r + 1)), r, NEVER_CANCELLED);
  return { dom, steps };
}

describe('SEMI-NCA nearest common ancestors with jump pointers', () => {
  it('hand-worked: 1 → 2 → 3 → 4, 3 → 5 with semi(5) = 2, 4 → 6 with semi(6) = 1', () => {
    // idom(2..4) = their parents (semi = parent); idom(5) = first ancestor of 3 that is ≤ 2 = 2;
    // idom(6) = first ancestor of 4 that is ≤ 1 = 1.
    const parent = Uint32Array.from([0, 0, 1, 2, 3, 3, 4]);
    const semi = Uint32Array.from([0, 1, 1, 2, 3, 2, 1]);
    expect(Array.from(run(parent, semi, 6).dom.subarray(2))).toEqual([1, 2, 3, 2, 1]);
  });

  it('matches the plain climb on 3000 random DFS trees and semidominators', () => {
    const rnd = mulberry32(20240611);
    for (let c = 0; c < 3000; c++) {
      const r = 1 + Math.floor(rnd() * 300);
      const parent = new Uint32Array(r + 1);
      const semi = new Uint32Array(r + 1);
      semi[1] = 1;
      const deep = rnd() < 0.5; // long chains make the jump pointers matter
      for (let w = 2; w <= r; w++) {
        parent[w] = deep && rnd() < 0.9 ? w - 1 : 1 + Math.floor(rnd() * (w - 1));
        // a random proper DFS ancestor of w (semi(w) always is one; the parent when nothing better)
        let a = parent[w];
        while (a > 1 && rnd() < 0.6) a = parent[a];
        semi[w] = a;
      }
      expect(Array.from(run(parent, semi, r).dom), `case ${c}`).toEqual(Array.from(plainClimb(parent, semi, r)));
    }
  });

  it('climbs O(log depth) per vertex where the plain climb is quadratic', () => {
    // A 65,536-long chain 1 → 2 → … → k, then m leaves under its end whose semidominator is 1:
    // the plain climb takes k − 1 steps per leaf (4.3·10⁹ in all).
    const k = 1 << 16;
    const m = 1 << 16;
    const r = k + m;
    const parent = new Uint32Array(r + 1);
    const semi = new Uint32Array(r + 1);
    semi[1] = 1;
    for (let w = 2; w <= k; w++) {
      parent[w] = w - 1;
      semi[w] = w - 1;
    }
    for (let w = k + 1; w <= r; w++) {
      parent[w] = k;
      semi[w] = 1;
    }
    const { dom, steps } = run(parent, semi, r);
    let wrong = 0;
    for (let w = 2; w <= k; w++) if (dom[w] !== w - 1) wrong++;
    for (let w = k + 1; w <= r; w++) if (dom[w] !== 1) wrong++;
    expect(wrong).toBe(0);
    // skew-binary jumps: at most 2·log2(depth) + 2 steps per search
    expect(steps).toBeLessThanOrEqual(m * (2 * 16 + 2));
  });
});

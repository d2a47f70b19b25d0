import { describe, expect, it } from 'vitest';
import { computeDominators } from '../../../../shared/analysis/dominators.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { NODE_WEAK_EDGES, NONE } from '../../../../shared/graph/heap-graph.js';
import { randomGraph, syntheticHeap } from '../../../helpers/random-graph.js';
import { makeSyntheticHeap } from '../../../tools/synthetic-heap.js';

/**
 * Dominators on graphs big enough to cross the layouts' internal boundaries (later-predecessor
 * buckets of 8,192 vertices, 128-pair chunks, a DFS stack that must grow), against an
 * independent oracle: the iterative algorithm of Cooper, Harvey & Kennedy ("A Simple, Fast
 * Dominance Algorithm", 2001), written here from the paper with plain arrays. The naive oracle of
 * the small tests is O(N·(N + E)) and too slow at these sizes; both last steps are checked
 * against this one (they share the DFS and grouping, so comparing them with each other alone
 * would not catch a bug there).
 */
function iterativeDominators(g: HeapGraph): Uint32Array {
  const n = g.nodeCount;
  const counts = (v: number): boolean => (g.nodeFlags[v] & NODE_WEAK_EDGES) === 0;
  // postorder by an explicit-stack DFS over counted references
  const post = new Int32Array(n).fill(-1);
  const seen = new Uint8Array(n);
  const byPost: number[] = [];
  const stack: number[] = [g.rootIndex];
  const cursor: number[] = [g.firstEdge[g.rootIndex]];
  seen[g.rootIndex] = 1;
  while (stack.length > 0) {
    const v = stack[stack.length - 1];
    const end = counts(v) ? g.firstEdge[v + 1] : g.firstEdge[v];
    let k = cursor[cursor.length - 1];
    while (k < end && seen[g.edgeTarget[k]]) k++;
    if (k < end) {
      cursor[cursor.length - 1] = k + 1;
      const t = g.edgeTarget[k];
      seen[t] = 1;
      stack.push(t);
      cursor.push(g.firstEdge[t]);
    } else {
      post[v] = byPost.length;
      byPost.push(v);
      stack.pop();
      cursor.pop();
    }
  }
  const preds: number[][] = Array.from({ length: n }, () => []);
  for (const v of byPost) {
    if (!counts(v)) continue;
    for (let k = g.firstEdge[v]; k < g.firstEdge[v + 1]; k++) preds[g.edgeTarget[k]].push(v);
  }
  const doms = new Int32Array(n).fill(-1);
  doms[g.rootIndex] = g.rootIndex;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (post[a] < post[b]) a = doms[a];
      while (post[b] < post[a]) b = doms[b];
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = byPost.length - 2; i >= 0; i--) {
      const v = byPost[i];
      let d = -1;
      for (const p of preds[v]) if (doms[p] !== -1) d = d === -1 ? p : intersect(p, d);
      if (doms[v] !== d) {
        doms[v] = d;
        changed = true;
      }
    }
  }
  const idom = new Uint32Array(n).fill(NONE);
  for (let v = 0; v < n; v++) if (v !== g.rootIndex && doms[v] !== -1) idom[v] = doms[v];
  return idom;
}

function mismatches(a: Uint32Array, b: Uint32Array): number {
  let bad = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) bad++;
  return bad;
}

describe('dominators on large graphs vs the iterative algorithm', () => {
  it('random graphs of 20k–40k nodes (several predecessor buckets, cycles, weak and dead parts)', { timeout: 60_000 }, () => {
    for (const seed of [11, 12, 13, 14]) {
      const g = randomGraph(seed, { nodes: 20_000 + seed * 1500, types: 3, avgDegree: 1 + (seed % 3) });
      const oracle = iterativeDominators(g);
      for (const algorithm of ['semi-nca', 'lengauer-tarjan'] as const) {
        const d = computeDominators(g, undefined, undefined, algorithm);
        expect(mismatches(d.idom, oracle), `seed ${seed} ${algorithm}`).toBe(0);
      }
    }
  });

  it('the benchmark graph shape (long near-chains, 40% uniform references, a weak category)', { timeout: 60_000 }, () => {
    const g = syntheticHeap(50_000, 2.5, 4);
    const oracle = iterativeDominators(g);
    let reachable = 0;
    for (let v = 0; v < g.nodeCount; v++) if (oracle[v] !== NONE || v === g.rootIndex) reachable++;
    for (const algorithm of ['semi-nca', 'lengauer-tarjan'] as const) {
      const d = computeDominators(g, undefined, undefined, algorithm);
      expect(mismatches(d.idom, oracle), algorithm).toBe(0);
      expect(d.order.length).toBe(reachable);
    }
  });

  it('the synthetic .NET heap (lists thousands deep whose values are shared): both last steps agree', () => {
    // The iterative oracle is quadratic on those lists (33 s at 20k objects), so this compares
    // the two last steps only; they share the DFS, which the tests above check.
    const g = makeSyntheticHeap({ objects: 60_000, seed: 3 });
    const snca = computeDominators(g, undefined, undefined, 'semi-nca');
    const lt = computeDominators(g, undefined, undefined, 'lengauer-tarjan');
    expect(mismatches(snca.idom, lt.idom)).toBe(0);
    expect(Array.from(snca.orderIdom)).toEqual(Array.from(lt.orderIdom));
  });
});

import { describe, expect, it } from 'vitest';
import type { HeapAnalysis } from '../../../../shared/analysis/analyze.js';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { childRange, forestRoots } from '../../../../shared/analysis/dominator-tree.js';
import { NONE } from '../../../../shared/graph/heap-graph.js';
import { naiveAnalysis } from '../../../helpers/naive-dominators.js';
import { mulberry32, randomGraph } from '../../../helpers/random-graph.js';

/**
 * Seeded property test: the fast pipeline against the definition-based oracle on thousands of
 * random graphs (cycles, self-edges, duplicates, weak categories, unreachable cliques that point
 * into the live heap). Sizes are chosen so the whole file runs in a few seconds.
 */
describe('analyzeGraph vs naive dominators (seeded random graphs)', () => {
  const cases: { label: string; count: number; maxNodes: number }[] = [
    { label: 'tiny graphs (1–12 nodes)', count: 4000, maxNodes: 12 },
    { label: 'small graphs (up to 60 nodes)', count: 2000, maxNodes: 60 },
    { label: 'medium graphs (up to 400 nodes)', count: 400, maxNodes: 400 },
  ];
  for (const { label, count, maxNodes } of cases) {
    it(`matches idom, retained, reachability and type retained on ${count} ${label}`, () => {
      const rnd = mulberry32(maxNodes * 7919);
      let unreachableSeen = 0;
      let nestedTypesSeen = 0;
      for (let c = 0; c < count; c++) {
        const seed = Math.floor(rnd() * 2 ** 31);
        const g = randomGraph(seed, { nodes: 1 + Math.floor(rnd() * maxNodes), types: 1 + Math.floor(rnd() * 5), avgDegree: 0.5 + rnd() * 2.5 });
        const a = analyzeGraph(g);
        const o = naiveAnalysis(g);
        const where = `seed ${seed}, ${g.nodeCount} nodes`;
        expect(Array.from(a.reachable, (r) => r === 1), where).toEqual(o.reachable);
        expect(Array.from(a.idom), where).toEqual(Array.from(o.idom));
        expect(Array.from(a.retainedSize), where).toEqual(o.retained);
        expect(Array.from(a.typeRetained), where).toEqual(o.typeRetained);
        let shallow = 0;
        for (let t = 0; t < g.types.count; t++) shallow += a.typeReachableShallow[t];
        expect(shallow, where).toBe(a.reachableSize);
        expect(a.retainedSize[g.rootIndex], where).toBe(a.reachableSize);
        expect(treeProblem(a, g.rootIndex), where).toBe('');
        if (a.unreachableCount > 0) unreachableSeen++;
        for (let t = 0; t < g.types.count; t++) if (a.typeRetained[t] < a.typeReachableShallow[t] || o.typeRetained[t] < sumRetained(a.retainedSize, g.nodeType, a.reachable, t)) nestedTypesSeen++;
      }
      // the generator must actually exercise the hard cases
      expect(unreachableSeen).toBeGreaterThan(count / 10);
      expect(nestedTypesSeen).toBeGreaterThan(0);
    });
  }
});

function sumRetained(retained: Float64Array, nodeType: Uint32Array, reachable: Uint8Array, t: number): number {
  let s = 0;
  for (let v = 0; v < retained.length; v++) if (nodeType[v] === t && reachable[v]) s += retained[v];
  return s;
}

/** '' when the tree lists every node once, under its idom, children by retained desc then ordinal. */
function treeProblem(a: HeapAnalysis, root: number): string {
  const n = a.idom.length;
  const seen = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    const { start, end } = childRange(a, p);
    if ((a.reachable[p] === 0) !== (a.treePosition[p] === NONE)) return `node ${p}: position and reachability disagree`;
    for (let i = start; i < end; i++) {
      const c = a.domChildren[i];
      if (a.idom[c] !== p) return `child ${c} listed under ${p}`;
      if (seen[c]++) return `node ${c} listed twice`;
      if (i > start) {
        const prev = a.domChildren[i - 1];
        const ok = a.retainedSize[prev] > a.retainedSize[c] || (a.retainedSize[prev] === a.retainedSize[c] && prev < c);
        if (!ok) return `children of ${p} out of order at ${i}`;
      }
    }
  }
  const tail = Array.from(forestRoots(a));
  if (tail[0] !== root) return 'forest roots do not start with the root';
  for (const v of tail) if (seen[v]++ || (v !== root && a.idom[v] !== NONE)) return `bad forest root ${v}`;
  return seen.every((x) => x === 1) ? '' : 'a node is missing from the tree';
}

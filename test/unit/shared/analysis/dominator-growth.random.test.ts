import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../shared/analysis/analyze.js';
import { dominatorGrowth } from '../../../../shared/analysis/dominator-growth.js';
import { retainerSignatures, SEGMENT_SEPARATOR } from '../../../../shared/analysis/dominator-signatures.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED, NONE } from '../../../../shared/graph/heap-graph.js';
import { naiveAnalysis } from '../../../helpers/naive-dominators.js';
import { mulberry32, randomGraph } from '../../../helpers/random-graph.js';

// Issue 16: retainer signatures against an oracle written from the documented rule: for every
// node, walk its (naive) idom chain up to the root; keep it when the chain is at most maxDepth
// long and every node on it retains ≥ minBytes; a segment's rank counts the same-type siblings
// (same naive idom) that retain more, or as much with a smaller ordinal.

function naiveSignatures(g: HeapGraph, minBytes: number, maxDepth: number): Map<string, { node: number; depth: number; retained: number }> {
  const o = naiveAnalysis(g);
  const names = g.types.names;
  const segment = (u: number): string => {
    let rank = 0;
    for (let w = 0; w < g.nodeCount; w++) {
      if (w === u || o.idom[w] !== o.idom[u] || g.nodeType[w] !== g.nodeType[u]) continue;
      if (o.retained[w] > o.retained[u] || (o.retained[w] === o.retained[u] && w < u)) rank++;
    }
    return names[g.nodeType[u]] + (rank > 0 ? ` #${rank + 1}` : '');
  };
  const out = new Map<string, { node: number; depth: number; retained: number }>();
  for (let v = 0; v < g.nodeCount; v++) {
    if (!o.reachable[v] || v === g.rootIndex || g.nodeFlags[v] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
    const chain: number[] = [];
    for (let u = v; u !== g.rootIndex; u = o.idom[u]) chain.unshift(u);
    if (chain.length > maxDepth || chain.some((u) => o.retained[u] < minBytes)) continue;
    const sig = chain.map(segment).join(SEGMENT_SEPARATOR);
    expect(out.has(sig), `duplicate signature ${sig}`).toBe(false);
    out.set(sig, { node: v, depth: chain.length, retained: o.retained[v] });
  }
  return out;
}

describe('retainer signatures (random graphs vs naive idom chains)', () => {
  it('finds exactly the retainers of the rule, with their depth and retained size', () => {
    const rnd = mulberry32(16016);
    let seen = 0;
    let ranked = 0;
    for (let trial = 0; trial < 150; trial++) {
      const g = randomGraph(5000 + trial, { nodes: 2 + Math.floor(rnd() * 60), types: 1 + Math.floor(rnd() * 4), avgDegree: 0.5 + rnd() * 2.5 });
      const minBytes = [0, 1, 50, 120, 300][trial % 5];
      const maxDepth = 1 + (trial % 7);
      const got = retainerSignatures(g, analyzeDominance(g), 't', { minBytes, maxDepth });
      const want = naiveSignatures(g, minBytes, maxDepth);
      const gotMap = new Map(got.entries.map((e) => [e.signature, { node: e.node, depth: e.depth, retained: e.retained }]));
      expect(gotMap.size, `trial ${trial}: duplicate signatures`).toBe(got.entries.length);
      expect(gotMap, `trial ${trial}`).toEqual(want);
      for (const e of got.entries) expect(e.node).not.toBe(NONE);
      seen += got.entries.length;
      ranked += got.entries.filter((e) => e.signature.includes(' #')).length;
    }
    // the trials exercise the rule, ranks included (not only empty answers)
    expect(seen).toBeGreaterThan(800);
    expect(ranked).toBeGreaterThan(100);
  });

  it('growth rows match a naive comparison of the signature maps', () => {
    for (let trial = 0; trial < 40; trial++) {
      const k = 2 + (trial % 4);
      const snaps = Array.from({ length: k }, (_, i) => {
        const g = randomGraph(9000 + trial * 10 + i, { nodes: 30, types: 2, avgDegree: 1.5 });
        return retainerSignatures(g, analyzeDominance(g), `s${i}`, { minBytes: 20, maxDepth: 4 });
      });
      const maps = snaps.map((s) => new Map(s.entries.map((e) => [e.signature, e.retained])));
      const sigs = new Set(maps.flatMap((m) => [...m.keys()]));
      const want: [string, number[], number, number][] = [];
      for (const sig of sigs) {
        const series = maps.map((m) => m.get(sig) ?? 0);
        let steps = 0;
        for (let i = 1; i < k; i++) if (series[i] > series[i - 1]) steps++;
        if (series[k - 1] > series[0]) want.push([sig, series, series[k - 1] - series[0], steps]);
      }
      const t = dominatorGrowth(snaps);
      expect(t.retainersSeen).toBe(sigs.size);
      const got = t.rows.map((r): [string, number[], number, number] => [r.signature, r.retained, r.growth, r.growingSteps]);
      const bySig = (a: [string, ...unknown[]], b: [string, ...unknown[]]) => (a[0] < b[0] ? -1 : 1);
      expect(got.slice().sort(bySig), `trial ${trial}`).toEqual(want.sort(bySig));
      for (let i = 1; i < t.rows.length; i++) expect(t.rows[i - 1].growth).toBeGreaterThanOrEqual(t.rows[i].growth);
    }
  });
});

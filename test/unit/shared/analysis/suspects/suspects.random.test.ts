import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../../shared/analysis/analyze.js';
import { isPseudo } from '../../../../../shared/analysis/paths-to-roots.js';
import { accumulationPoint } from '../../../../../shared/analysis/suspects/accumulation-point.js';
import { biggestRetainers } from '../../../../../shared/analysis/suspects/biggest-retainers.js';
import { buildSuspectsReport } from '../../../../../shared/analysis/suspects/suspects-report.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { NODE_UNDEFINED, NONE } from '../../../../../shared/graph/heap-graph.js';
import { naiveAnalysis, type NaiveAnalysis } from '../../../../helpers/naive-dominators.js';
import { randomGraph } from '../../../../helpers/random-graph.js';

/**
 * Seeded random graphs: the biggest retainers and accumulation points against their definitions
 * applied to the naive (definition-based) dominators: retained sizes from the naive dominated
 * sets, children found by scanning every node's naive idom.
 */

/** Heap objects with every dominator above them a pseudo-node, retaining ≥ minBytes; largest first, ties by ordinal. */
function naiveBiggest(g: HeapGraph, o: NaiveAnalysis, minBytes: number): number[] {
  const out: number[] = [];
  for (let n = 0; n < g.nodeCount; n++) {
    if (!o.reachable[n] || n === g.rootIndex || isPseudo(g, n) || g.nodeFlags[n] & NODE_UNDEFINED || o.retained[n] < minBytes) continue;
    let top = true;
    for (let d = o.idom[n]; d !== NONE; d = o.idom[d]) if (!isPseudo(g, d)) top = false;
    if (top) out.push(n);
  }
  return out.sort((x, y) => o.retained[y] - o.retained[x] || x - y);
}

/** The walk of accumulation-point.ts, children taken from the naive idoms. */
function naiveAccumulation(g: HeapGraph, o: NaiveAnalysis, s: number): { node: number; depth: number; childCount: number } {
  const children = (p: number) => {
    const c: number[] = [];
    for (let n = 0; n < g.nodeCount; n++) if (o.reachable[n] && o.idom[n] === p) c.push(n);
    return c.sort((x, y) => o.retained[y] - o.retained[x] || x - y);
  };
  let cur = s;
  let depth = 0;
  for (;;) {
    const c = children(cur);
    if (c.length === 0 || o.retained[c[0]] * 100 < 70 * o.retained[cur]) return { node: cur, depth, childCount: c.length };
    cur = c[0];
    depth++;
  }
}

describe('biggest retainers and accumulation points on random graphs', () => {
  it('match the definitions on naive dominators (300 graphs, thresholds 1–30%)', () => {
    let suspects = 0;
    let walked = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const g = randomGraph(seed, { nodes: 10 + (seed % 60), types: 4, avgDegree: 1 + (seed % 3) });
      const a = analyzeDominance(g);
      const o = naiveAnalysis(g);
      const pct = 1 + (seed % 30);
      const minBytes = Math.max(1, Math.ceil((pct * a.reachableSize) / 100));
      const expected = naiveBiggest(g, o, minBytes);
      const got = biggestRetainers(g, a, minBytes, 1000);
      expect({ seed, nodes: got.nodes, total: got.total }).toEqual({ seed, nodes: expected, total: expected.length });
      for (const s of got.nodes) {
        const p = accumulationPoint(g, a, s);
        expect({ seed, s, ...p }).toMatchObject({ seed, s, ...naiveAccumulation(g, o, s) });
        if (p.depth > 0) walked++;
      }
      suspects += got.nodes.length;
      // the report lists the same objects (at most 20) with the same retained sizes
      const r = buildSuspectsReport(g, a, { fileName: 'r', thresholdPercent: pct });
      expect(r.suspects.map((x) => [x.node, x.retainedSize])).toEqual(expected.slice(0, 20).map((n) => [n, o.retained[n]]));
    }
    // the comparison is not vacuous
    expect(suspects).toBeGreaterThan(300);
    expect(walked).toBeGreaterThan(30);
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { computeSetRetained } from '../../../../shared/analysis/set-retained.js';
import { naiveSetRetained } from '../../../helpers/naive-set-retained.js';
import { mulberry32, randomGraph } from '../../../helpers/random-graph.js';

/**
 * Seeded property test: every type's set retained size against the remove-and-rewalk oracle on
 * random graphs with cycles, self-edges, duplicates, weak categories and unreachable cliques that
 * point into the live heap; and never below the type retained size.
 */
describe('set retained vs naive remove-and-rewalk (seeded random graphs)', () => {
  const cases: { label: string; count: number; maxNodes: number }[] = [
    { label: 'tiny graphs (1–12 nodes)', count: 3000, maxNodes: 12 },
    { label: 'small graphs (up to 60 nodes)', count: 1500, maxNodes: 60 },
    { label: 'medium graphs (up to 400 nodes)', count: 300, maxNodes: 400 },
  ];
  for (const { label, count, maxNodes } of cases) {
    it(`matches the oracle for every type on ${count} ${label}`, () => {
      const rnd = mulberry32(maxNodes * 104729);
      let differing = 0;
      for (let c = 0; c < count; c++) {
        const seed = Math.floor(rnd() * 2 ** 31);
        const g = randomGraph(seed, { nodes: 1 + Math.floor(rnd() * maxNodes), types: 1 + Math.floor(rnd() * 5), avgDegree: 0.5 + rnd() * 2.5 });
        const a = analyzeGraph(g);
        const all = Array.from({ length: g.types.count }, (_, t) => t);
        const fast = Array.from(computeSetRetained(g, a, all));
        const naive = all.map((t) => naiveSetRetained(g, t));
        const where = `seed ${seed}, ${g.nodeCount} nodes`;
        expect(fast, where).toEqual(naive);
        for (const t of all) {
          expect(fast[t], where).toBeGreaterThanOrEqual(a.typeRetained[t]);
          if (fast[t] > a.typeRetained[t]) differing++;
        }
      }
      // the property is not vacuous: the two figures differ on many types
      if (maxNodes > 12) expect(differing).toBeGreaterThan(count / 10);
    });
  }
});

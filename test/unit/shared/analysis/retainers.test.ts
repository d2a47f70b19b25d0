import { describe, expect, it } from 'vitest';
import { buildRetainers, prepareRetainersMemory } from '../../../../shared/analysis/retainers.js';
import { CancellationSource } from '../../../../shared/util/cancellation.js';
import { CancelledError } from '../../../../shared/errors.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { randomGraph } from '../../../helpers/random-graph.js';

describe('buildRetainers', () => {
  it('reverses every reference, duplicates, self-edges and weak ones included, sources ascending', () => {
    const t = tinyGraph((b) => {
      b.root('S').ref('A', 'B');
      b.root('W', { weak: true }).ref('B');
      b.node('A', 1).ref('B', 'B', 'A');
      b.node('B', 1).ref('A');
    });
    // ordinals in declaration order: [root]=0 S=1 W=2 A=3 B=4
    const r = buildRetainers(t.graph);
    expect(Array.from(r.firstRetainer)).toEqual([0, 0, 1, 2, 5, 9]);
    expect(Array.from(r.retainerNode)).toEqual([
      ...[0], // S ← root
      ...[0], // W ← root
      ...[1, 3, 4], // A ← S, A (self), B
      ...[1, 2, 3, 3], // B ← S, W (weak), A, A (duplicate)
    ]);
  });

  it('matches a direct reversal on random graphs', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const g = randomGraph(seed, { nodes: 1 + (seed % 80), types: 3, avgDegree: 2 });
      const expected: number[][] = Array.from({ length: g.nodeCount }, () => []);
      for (let v = 0; v < g.nodeCount; v++) for (let e = g.firstEdge[v]; e < g.firstEdge[v + 1]; e++) expected[g.edgeTarget[e]].push(v);
      // the default (one round here) and tiny scratch sizes (many rounds, a bucket per round or more)
      for (const roundPairs of [undefined, 1, 7]) {
        // also with memory prepared from a size hint: roomy, exact, or too small (then ignored)
        const hint = [null, [g.nodeCount + 5, g.edgeCount + 9], [g.nodeCount, g.edgeCount], [g.nodeCount - 1, g.edgeCount]][seed % 4];
        const prepared = hint ? prepareRetainersMemory(Math.max(0, hint[0]), hint[1], roundPairs) : null;
        const r = buildRetainers(g, undefined, undefined, roundPairs, prepared);
        const actual = expected.map((_, v) => Array.from(r.retainerNode.subarray(r.firstRetainer[v], r.firstRetainer[v + 1])));
        expect(actual, `seed ${seed}, round ${roundPairs}`).toEqual(expected);
        expect(r.firstRetainer.length).toBe(g.nodeCount + 1);
        expect(r.retainerNode.length).toBe(g.edgeCount);
        expect(r.firstRetainer[g.nodeCount]).toBe(g.edgeCount);
      }
    }
  });

  it('matches a direct reversal on a graph with more than 1,024 targets per bucket span (several targets per bucket)', () => {
    const g = randomGraph(99, { nodes: 5000, types: 4, avgDegree: 3 });
    const expected: number[][] = Array.from({ length: g.nodeCount }, () => []);
    for (let v = 0; v < g.nodeCount; v++) for (let e = g.firstEdge[v]; e < g.firstEdge[v + 1]; e++) expected[g.edgeTarget[e]].push(v);
    for (const roundPairs of [undefined, 1000]) {
      const r = buildRetainers(g, undefined, undefined, roundPairs);
      expect(expected.map((_, v) => Array.from(r.retainerNode.subarray(r.firstRetainer[v], r.firstRetainer[v + 1])))).toEqual(expected);
    }
  });

  it('reads the reference column a fixed number of times however many rounds the scratch needs (not once per round)', () => {
    const g = randomGraph(7, { nodes: 20_000, types: 5, avgDegree: 4 });
    const one = { edgePasses: 0 };
    const want = buildRetainers(g, undefined, undefined, undefined, null, one);
    expect(one.edgePasses).toBe(2);
    // up to 2 × roundPairs references: rounds of target buckets, 1 + rounds passes; beyond: rounds of
    // sources, 3 passes (target-bucket rounds would take 1 + 10, 1 + 100, and 1 + one per bucket)
    for (const [roundPairs, passes] of [
      [g.edgeCount - 1, 3],
      [Math.ceil(g.edgeCount / 2), 4],
      [Math.ceil(g.edgeCount / 10), 3],
      [Math.ceil(g.edgeCount / 100), 3],
      [3, 3],
    ]) {
      const stats = { edgePasses: 0 };
      const r = buildRetainers(g, undefined, undefined, roundPairs, null, stats);
      expect(stats.edgePasses, `roundPairs ${roundPairs}`).toBe(passes);
      expect(Array.from(r.firstRetainer), `roundPairs ${roundPairs}`).toEqual(Array.from(want.firstRetainer));
      expect(Array.from(r.retainerNode), `roundPairs ${roundPairs}`).toEqual(Array.from(want.retainerNode));
    }
  });

  it('a source with more references than a round holds gets a round of its own', () => {
    const t = tinyGraph((b) => {
      b.root('S').ref('A', 'B', 'C');
      b.node('A', 1).ref('B', 'C', 'A', 'B', 'C', 'S');
      b.node('B', 1).ref('A');
      b.node('C', 1);
    });
    // ordinals: [root]=0 S=1 A=2 B=3 C=4
    const r = buildRetainers(t.graph, undefined, undefined, 2);
    expect(Array.from(r.firstRetainer)).toEqual([0, 0, 2, 5, 8, 11]);
    expect(Array.from(r.retainerNode)).toEqual([...[0, 2], ...[1, 2, 3], ...[1, 2, 2], ...[1, 2, 2]]); // S, A, B, C
  });

  it('stops when cancelled', () => {
    const source = new CancellationSource();
    source.cancel();
    expect(() => buildRetainers(randomGraph(1, { nodes: 10, types: 1, avgDegree: 1 }), source.token)).toThrow(CancelledError);
  });
});

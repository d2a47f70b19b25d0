import { describe, expect, it } from 'vitest';
import { bucketShiftFor, groupLaterPredecessors, numberByDfs, numberByDfsInline } from '../../../../shared/analysis/dominators-dfs.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { NEVER_CANCELLED } from '../../../../shared/util/cancellation.js';
import { NO_PROGRESS } from '../../../../shared/util/progress.js';
import { mulberry32, randomGraph, syntheticHeap } from '../../../helpers/random-graph.js';

/**
 * The width of the DFS's later-predecessor buckets (dominators-dfs.ts bucketShiftFor) grows with
 * the heap past 16M nodes; whatever the width, the grouped runs must be the same. Heaps of 16M+
 * nodes do not fit a unit test, so the DFS is given the width here: 1 (thousands of buckets on
 * a small graph), the default 13, and widths wider than the graph (one bucket).
 */
function grouped(g: HeapGraph, inline: boolean, shift: number | undefined): { starts: number[]; runs: number[][]; pairs: number } {
  const n = g.nodeCount;
  const stride = inline ? 4 : 2;
  const rec = new Uint32Array(stride * (n + 1));
  const vertex = new Uint32Array(n + 1);
  const parent = new Uint32Array(n + 1);
  const semi = new Uint32Array(n + 1);
  const run = (inline ? numberByDfsInline : numberByDfs)(g, rec, vertex, parent, semi, NEVER_CANCELLED, NO_PROGRESS, 2 * n, true, shift);
  const forest = new Uint32Array(2 * (n + 1));
  const pred = groupLaterPredecessors(run, forest, 2, NEVER_CANCELLED);
  const starts: number[] = [];
  const runs: number[][] = [];
  for (let u = 1; u <= run.count; u++) {
    const start = forest[2 * u + 1];
    const end = u === run.count ? pred.length : forest[2 * (u + 1) + 1];
    starts.push(start);
    // the order inside a run is free (semi is a minimum); its members and its place are not
    runs.push(Array.from(pred.subarray(start, end)).sort((a, b) => a - b));
  }
  return { starts, runs, pairs: run.pairCount };
}

describe('later-predecessor buckets', () => {
  it('are 8,192 vertices wide up to 16M nodes, then as wide as keeps them at most 2,048', () => {
    expect(bucketShiftFor(0)).toBe(13);
    expect(bucketShiftFor(10_000_000)).toBe(13);
    expect(bucketShiftFor(2048 * 8192)).toBe(13);
    expect(bucketShiftFor(2048 * 8192 + 1)).toBe(14);
    expect(bucketShiftFor(30_000_000)).toBe(14);
    expect(bucketShiftFor(50_003_007)).toBe(15);
    expect(bucketShiftFor(100_003_007)).toBe(16);
    expect(bucketShiftFor(2 ** 32 - 1)).toBe(21);
  });

  it('group the same runs whatever their width (random graphs and synthetic heaps, both record layouts)', () => {
    const rnd = mulberry32(1717);
    for (let c = 0; c < 120; c++) {
      const seed = Math.floor(rnd() * 2 ** 31);
      const g = c % 4 === 3 ? syntheticHeap(9000 + Math.floor(rnd() * 30000), 0.5 + rnd() * 3, seed) : randomGraph(seed, { nodes: 1 + Math.floor(rnd() * 400), types: 3, avgDegree: rnd() * 5 });
      for (const inline of [false, true]) {
        const want = grouped(g, inline, undefined);
        for (const shift of [1, 5, 16, 21]) {
          const got = grouped(g, inline, shift);
          expect(got.pairs, `seed ${seed} shift ${shift}`).toBe(want.pairs);
          expect(got.starts, `seed ${seed} shift ${shift}`).toEqual(want.starts);
          expect(got.runs, `seed ${seed} shift ${shift}`).toEqual(want.runs);
        }
      }
    }
  });
});

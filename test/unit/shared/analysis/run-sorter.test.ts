import { describe, expect, it } from 'vitest';
import { RunSorter } from '../../../../shared/analysis/run-sorter.js';
import { mulberry32 } from '../../../helpers/random-graph.js';

// The dominator tree's child-run sorts (run-sorter.ts) against Array.prototype.sort with the same
// order: retained size descending, ties by ordinal ascending.

function naive(nodes: number[], keyOf: Float64Array): number[] {
  return [...nodes].sort((a, b) => keyOf[b] - keyOf[a] || a - b);
}

/** `count` distinct ordinals below `n`, in random order. */
function someNodes(rnd: () => number, n: number, count: number): number[] {
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(Math.floor(rnd() * n));
  return [...chosen];
}

describe('RunSorter.sortByLookup (in place, keys read by node)', () => {
  it('sorts runs of every length with heavy ties, keys of every magnitude below 2^53, at an offset', () => {
    const rnd = mulberry32(2026);
    for (const [length, sizes] of [
      [1, 3],
      [31, 2],
      [500, 4],
      [4096, 3],
      [5000, 3], // just past the small-segment bound
      [60_000, 5], // segments of thousands of ties, split by the ordinal's digits
      [60_000, 60_000], // hardly any ties
    ] as const) {
      const n = 2 * length + 4_200_000; // ordinals past 2^22: all three of the ordinal's digits differ
      const nodes = someNodes(rnd, n, length);
      const keyOf = new Float64Array(n);
      const palette = Array.from({ length: sizes }, (_, i) => (i % 3 === 0 ? Math.floor(rnd() * 2 ** 53) : i % 3 === 1 ? 24 + 8 * i : Math.floor(rnd() * 2 ** 33)));
      for (const v of nodes) keyOf[v] = palette[Math.floor(rnd() * sizes)];
      const buffer = new Uint32Array(length + 7);
      buffer.set(nodes, 5);
      const placed = [0];
      new RunSorter(0, true).sortByLookup(buffer, 5, length, keyOf, (d) => (placed[0] = d));
      expect(Array.from(buffer.subarray(5, 5 + length)), `length ${length}, ${sizes} sizes`).toEqual(naive(nodes, keyOf));
      // every entry counted once as placed (the helper thread's progress while the tree waits for it)
      expect(placed[0], `length ${length}, ${sizes} sizes`).toBe(length);
      expect([buffer[0], buffer[4], buffer[5 + length], buffer[6 + length]]).toEqual([0, 0, 0, 0]); // nothing outside the run
    }
  });

  it('gives sortByKey’s order for a run given in ascending ordinal order', () => {
    const rnd = mulberry32(7);
    const n = 50_000;
    const nodes = someNodes(rnd, n, 20_000).sort((a, b) => a - b);
    const keyOf = new Float64Array(n);
    for (const v of nodes) keyOf[v] = [16, 24, 32, 4096, 1 << 20][Math.floor(rnd() * 5)];
    const inPlace = Uint32Array.from(nodes);
    new RunSorter(0, true).sortByLookup(inPlace, 0, nodes.length, keyOf);
    const sorter = new RunSorter(nodes.length);
    const carried = Uint32Array.from(nodes);
    nodes.forEach((v, i) => (sorter.keys[i] = keyOf[v]));
    sorter.sortByKey(carried, 0, nodes.length);
    expect(Array.from(inPlace)).toEqual(Array.from(carried));
  });
});

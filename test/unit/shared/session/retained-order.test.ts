import { describe, expect, it } from 'vitest';
import { sortIdsByKeyDesc } from '../../../../shared/session/retained-order.js';
import { mulberry32 } from '../../../helpers/prng.js';

// The radix sort of a type group's instances (grouped dominator tree) against a comparator sort.
describe('sortIdsByKeyDesc', () => {
  it('orders by key desc, ties by ascending id, small and large runs, keys up to 2^53', () => {
    const rnd = mulberry32(77);
    for (const [k, span] of [
      [10, 5],
      [300, 3],
      [5000, 1000],
      [5000, 2 ** 40],
      [20_000, 2 ** 53 - 1],
      [3000, 1],
    ] as const) {
      const n = k * 3;
      const key = new Float64Array(n);
      for (let i = 0; i < n; i++) key[i] = Math.floor(rnd() * span);
      key[n - 1] = Number.MAX_SAFE_INTEGER;
      const ids = Uint32Array.from({ length: k }, (_, i) => i * 3 + (i % 3)).sort();
      ids[k - 1] = n - 1;
      const want = Array.from(ids).sort((a, b) => key[b] - key[a] || a - b);
      expect(Array.from(sortIdsByKeyDesc(ids.slice(), key)), `k=${k} span=${span}`).toEqual(want);
    }
  });

  it('exact order on a hand-made run above the comparator threshold', () => {
    const key = new Float64Array(600);
    for (let i = 0; i < 600; i++) key[i] = i % 3 === 0 ? 2 ** 33 + 5 : i % 3 === 1 ? 7 : 2 ** 33;
    const ids = Uint32Array.from({ length: 600 }, (_, i) => i);
    const out = Array.from(sortIdsByKeyDesc(ids, key));
    expect(out.slice(0, 3)).toEqual([0, 3, 6]);
    expect(out.slice(199, 202)).toEqual([597, 2, 5]);
    expect(out.slice(-2)).toEqual([595, 598]);
  });
});

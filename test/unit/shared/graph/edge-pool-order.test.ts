import { describe, expect, it } from 'vitest';
import { countSegments, heaviestChain, inPlaceLimit, orderByCopy, orderInPlace } from '../../../../shared/graph/edge-pool-order.js';
import { HeapGraphBuilder } from '../../../../shared/graph/heap-graph-builder.js';
import { emptyMetadata } from '../../../../shared/graph/metadata.js';
import { NEVER_CANCELLED } from '../../../../shared/util/cancellation.js';
import { mulberry32 } from '../../../helpers/prng.js';

/**
 * The builder's edge pool put into node order when nodes were described out of order: in place
 * when the nodes fall into few segments (the root's record last), else by a copy.
 */

/** A pool holding `lists` in `visit` order (a node may appear twice: the last wins, the first is dead space). */
function poolOf(lists: number[][], visit: number[], slack = 0): { pool: Uint32Array; start: Uint32Array; count: Uint32Array } {
  const n = lists.length;
  const start = new Uint32Array(n + 1);
  const count = new Uint32Array(n);
  const flat: number[] = [];
  for (const node of visit) {
    start[node] = flat.length;
    count[node] = lists[node].length;
    flat.push(...lists[node]);
  }
  const pool = new Uint32Array(flat.length + slack);
  pool.set(flat);
  return { pool, start, count };
}

function nodeOrder(lists: number[][], described: Set<number>): { first: number[]; targets: number[] } {
  const first = [0];
  const targets: number[] = [];
  for (let i = 0; i < lists.length; i++) {
    if (described.has(i)) targets.push(...lists[i]);
    first.push(targets.length);
  }
  return { first, targets };
}

describe('edge pool order', () => {
  it('root last: two segments, the root\'s references stashed, the rest shifted right in place', () => {
    const lists = [[1, 2, 3], [2], [], [0, 1], [4]];
    const { pool, start, count } = poolOf(lists, [1, 2, 3, 4, 0]);
    expect(Array.from(pool)).toEqual([2, 0, 1, 4, 1, 2, 3]);
    const segments = countSegments(start, count, 5);
    expect(segments).toBe(2);
    const sum = orderInPlace(pool, start, count, 5, segments, NEVER_CANCELLED);
    expect(sum).toBe(7);
    expect(Array.from(start)).toEqual([0, 3, 4, 4, 6, 7]);
    expect(Array.from(pool)).toEqual([1, 2, 3, 2, 0, 1, 4]);
  });

  it('keeps the heaviest chain of segments in place, not the longest', () => {
    // pool order of segment indices 2, 0, 1 with weights 10, 1, 1: keeping {2} beats {0, 1}
    expect(Array.from(heaviestChain(Uint32Array.of(20, 30, 0), Uint32Array.of(1, 1, 10), 3))).toEqual([0, 0, 1]);
    expect(Array.from(heaviestChain(Uint32Array.of(20, 30, 0), Uint32Array.of(6, 6, 10), 3))).toEqual([1, 1, 0]);
  });

  it('heaviestChain is a heaviest increasing chain (brute force over all subsets)', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const r = mulberry32(seed);
      const s = 1 + Math.floor(r() * 9);
      const places = Array.from({ length: s }, (_, i) => i * 10);
      for (let i = s - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1));
        [places[i], places[j]] = [places[j], places[i]];
      }
      const segPool = Uint32Array.from(places);
      const segLength = Uint32Array.from({ length: s }, () => 1 + Math.floor(r() * 5));
      let best = 0;
      for (let mask = 1; mask < 1 << s; mask++) {
        let ok = true;
        let last = -1;
        let w = 0;
        for (let k = 0; k < s; k++) {
          if ((mask & (1 << k)) === 0) continue;
          if (segPool[k] <= last) ok = false;
          last = segPool[k];
          w += segLength[k];
        }
        if (ok) best = Math.max(best, w);
      }
      const kept = heaviestChain(segPool, segLength, s);
      let w = 0;
      let last = -1;
      for (let k = 0; k < s; k++) {
        if (kept[k] === 0) continue;
        expect(segPool[k], `seed ${seed}`).toBeGreaterThan(last);
        last = segPool[k];
        w += segLength[k];
      }
      expect(w, `seed ${seed}`).toBe(best);
    }
  });

  it('in place and by copy both match per-node lists for random block orders, duplicates and gaps', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = mulberry32(seed);
      const n = 1 + Math.floor(r() * 60);
      const lists: number[][] = [];
      for (let i = 0; i < n; i++) lists.push(Array.from({ length: r() < 0.2 ? 0 : Math.floor(r() * 5) }, () => Math.floor(r() * n)));
      // runs of consecutive nodes, the runs shuffled: few segments, as real producers write
      const runs: number[][] = [];
      for (let i = 0; i < n; ) {
        const len = 1 + Math.floor(r() * 8);
        runs.push(Array.from({ length: Math.min(len, n - i) }, (_, k) => i + k));
        i += len;
      }
      for (let i = runs.length - 1; i > 0; i--) {
        if (r() < 0.5) continue;
        const j = Math.floor(r() * (i + 1));
        [runs[i], runs[j]] = [runs[j], runs[i]];
      }
      let visit = runs.flat().filter(() => r() < 0.9);
      // a node described twice: its first references become dead space
      if (visit.length > 0 && r() < 0.3) visit = [visit[Math.floor(r() * visit.length)], ...visit];
      const expected = nodeOrder(lists, new Set(visit));

      const a = poolOf(lists, visit, Math.floor(r() * 4));
      const segments = countSegments(a.start, a.count, n);
      const sum = orderInPlace(a.pool, a.start, a.count, n, segments, NEVER_CANCELLED);
      expect(Array.from(a.start), `seed ${seed}`).toEqual(expected.first);
      expect(Array.from(a.pool.subarray(0, sum)), `seed ${seed}`).toEqual(expected.targets);

      const b = poolOf(lists, visit);
      const firstEdge = new Uint32Array(n + 1);
      const target = orderByCopy(b.pool, b.start, b.count, n, firstEdge, (length) => new Uint32Array(length), NEVER_CANCELLED);
      expect(Array.from(firstEdge), `seed ${seed}`).toEqual(expected.first);
      expect(Array.from(target), `seed ${seed}`).toEqual(expected.targets);
    }
  });

  it('takes a shuffled pool by copy (more segments than a sixteenth of the nodes, past 1,024, or than 2^21)', () => {
    expect(inPlaceLimit(100)).toBe(1024);
    expect(inPlaceLimit(1_600_000)).toBe(100_000);
    expect(inPlaceLimit(100_000_000)).toBe(2 ** 21); // never more (the chain's sort key)
    // counting stops at the limit: a shuffled pool is found out early
    const n = 1000;
    const start = Uint32Array.from({ length: n }, (_, i) => (n - 1 - i) * 2);
    const count = new Uint32Array(n).fill(2);
    expect(countSegments(start, count, n)).toBe(n);
    expect(countSegments(start, count, n, 10)).toBe(10);
  });

  it('the builder hands out its own pool and start column for a root-last graph (no second edge column)', () => {
    for (const sharedMemory of [false, true]) {
      const n = 5000;
      const b = new HeapGraphBuilder({ expectedNodes: n, expectedEdges: 2 * n, sharedMemory });
      const t = b.addType('T');
      b.createNodes(n);
      for (let i = 1; i < n; i++) b.setNode(i, t, 8, [(i * 7) % n, (i * 13) % n]);
      b.setNode(0, t, 8, [1, 2, 3]); // the root's record last
      b.setRoot(0);
      const g = b.finish(emptyMetadata('synthetic'));
      expect(g.edgeCount).toBe(2 * (n - 1) + 3);
      expect(Array.from(g.edgeTarget.subarray(0, 5))).toEqual([1, 2, 3, 7, 13]);
      expect(g.firstEdge[n]).toBe(g.edgeCount);
      // the pool as the builder allocated it (hint 2n, grown once by doubling) and the start column
      expect(g.edgeTarget.buffer.byteLength).toBe(4 * 4 * n);
      expect(g.edgeTarget.buffer instanceof SharedArrayBuffer).toBe(sharedMemory);
    }
  });
});

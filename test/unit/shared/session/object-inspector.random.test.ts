import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../../../shared/graph/heap-graph.js';
import { AddressIndex } from '../../../../shared/session/address-index.js';
import { ObjectInspectorView } from '../../../../shared/session/object-inspector-view.js';
import { ObjectView } from '../../../../shared/session/object-view.js';
import { mulberry32, randomGraph } from '../../../helpers/random-graph.js';

// Seeded comparison of the inspector's reference windows with naive edge lists (outgoing: read
// off firstEdge; incoming: every (source, target) pair collected by a plain loop over sources),
// and of "go to address" with a linear scan, on random graphs given random 64-bit addresses
// (duplicates, zeros, high halves) — or ascending ones, the order a heap walk writes.
function withAddresses(g: HeapGraph, seed: number, ascending: boolean): HeapGraph {
  const rnd = mulberry32(seed);
  const address = new BigUint64Array(g.nodeCount);
  let next = 0x10000n;
  for (let n = 0; n < g.nodeCount; n++) {
    if (g.nodeFlags[n] & NODE_PSEUDO) continue;
    if (ascending) {
      next += BigInt(8 * Math.floor(rnd() * 40));
      address[n] = next;
    } else if (rnd() < 0.05 && n > 0) {
      address[n] = address[n - 1]; // the same address twice
    } else if (rnd() < 0.03) {
      address[n] = 0n;
    } else {
      const hi = rnd() < 0.5 ? 0 : 1 + Math.floor(rnd() * 3);
      address[n] = (BigInt(hi) << 32n) | BigInt(8 * Math.floor(rnd() * 4000));
    }
  }
  return { ...g, address };
}

/** The oracle: lowest-ordinal object at exactly x, else the nearest start below x if x falls inside it. */
function naiveFind(g: HeapGraph, x: bigint): { node: number; offset: number } | null {
  let best = -1;
  for (let n = 0; n < g.nodeCount; n++) {
    if (g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED) || g.address[n] === 0n || g.address[n] > x) continue;
    if (best < 0 || g.address[n] > g.address[best]) best = n;
  }
  if (best < 0) return null;
  const offset = Number(x - g.address[best]);
  return offset === 0 || offset < g.selfSize[best] ? { node: best, offset } : null;
}

describe('object inspector against naive oracles (seeded)', () => {
  for (let seed = 1; seed <= 30; seed++) {
    it(`seed ${seed}: reference windows and address lookups`, () => {
      const rnd = mulberry32(seed * 104_729);
      const base = randomGraph(seed, { nodes: 10 + Math.floor(rnd() * 400), types: 2 + Math.floor(rnd() * 20), avgDegree: 1 + rnd() * 4 });
      const g = withAddresses(base, seed, seed % 3 === 0);
      const a = analyzeGraph(g);
      const objects = new ObjectView(g);
      const v = new ObjectInspectorView(g, (n) => objects.hex(n));
      const incoming: number[][] = Array.from({ length: g.nodeCount }, () => []);
      for (let s = 0; s < g.nodeCount; s++) for (let e = g.firstEdge[s]; e < g.firstEdge[s + 1]; e++) incoming[g.edgeTarget[e]].push(s);
      for (let k = 0; k < 40; k++) {
        const n = Math.floor(rnd() * g.nodeCount);
        const out = Array.from(g.edgeTarget.subarray(g.firstEdge[n], g.firstEdge[n + 1]));
        for (const [dir, list] of [['outgoing', out], ['incoming', incoming[n]]] as const) {
          const start = Math.floor(rnd() * (list.length + 2));
          const end = start + Math.floor(rnd() * 6);
          const w = v.references(a, n, dir, start, end);
          expect(w.total).toBe(list.length);
          expect(w.rows.map((r) => r.node), `${dir} of ${n} [${start}, ${end})`).toEqual(list.slice(start, end));
          for (const r of w.rows) {
            expect([r.outgoing, r.incoming, r.size, r.retainedSize]).toEqual([
              g.firstEdge[r.node + 1] - g.firstEdge[r.node],
              incoming[r.node].length,
              g.selfSize[r.node],
              a.retainedSize[r.node],
            ]);
          }
        }
        const info = v.info(a, n);
        expect([info.outgoing, info.incoming]).toEqual([out.length, incoming[n].length]);
      }
      const index = new AddressIndex(g);
      for (let k = 0; k < 60; k++) {
        const n = Math.floor(rnd() * g.nodeCount);
        const roll = rnd();
        const x = roll < 0.4 ? g.address[n] : roll < 0.8 ? g.address[n] + BigInt(Math.floor(rnd() * 120)) : BigInt(Math.floor(rnd() * 2 ** 34));
        const want = naiveFind(g, x);
        expect(index.find(Number(x >> 32n), Number(x & 0xffffffffn)), `0x${x.toString(16)}`).toEqual(want);
        const hit = v.atAddress(a, '0x' + x.toString(16));
        expect(hit ? { node: hit.object.node, offset: hit.offset } : null).toEqual(want);
      }
      // the index holds every addressed heap object once, in address order
      const perm = index.index();
      let expected = 0;
      for (let n = 0; n < g.nodeCount; n++) if (!(g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) && g.address[n] !== 0n) expected++;
      expect(perm.length).toBe(expected);
      expect(new Set(perm).size).toBe(expected);
      for (let i = 1; i < perm.length; i++) expect(g.address[perm[i - 1]] <= g.address[perm[i]]).toBe(true);
    });
  }
});

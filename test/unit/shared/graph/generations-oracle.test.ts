import { describe, expect, it } from 'vitest';
import { computeGenerations } from '../../../../shared/graph/generations.js';
import { GEN_FROZEN, GEN_UNKNOWN, NODE_PSEUDO } from '../../../../shared/graph/heap-graph.js';
import type { HeapSegment } from '../../../../shared/graph/metadata.js';

/**
 * computeGenerations against the rule written out naively (issue 17: it now reuses the previous
 * node's segment before searching): random segments, overlapping and with equal starts, and
 * addresses in runs inside one segment, jumping between segments, below, between and above them.
 */

function oracle(address: BigUint64Array, segments: HeapSegment[], flags: Uint8Array): number[] {
  const segs = segments.filter((s) => s.end > s.start).map((s, k) => ({ s, k }));
  // sorted by start, equal starts in their given order (Array.prototype.sort is stable)
  segs.sort((a, b) => (a.s.start < b.s.start ? -1 : a.s.start > b.s.start ? 1 : 0));
  return Array.from(address, (a, i) => {
    if (a === 0n) return GEN_UNKNOWN;
    let last: HeapSegment | null = null;
    for (const { s } of segs) if (s.start <= a) last = s;
    if (!last || a >= last.end) return (flags[i] & NODE_PSEUDO) === 0 ? GEN_FROZEN : GEN_UNKNOWN;
    const bounds: [bigint, number][] = [
      [last.gen4End, 4],
      [last.gen3End, 3],
      [last.gen2End, 2],
      [last.gen1End, 1],
      [last.gen0End, 0],
    ];
    for (const [b, g] of bounds) if (a < b) return g;
    return GEN_UNKNOWN;
  });
}

function rng(seed: number): () => number {
  let s = Math.imul(seed, 0x9e3779b1) >>> 0 || 1; // spread small seeds: xorshift starts slowly
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

describe('computeGenerations: randomized against the naive rule', () => {
  it('gives the same generation for every node over 300 random heaps', () => {
    let checked = 0;
    let multi = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed);
      const int = (k: number) => Math.floor(r() * k);
      const segments: HeapSegment[] = [];
      const segCount = 1 + int(6);
      for (let k = 0; k < segCount; k++) {
        // starts on a coarse grid so equal starts and overlaps happen; the high word is used too
        const start = BigInt(int(8)) * 0x1000n + (r() < 0.3 ? 0x7f00_0000_0000n : 0n);
        const end = start + BigInt(int(0x3000)) - 0x100n;
        const cut = () => start + BigInt(int(0x3200)) - 0x100n;
        segments.push({ start, end, gen4End: cut(), gen3End: cut(), gen2End: cut(), gen1End: cut(), gen0End: cut() });
      }
      const n = 200;
      const address = new BigUint64Array(n);
      const flags = new Uint8Array(n);
      let a = 0n;
      for (let i = 0; i < n; i++) {
        const pick = r();
        if (pick < 0.05) a = 0n;
        else if (pick < 0.6 && a !== 0n) a += BigInt(8 * (1 + int(40))); // a run in address order
        else {
          const s = segments[int(segCount)];
          a = s.start + BigInt(int(0x3400)) - 0x200n; // near a segment: inside, before or past it
          if (a <= 0n) a = 8n;
        }
        address[i] = a;
        flags[i] = r() < 0.05 ? NODE_PSEUDO : 0;
      }
      const frozen = { nodeFlags: flags, nodeType: new Uint32Array(n), typeNames: ['App.Thing'] };
      expect(Array.from(computeGenerations(address, segments, undefined, frozen))).toEqual(oracle(address, segments, flags));
      checked += n;
      if (segCount > 1) multi++;
    }
    expect(checked).toBe(60_000);
    expect(multi).toBeGreaterThan(200); // most heaps have several segments
  });
});

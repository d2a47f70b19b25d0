import { describe, expect, it } from 'vitest';
import { DefinedAddressIndex } from '../../../../../shared/formats/nettrace/defined-address-index.js';
import { RecordChunks } from '../../../../../shared/formats/nettrace/record-chunks.js';
import { NEVER_CANCELLED } from '../../../../../shared/util/cancellation.js';
import { mulberry32 as rng } from '../../../../helpers/prng.js';

type Addr = [lo: number, hi: number];

/** Rows in the given order, in small chunks (several chunk boundaries), and the index over the first `rows`. */
function indexOf(addrs: Addr[], sparse = false, rows = addrs.length): DefinedAddressIndex {
  const store = new RecordChunks(2, 8, 4);
  for (let i = 0; i < addrs.length; i += 3) {
    const part = addrs.slice(i, i + 3);
    const ch = store.room(part.length);
    let w = store.wordAt;
    for (const [lo, hi] of part) {
      ch[w++] = lo;
      ch[w++] = hi;
    }
    store.commit(w);
  }
  const kept = addrs.slice(0, rows);
  let lowBits = 0;
  for (const [lo] of kept) lowBits |= lo & 7;
  const key = ([lo, hi]: Addr) => hi * 2 ** 32 + lo;
  const sorted = [...kept].sort((a, b) => key(a) - key(b));
  return DefinedAddressIndex.build(store, rows, lowBits, sorted[0] ?? [0, 0], sorted.at(-1) ?? [0, 0], NEVER_CANCELLED, sparse);
}

/** The naive answer: rank among the distinct addresses, ascending. */
function naiveRanks(addrs: Addr[]): Map<string, number> {
  const distinct = [...new Set(addrs.map(([lo, hi]) => hi * 2 ** 32 + lo))].sort((a, b) => a - b);
  return new Map(distinct.map((a, i) => [`${a}`, i]));
}

function addressesOf(x: DefinedAddressIndex, at = 2): number[] {
  const words = new Uint32Array(2 * (at + x.count)).fill(0xdead);
  x.writeAddresses(words, at, NEVER_CANCELLED);
  return Array.from({ length: x.count }, (_, i) => words[2 * (at + i) + 1] * 2 ** 32 + words[2 * (at + i)]);
}

describe('DefinedAddressIndex: rank among the distinct object addresses', () => {
  const H = 0x7f12;
  // Two runs out of order, the second interleaved with a third, one address twice.
  const rows: Addr[] = [
    [0x3000, H], [0x3040, H], [0x3080, H], // run at 0x3000
    [0x1000, H], [0x2000, H], [0x1040, H], [0x2040, H], // two runs interleaved
    [0x3040, H], // described twice
  ];

  it('ranks by ascending address whatever the arrival order, one rank per distinct address', () => {
    for (const sparse of [false, true]) {
      const x = indexOf(rows, sparse);
      expect(x.dense).toBe(!sparse);
      expect(x.count).toBe(7);
      expect(rows.map(([lo, hi]) => x.rank(lo, hi))).toEqual([4, 5, 6, 0, 2, 1, 3, 5]);
      expect(addressesOf(x)).toEqual([0x1000, 0x1040, 0x2000, 0x2040, 0x3000, 0x3040, 0x3080].map((a) => H * 2 ** 32 + a));
    }
  });

  it('says −1 for anything that is not an object address: stray, misaligned, 0, other 4 GiB window, out of range', () => {
    for (const sparse of [false, true]) {
      const x = indexOf(rows, sparse);
      expect([x.rank(0x1008, H), x.rank(0x1041, H), x.rank(0, 0), x.rank(0x1000, H + 1), x.rank(0x1000, H - 1), x.rank(0xfff8, H), x.rank(0x800, H)]).toEqual([-1, -1, -1, -1, -1, -1, -1]);
    }
  });

  it('indexes only the first `rows` rows (the node cap)', () => {
    const x = indexOf(rows, false, 4);
    expect(x.count).toBe(4);
    expect([x.rank(0x1000, H), x.rank(0x3000, H), x.rank(0x3080, H), x.rank(0x2000, H)]).toEqual([0, 1, 3, -1]);
  });

  it('gives every chunk of a compact heap a slot, empty ones included, with the same ranks', () => {
    // 4,000 objects in chunks 0 and 2 of the span (chunk 1, 512 KiB at 8-byte alignment, empty), two runs interleaved, some twice.
    const base = 0x5_0000_0000;
    const addrs: Addr[] = [];
    for (let i = 0; i < 2000; i++) {
      for (const a of [base + 16 * i, base + 0x10_0000 + 24 * i]) addrs.push([a % 2 ** 32, Math.floor(a / 2 ** 32)]);
      if (i % 97 === 0) addrs.push(addrs[i]);
    }
    const want = naiveRanks(addrs);
    const x = indexOf(addrs);
    expect({ dense: x.dense, count: x.count, slots: x.words.length / 4096, dir: Array.from(x.dir) }).toEqual({ dense: true, count: 4000, slots: 3, dir: [0, 1, 2] });
    expect(addrs.map(([lo, hi]) => x.rank(lo, hi))).toEqual(addrs.map(([lo, hi]) => want.get(`${hi * 2 ** 32 + lo}`)));
    expect([x.rank((base + 0x8_0000) % 2 ** 32, 5), x.rank((base + 8) % 2 ** 32, 5)]).toEqual([-1, -1]);
    expect(addressesOf(x)).toEqual([...want.keys()].map(Number));
  });

  it('equals the naive ranks on seeded random heaps: 32- and 64-bit, across 4 GiB boundaries, far apart, scattered', () => {
    let denseSeen = 0;
    let sparseSeen = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const r = rng(seed);
      const int = (n: number) => Math.floor(r() * n);
      const bits32 = seed % 4 === 0;
      const align = bits32 ? 4 : 8;
      const base = bits32 ? 0x100_0000 * (1 + int(200)) : 0x1_0000_0000 * (1 + int(0x7fff)) - 0x1000 * int(3);
      const spread = [64, 4096, 0x10_0000, bits32 ? 0x100_0000 : 2 ** 40][seed % 4];
      const n = 1 + int(400);
      const addrs: Addr[] = [];
      for (let i = 0; i < n; i++) {
        const a = base + align * int(spread / align) * (1 + int(3));
        addrs.push([a % 2 ** 32, Math.floor(a / 2 ** 32)]);
        if (r() < 0.05) addrs.push(addrs[int(addrs.length)]); // a duplicate
      }
      const want = naiveRanks(addrs);
      for (const sparse of [false, true]) {
        const x = indexOf(addrs, sparse);
        if (x.dense) denseSeen++;
        else sparseSeen++;
        expect({ seed, sparse, count: x.count }).toEqual({ seed, sparse, count: want.size });
        expect({ seed, sparse, ranks: addrs.map(([lo, hi]) => x.rank(lo, hi)) }).toEqual({ seed, sparse, ranks: addrs.map(([lo, hi]) => want.get(`${hi * 2 ** 32 + lo}`)) });
        expect({ seed, sparse, misses: addrs.map(([lo, hi]) => x.rank(lo + align / 2, hi)).filter((v) => v >= 0).length }).toEqual({ seed, sparse, misses: 0 });
        expect(addressesOf(x)).toEqual([...want.keys()].map(Number));
      }
    }
    // Both forms were really used (the dense one falls back to sparse for scattered objects).
    expect(denseSeen).toBeGreaterThan(20);
    expect(sparseSeen).toBeGreaterThan(45);
  });
});

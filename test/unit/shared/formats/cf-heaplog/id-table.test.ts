import { describe, expect, it } from 'vitest';
import { IdTable } from '../../../../../shared/formats/cf-heaplog/id-table.js';
import { completeHashKey, HASH_KEY_WORDS } from '../../../../../shared/util/keyed-hash.js';
import { cfColliding32, cfColliding64, seededHashKey, widenIds } from '../../../../helpers/adversarial-ids.js';

describe('IdTable', () => {
  it('maps 64-bit ids to ordinals through growth, matching a Map oracle', () => {
    const t = new IdTable(16);
    const oracle = new Map<string, number>();
    let a = 7;
    const next = (): number => (a = (Math.imul(a, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 50_000; i++) {
      // mostly aligned 32-bit ids, some with high bits, many repeats
      const lo = i % 3 === 0 ? (next() % 4096) * 8 : next();
      const hi = i % 5 === 0 ? next() & 0xffff : 0;
      const key = `${hi}:${lo}`;
      const want = oracle.get(key) ?? oracle.size;
      expect(t.getOrInsert(lo, hi, oracle.size)).toBe(want);
      oracle.set(key, want);
    }
    expect(t.size).toBe(oracle.size);
    for (const [key, v] of oracle) {
      const [hi, lo] = key.split(':').map(Number);
      expect(t.get(lo, hi)).toBe(v);
    }
    expect(t.get(1, 0xdeadbeef)).toBe(-1);
  });

  it('keeps id 0 and ordinal 0 apart from empty slots', () => {
    const t = new IdTable();
    expect(t.get(0, 0)).toBe(-1);
    expect(t.getOrInsert(0, 0, 0)).toBe(0);
    expect(t.get(0, 0)).toBe(0);
    expect(t.getOrInsert(0, 0, 1)).toBe(0);
  });
});

describe('IdTable against crafted ids (hash flooding, issue 13)', () => {
  // Ids that the table's old fixed hash put into one probe run: n of them cost ~n²/2 probes
  // (total probeStats 2e8 at n = 20K); keyed, the run lengths are those of random keys.
  const n = 20_000;
  const cases: [string, Uint32Array][] = [
    ['32-bit ids with old hashes 0 … n − 1', widenIds(cfColliding32(n))],
    ['64-bit ids with one old hash', cfColliding64(n)],
  ];
  for (const [name, ids] of cases) {
    it(`${name}: probes stay linear under random and seeded keys`, () => {
      for (const key of [undefined, seededHashKey(1), seededHashKey(2), seededHashKey(3)]) {
        const t = new IdTable(16, key);
        for (let i = 0; i < n; i++) expect(t.getOrInsert(ids[2 * i], ids[2 * i + 1], i)).toBe(i);
        for (let i = 0; i < n; i++) if (t.get(ids[2 * i], ids[2 * i + 1]) !== i) expect(t.get(ids[2 * i], ids[2 * i + 1])).toBe(i);
        expect(t.size).toBe(n);
        const s = t.probeStats();
        expect(s.total).toBeLessThanOrEqual(2 * n);
        expect(s.max).toBeLessThanOrEqual(200);
      }
    });
  }

  it('counts displacement exactly on a hand-made key', () => {
    // a key of zeros: every id hashes to 0 and the table is one run, 0 + 1 + … + 9
    const t = new IdTable(16, completeHashKey(new Int32Array(HASH_KEY_WORDS)));
    for (let i = 0; i < 10; i++) t.getOrInsert(8 * i, 0, i);
    expect(t.probeStats()).toEqual({ total: 45, max: 9 });
  });
});

import { describe, expect, it } from 'vitest';
import { IdTable } from '../../../../../shared/formats/cf-heaplog/id-table.js';

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

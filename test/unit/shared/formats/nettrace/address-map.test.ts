import { describe, expect, it } from 'vitest';
import { AddressMap } from '../../../../../shared/formats/nettrace/address-map.js';
import { cleanTypeName, hex, sizeBucket, sizeBucketSuffix } from '../../../../../shared/formats/nettrace/type-names.js';

describe('AddressMap', () => {
  it('gives dense ordinals in order of first sight, like a Map (seeded, through several growths)', () => {
    let s = 99;
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
    const m = new AddressMap(4);
    const oracle = new Map<string, number>();
    for (let i = 0; i < 50_000; i++) {
      // clustered 8-aligned addresses in a few "segments", plus 0 and values with the high bit set
      const hi = [0, 1, 0x7fff, 0xffffffff][Math.floor(rnd() * 4)];
      const lo = rnd() < 0.01 ? 0 : (Math.floor(rnd() * 20_000) * 8) >>> 0;
      const key = `${hi}:${lo}`;
      if (!oracle.has(key)) oracle.set(key, oracle.size);
      expect(m.intern(lo, hi)).toBe(oracle.get(key));
    }
    expect(m.size).toBe(oracle.size);
    expect(m.find(12345 * 8 + 1, 0)).toBe(-1);
    const keys = m.keysByOrdinal();
    for (const [key, id] of oracle) expect(`${keys[2 * id + 1]}:${keys[2 * id]}`).toBe(key);
  });
});

describe('dotnet-gcdump type names (nettrace-format.md §C4)', () => {
  it('cleans generic arity and brackets', () => {
    expect(cleanTypeName('System.Collections.Generic.Dictionary`2[System.String,System.Object]')).toBe('System.Collections.Generic.Dictionary<System.String,System.Object>');
    expect(cleanTypeName('System.String[]')).toBe('System.String[]');
    expect(cleanTypeName('List`1[System.Int32][]')).toBe('List<System.Int32>[]');
    expect(cleanTypeName('System.Int32[,]')).toBe('System.Int32<,>');
  });

  it('buckets sizes strictly above 1000 bytes', () => {
    const sizes = [1000, 1001, 9999, 10_000, 99_999, 100_000, 999_999, 1_000_000, 9_999_999, 10_000_000, 100_000_000];
    expect(sizes.map(sizeBucketSuffix)).toEqual([
      '',
      ' (Bytes > 1K)',
      ' (Bytes > 1K)',
      ' (Bytes > 10K)',
      ' (Bytes > 10K)',
      ' (Bytes > 100K)',
      ' (Bytes > 100K)',
      ' (Bytes > 1M)',
      ' (Bytes > 1M)',
      ' (Bytes > 10M)',
      ' (Bytes > 100M)',
    ]);
    expect(sizes.map(sizeBucket)).toEqual([0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6]);
  });

  it('prints hex like "%x"', () => {
    expect(hex(0x20000ab)).toBe('20000ab');
    expect(hex(0x1000, 0x7ff0)).toBe('7ff000001000');
  });
});

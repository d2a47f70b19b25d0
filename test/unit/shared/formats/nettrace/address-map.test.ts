import { describe, expect, it } from 'vitest';
import { AddressMap } from '../../../../../shared/formats/nettrace/address-map.js';
import { completeHashKey, HASH_KEY_WORDS } from '../../../../../shared/util/keyed-hash.js';
import { addressColliding, seededHashKey } from '../../../../helpers/adversarial-ids.js';
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

describe('AddressMap against crafted addresses (hash flooding, issue 13)', () => {
  it('keeps probes linear for addresses that shared one old hash, ordinals by first sight whatever the key', () => {
    // 8-aligned addresses whose old fixed hash was one value: n of them cost ~n²/2 probes (2e8 at 20K)
    const n = 20_000;
    const a = addressColliding(n);
    let keys: Uint32Array | null = null;
    for (const key of [undefined, seededHashKey(1), seededHashKey(2)]) {
      const m = new AddressMap(4, key);
      for (let i = 0; i < n; i++) expect(m.intern(a[2 * i], a[2 * i + 1])).toBe(i);
      for (let i = 0; i < n; i++) if (m.find(a[2 * i], a[2 * i + 1]) !== i) expect(m.find(a[2 * i], a[2 * i + 1])).toBe(i);
      expect(m.find(a[0] + 8, a[1])).toBe(-1);
      const s = m.probeStats();
      expect(s.total).toBeLessThanOrEqual(2 * n);
      expect(s.max).toBeLessThanOrEqual(200);
      // the same keys by ordinal under every hash key
      const k = m.keysByOrdinal();
      expect(Array.from(k)).toEqual(Array.from(keys ?? k));
      keys = k;
    }
    expect(Array.from(keys!)).toEqual(Array.from(a));
  });

  it('counts displacement exactly on a hand-made key', () => {
    // a key of zeros: every address hashes to 0 and the map is one run, 0 + 1 + … + 5
    const m = new AddressMap(4, completeHashKey(new Int32Array(HASH_KEY_WORDS)));
    for (let i = 0; i < 6; i++) m.intern(8 * i, 1);
    expect(m.probeStats()).toEqual({ total: 15, max: 5 });
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

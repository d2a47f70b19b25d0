import { describe, expect, it } from 'vitest';
import { completeHashKey, HASH_KEY_WORDS, keyedHash, randomHashKey } from '../../../../shared/util/keyed-hash.js';

/** A key whose table b holds `word(b)` at `at(b)` and zero elsewhere. */
function sparseKey(entries: [number, number][]): Int32Array {
  const key = new Int32Array(HASH_KEY_WORDS);
  for (const [at, word] of entries) key[at] = word;
  return completeHashKey(key);
}

describe('keyedHash (simple tabulation)', () => {
  it('XORs the word each byte of the id picks from its own table', () => {
    // id 0x08070605_04030201: byte b (from the low end) is b + 1 and picks table b's word b + 1
    const key = sparseKey([
      [0 * 256 + 1, 0x10],
      [1 * 256 + 2, 0x200],
      [2 * 256 + 3, 0x3000],
      [3 * 256 + 4, 0x40000],
      [4 * 256 + 5, 0x500000],
      [5 * 256 + 6, 0x6000000],
      [6 * 256 + 7, 0x70000000],
      [7 * 256 + 8, 0x80000000 | 0],
    ]);
    expect(keyedHash(key, 0x04030201, 0x08070605) >>> 0).toBe(0xf6543210);
    // one byte different: that table's word is 0 there
    expect(keyedHash(key, 0x04030202, 0x08070605) >>> 0).toBe(0xf6543200);
    expect(keyedHash(key, 0x04030201, 0x09070605) >>> 0).toBe(0x76543210);
    // the same byte in another position picks another table
    expect(keyedHash(key, 0x01030201, 0x08070605) >>> 0).toBe(0xf6503210);
    // lo given as a uint32 above 2^31 or as its int32 twin: the same hash
    expect(keyedHash(key, 0x84030201, 0)).toBe(keyedHash(key, 0x84030201 | 0, 0));
  });

  it('takes the precomputed word for a zero high half, equal to the four zero-byte words', () => {
    const key = sparseKey([
      [4 * 256, 0x1],
      [5 * 256, 0x20],
      [6 * 256, 0x300],
      [7 * 256, 0x4000],
      [0 * 256 + 0xff, 0x50000],
    ]);
    expect(key[2048]).toBe(0x4321);
    expect(keyedHash(key, 0xff, 0)).toBe(0x54321);
    // a nonzero high half whose bytes are zero but one: the long way
    expect(keyedHash(key, 0xff, 0x100)).toBe(0x50000 ^ 0x1 ^ 0x300 ^ 0x4000);
  });

  it('gives each random key its own tables (whose last word is the zero-high one)', () => {
    const a = randomHashKey();
    const b = randomHashKey();
    expect(a.length).toBe(HASH_KEY_WORDS);
    expect(a[2048]).toBe(a[1024] ^ a[1280] ^ a[1536] ^ a[1792]);
    // 2049 random words equal by chance: probability 2^-65568
    expect(Array.from(a)).not.toEqual(Array.from(b));
    expect(() => completeHashKey(new Int32Array(16))).toThrow(/2049 words/);
  });
});

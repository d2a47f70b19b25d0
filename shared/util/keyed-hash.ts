/**
 * A keyed hash of 64-bit ids (two 32-bit halves) for the readers' open-addressing id tables,
 * so that ids crafted in a file cannot all land in one probe run (hash flooding, issue 13).
 *
 * The tables used fixed multiply-xor mixes, which are bijections on 32 bits: inverting them gives
 * any number of ids with one and the same hash (test/helpers/adversarial-ids.ts), and n such ids
 * cost ~n²/2 probes (issue 13's 320K-object CF log). A fixed mix cannot be
 * repaired by making it stronger, as the attacker can read the code; the hash must depend on a
 * key the file's author cannot know.
 *
 * Simple tabulation hashing: the key is 8 tables of 256 random words, one per byte of the id,
 * and the hash is the XOR of the 8 words the id's bytes pick. With random tables, linear probing
 * takes O(1) expected probes per operation for ANY fixed set of keys (Pătraşcu and Thorup, "The
 * Power of Simple Tabulation Hashing", 2011), i.e. whatever ids the file holds, as long as the
 * tables are unknown to its author; every bit of the result is equally good, so a table may take
 * its top bits or its low bits. A key is made per table from crypto.getRandomValues (a web
 * standard: Node, Electron's workers and browsers all have it; Math.random only where it is
 * missing). Cost: 8 loads from an 8 KiB array that stays in L1, against 2 multiplies for the old
 * mix; ids with a zero high half (32-bit devices, most heaps' low 4 GiB) take 4 loads and one
 * precomputed word.
 *
 * Results must not depend on the key: every table that uses this numbers its entries by order of
 * insertion or by record, never by slot, and what is handed out in slot order is renumbered
 * before anyone sees it (the CF reader's dangling ids; see IdTable, AddressMap).
 */

/** Words in a key: 8 × 256 table words, then the XOR of the four high-half words of a zero high half. */
export const HASH_KEY_WORDS = 8 * 256 + 1;

interface RandomSource {
  getRandomValues(a: Int32Array): Int32Array;
}

/** A fresh random key. */
export function randomHashKey(): Int32Array {
  const key = new Int32Array(HASH_KEY_WORDS);
  const crypto = (globalThis as { crypto?: RandomSource }).crypto;
  if (crypto && typeof crypto.getRandomValues === 'function') crypto.getRandomValues(key);
  else for (let i = 0; i < key.length; i++) key[i] = (Math.random() * 4294967296) | 0;
  return completeHashKey(key);
}

/** Set a key's last word from its tables (for keys made elsewhere, e.g. a test's seeded ones). */
export function completeHashKey(key: Int32Array): Int32Array {
  if (key.length !== HASH_KEY_WORDS) throw new Error(`a hash key has ${HASH_KEY_WORDS} words, not ${key.length}`);
  key[2048] = key[1024] ^ key[1280] ^ key[1536] ^ key[1792];
  return key;
}

/** The 32-bit hash of (lo, hi) under `key`, as an int32 (take bits with `>>>` or `&`). */
export function keyedHash(key: Int32Array, lo: number, hi: number): number {
  const l = key[lo & 255] ^ key[256 | ((lo >>> 8) & 255)] ^ key[512 | ((lo >>> 16) & 255)] ^ key[768 | (lo >>> 24)];
  if (hi === 0) return l ^ key[2048];
  return l ^ key[1024 | (hi & 255)] ^ key[1280 | ((hi >>> 8) & 255)] ^ key[1536 | ((hi >>> 16) & 255)] ^ key[1792 | (hi >>> 24)];
}

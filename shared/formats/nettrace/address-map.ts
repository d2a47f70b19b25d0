import { keyedHash, randomHashKey } from '../../util/keyed-hash.js';

/**
 * 64-bit address → dense ordinal (0, 1, 2, … in order of first sight), by open addressing.
 *
 * Used for the root-side addresses of a heap dump (roots, dependent handles, statics, CCWs,
 * RCWs: they get an id the moment their event arrives), for addresses no object has, for type
 * ids, and for small lookups. Objects and references (millions) are not looked up here:
 * DefinedAddressIndex ranks them, because a probe into a table of millions of addresses is a
 * cache miss each. Each slot holds the key and its value inline — `[lo, hi, ordinal + 1]` in one
 * Uint32Array (0 = empty) — so a lookup costs one memory access. Linear probing, load factor
 * ≤ 0.7: 12 bytes per slot; no object and no BigInt per address. The hash is keyed
 * (keyed-hash.ts), each map with its own random key, low bits for the home slot: the addresses
 * come from the file, and with the fixed mix used before, crafted BulkNode addresses shared one
 * probe run (issue 13: quadratic in their number). Ordinals are by first sight, so never depend on the key.
 *
 * Keys are not kept by ordinal; `keysByOrdinal()` rebuilds that column once when needed.
 */
export class AddressMap {
  private table: Uint32Array;
  private mask: number;
  private limit: number;
  private count = 0;
  private readonly key: Int32Array;

  /** `key`: a hash key (keyed-hash.ts) for tests that need a fixed one; a fresh random one by default. */
  constructor(expected = 1024, key: Int32Array = randomHashKey()) {
    this.key = key;
    let cap = 16;
    while (cap * 0.7 < expected) cap *= 2;
    this.table = new Uint32Array(cap * 3);
    this.mask = cap - 1;
    this.limit = Math.floor(cap * 0.7);
  }

  get size(): number {
    return this.count;
  }

  /** The ordinal of (lo, hi), adding it when new. */
  intern(lo: number, hi: number): number {
    lo >>>= 0;
    hi >>>= 0;
    const t = this.table;
    const mask = this.mask;
    let h = keyedHash(this.key, lo, hi) & mask;
    for (;;) {
      const at = 3 * h;
      const v = t[at + 2];
      if (v === 0) {
        t[at] = lo;
        t[at + 1] = hi;
        t[at + 2] = ++this.count;
        if (this.count > this.limit) this.grow();
        return this.count - 1;
      }
      if (t[at] === lo && t[at + 1] === hi) return v - 1;
      h = (h + 1) & mask;
    }
  }

  /** The ordinal of (lo, hi), or -1. */
  find(lo: number, hi: number): number {
    lo >>>= 0;
    hi >>>= 0;
    const t = this.table;
    const mask = this.mask;
    let h = keyedHash(this.key, lo, hi) & mask;
    for (;;) {
      const at = 3 * h;
      const v = t[at + 2];
      if (v === 0) return -1;
      if (t[at] === lo && t[at + 1] === hi) return v - 1;
      h = (h + 1) & mask;
    }
  }

  /** Every key by ordinal, interleaved (lo, hi): one pass over the table, 8 bytes per ordinal. */
  keysByOrdinal(): Uint32Array {
    const out = new Uint32Array(2 * this.count);
    const t = this.table;
    for (let at = 0; at < t.length; at += 3) {
      const v = t[at + 2];
      if (v === 0) continue;
      out[2 * (v - 1)] = t[at];
      out[2 * (v - 1) + 1] = t[at + 1];
    }
    return out;
  }

  /**
   * How far stored addresses sit from their home slots: `total` is the probes beyond the first
   * that finding every stored address once costs (what interning them cost, growth aside), `max` the
   * longest. One pass over the slots, for tests: crafted addresses must keep `total` linear.
   */
  probeStats(): { total: number; max: number } {
    const t = this.table;
    const mask = this.mask;
    let total = 0;
    let max = 0;
    for (let i = 0; i <= mask; i++) {
      if (t[3 * i + 2] === 0) continue;
      const d = (i - keyedHash(this.key, t[3 * i], t[3 * i + 1])) & mask;
      total += d;
      if (d > max) max = d;
    }
    return { total, max };
  }

  private grow(): void {
    const old = this.table;
    const cap = (this.mask + 1) * 2;
    const t = new Uint32Array(cap * 3);
    const mask = cap - 1;
    for (let at = 0; at < old.length; at += 3) {
      if (old[at + 2] === 0) continue;
      let h = keyedHash(this.key, old[at], old[at + 1]) & mask;
      while (t[3 * h + 2] !== 0) h = (h + 1) & mask;
      t[3 * h] = old[at];
      t[3 * h + 1] = old[at + 1];
      t[3 * h + 2] = old[at + 2];
    }
    this.table = t;
    this.mask = mask;
    this.limit = Math.floor(cap * 0.7);
  }
}

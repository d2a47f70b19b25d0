/**
 * 64-bit address → dense ordinal (0, 1, 2, … in order of first sight), by open addressing.
 *
 * Used for the root-side addresses of a heap dump (roots, dependent handles, statics, CCWs,
 * RCWs: they get an id the moment their event arrives), for addresses no object has, for type
 * ids, and for small lookups. Objects and references (millions) are not looked up here:
 * DefinedAddressIndex ranks them, because a probe into a table of millions of addresses is a
 * cache miss each. Each slot holds the key and its value inline — `[lo, hi, ordinal + 1]` in one
 * Uint32Array (0 = empty) — so a lookup costs one memory access. Linear probing, load factor
 * ≤ 0.7: 12 bytes per slot; no object and no BigInt per address. The hash mixes both halves
 * (object addresses are 8-aligned, so the low bits alone would collide).
 *
 * Keys are not kept by ordinal; `keysByOrdinal()` rebuilds that column once when needed.
 */
export class AddressMap {
  private table: Uint32Array;
  private mask: number;
  private limit: number;
  private count = 0;

  constructor(expected = 1024) {
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
    let h = hash(lo, hi) & mask;
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
    let h = hash(lo, hi) & mask;
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

  private grow(): void {
    const old = this.table;
    const cap = (this.mask + 1) * 2;
    const t = new Uint32Array(cap * 3);
    const mask = cap - 1;
    for (let at = 0; at < old.length; at += 3) {
      if (old[at + 2] === 0) continue;
      let h = hash(old[at], old[at + 1]) & mask;
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

function hash(lo: number, hi: number): number {
  let h = Math.imul(lo ^ (lo >>> 16), 0x45d9f3b) ^ Math.imul(hi, 0x27d4eb2d);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  return (h ^ (h >>> 13)) >>> 0;
}

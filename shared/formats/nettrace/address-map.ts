import { GrowableUint32Array } from '../../util/growable-array.js';

/**
 * 64-bit address → dense ordinal (0, 1, 2, … in order of first sight), by open addressing.
 *
 * Used for object addresses (millions) and type ids (thousands). Keys live once, in
 * ordinal-indexed `lo`/`hi` columns; the table itself holds only `ordinal + 1` (0 = empty slot),
 * so the cost is 8 bytes of key per ordinal plus 4 bytes per slot at a load factor ≤ 0.5:
 * ~16 bytes per address, no object and no BigInt per address. Linear probing with a
 * multiplicative hash of both halves (object addresses are 8-aligned, so the low bits alone
 * would collide).
 */
export class AddressMap {
  private slots: Int32Array;
  private mask: number;
  readonly lo: GrowableUint32Array;
  readonly hi: GrowableUint32Array;
  private count = 0;

  constructor(expected = 1024) {
    let cap = 16;
    while (cap < expected * 2) cap *= 2;
    this.slots = new Int32Array(cap);
    this.mask = cap - 1;
    this.lo = new GrowableUint32Array(expected);
    this.hi = new GrowableUint32Array(expected);
  }

  get size(): number {
    return this.count;
  }

  /** The ordinal of (lo, hi), adding it when new. */
  intern(lo: number, hi: number): number {
    lo >>>= 0;
    hi >>>= 0;
    const slots = this.slots;
    const keysLo = this.lo.raw;
    const keysHi = this.hi.raw;
    let h = hash(lo, hi) & this.mask;
    for (;;) {
      const s = slots[h];
      if (s === 0) break;
      const k = s - 1;
      if (keysLo[k] === lo && keysHi[k] === hi) return k;
      h = (h + 1) & this.mask;
    }
    const id = this.count++;
    this.lo.push(lo);
    this.hi.push(hi);
    slots[h] = id + 1;
    if (this.count * 2 > slots.length) this.grow();
    return id;
  }

  /** The ordinal of (lo, hi), or -1. */
  find(lo: number, hi: number): number {
    lo >>>= 0;
    hi >>>= 0;
    const slots = this.slots;
    const keysLo = this.lo.raw;
    const keysHi = this.hi.raw;
    let h = hash(lo, hi) & this.mask;
    for (;;) {
      const s = slots[h];
      if (s === 0) return -1;
      const k = s - 1;
      if (keysLo[k] === lo && keysHi[k] === hi) return k;
      h = (h + 1) & this.mask;
    }
  }

  /** Drop the table (keys stay readable): call once lookups are over to free its memory. */
  releaseTable(): void {
    this.slots = new Int32Array(16);
    this.mask = 15;
  }

  private grow(): void {
    const old = this.slots;
    const cap = old.length * 2;
    const slots = new Int32Array(cap);
    const mask = cap - 1;
    const keysLo = this.lo.raw;
    const keysHi = this.hi.raw;
    for (let i = 0; i < old.length; i++) {
      const s = old[i];
      if (s === 0) continue;
      let h = hash(keysLo[s - 1], keysHi[s - 1]) & mask;
      while (slots[h] !== 0) h = (h + 1) & mask;
      slots[h] = s;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

function hash(lo: number, hi: number): number {
  let h = Math.imul(lo ^ (lo >>> 16), 0x45d9f3b) ^ Math.imul(hi, 0x27d4eb2d);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  return (h ^ (h >>> 13)) >>> 0;
}

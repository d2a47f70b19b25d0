import { keyedHash, randomHashKey } from '../../util/keyed-hash.js';

/**
 * Open-addressing hash from a 64-bit id (two 32-bit halves) to a node or type ordinal.
 *
 * Heap-log ids are arbitrary hex numbers (32-bit on devices, but nothing stops 64), so they cannot
 * index an array directly, and a `Map` would cost an entry object per heap object. Slots are
 * interleaved `[lo, hi, ordinal + 1]` triples in one Uint32Array, so a probe touches one cache
 * line instead of three (the reader sorts object ids by home slot first, id-resolution.ts, so
 * bulk lookups sweep the table instead of missing the cache on every probe).
 * 12 bytes per slot, doubling at 70% load: 5M ids take 8M slots = 96 MB, freed when the reader
 * finishes. A stored 0 marks an empty slot, so fresh arrays need no fill.
 *
 * Hash: keyed (keyed-hash.ts), each table with its own random key, top bits for the home slot.
 * The ids come from the file, and a fixed hash let crafted ids share one probe run (issue 13:
 * quadratic in their number). Ordinals never depend on the key: the caller chooses them (record
 * index, or the next fresh one); fresh ones, handed out in bucket order (so key order), are
 * renumbered by first reference (section-layout.ts, renumberDangling) before anything sees them.
 */
export class IdTable {
  private slots: Uint32Array;
  private shift: number;
  private mask: number;
  private used = 0;
  private limit: number;
  private readonly key: Int32Array;

  /** `key`: a hash key (keyed-hash.ts) for tests that need a fixed one; a fresh random one by default. */
  constructor(initialCapacity = 1 << 16, key: Int32Array = randomHashKey()) {
    this.key = key;
    let bits = 4;
    while (1 << bits < initialCapacity && bits < 30) bits++;
    const cap = 1 << bits;
    this.slots = new Uint32Array(cap * 3);
    this.shift = 32 - bits;
    this.mask = cap - 1;
    this.limit = Math.floor(cap * 0.7);
  }

  get size(): number {
    return this.used;
  }

  /** The 32-bit hash of an id in this table; its top bits pick the home slot (id-resolution.ts sorts by them). */
  hash(lo: number, hi: number): number {
    return keyedHash(this.key, lo, hi) >>> 0;
  }

  /** The ordinal stored for the id, or -1. */
  get(lo: number, hi: number): number {
    const slots = this.slots;
    const mask = this.mask;
    let i = keyedHash(this.key, lo, hi) >>> this.shift;
    for (;;) {
      const at = i * 3;
      const v = slots[at + 2];
      if (v === 0) return -1;
      if (slots[at] === lo && slots[at + 1] === hi) return v - 1;
      i = (i + 1) & mask;
    }
  }

  /**
   * The ordinal stored for the id; when absent, store `fresh` and return it (the caller tells a new
   * id by the result being `fresh`).
   */
  getOrInsert(lo: number, hi: number, fresh: number): number {
    const slots = this.slots;
    const mask = this.mask;
    let i = keyedHash(this.key, lo, hi) >>> this.shift;
    let at = i * 3;
    for (;;) {
      const v = slots[at + 2];
      if (v === 0) break;
      if (slots[at] === lo && slots[at + 1] === hi) return v - 1;
      i = (i + 1) & mask;
      at = i * 3;
    }
    slots[at] = lo;
    slots[at + 1] = hi;
    slots[at + 2] = fresh + 1;
    if (++this.used > this.limit) this.grow();
    return fresh;
  }

  /** Replace every stored ordinal v by map[v] (renumbering after duplicates were dropped). */
  remapValues(map: Uint32Array): void {
    const slots = this.slots;
    for (let at = 2; at < slots.length; at += 3) {
      const v = slots[at];
      if (v !== 0) slots[at] = map[v - 1] + 1;
    }
  }

  /**
   * How far stored ids sit from their home slots: `total` is the probes beyond the first that
   * looking up every stored id once costs (what entering them cost, growth aside), `max` the longest.
   * One pass over the slots, for tests: crafted ids must keep `total` linear in the ids.
   */
  probeStats(): { total: number; max: number } {
    const slots = this.slots;
    const mask = this.mask;
    let total = 0;
    let max = 0;
    for (let i = 0; i <= mask; i++) {
      if (slots[i * 3 + 2] === 0) continue;
      const d = (i - (keyedHash(this.key, slots[i * 3], slots[i * 3 + 1]) >>> this.shift)) & mask;
      total += d;
      if (d > max) max = d;
    }
    return { total, max };
  }

  private grow(): void {
    const old = this.slots;
    const cap = ((this.mask + 1) * 2) >>> 0;
    const slots = new Uint32Array(cap * 3);
    const shift = this.shift - 1;
    const mask = cap - 1;
    for (let j = 0; j < old.length; j += 3) {
      const v = old[j + 2];
      if (v === 0) continue;
      const lo = old[j];
      const hi = old[j + 1];
      let i = keyedHash(this.key, lo, hi) >>> shift;
      while (slots[i * 3 + 2] !== 0) i = (i + 1) & mask;
      slots[i * 3] = lo;
      slots[i * 3 + 1] = hi;
      slots[i * 3 + 2] = v;
    }
    this.slots = slots;
    this.shift = shift;
    this.mask = mask;
    this.limit = Math.floor(cap * 0.7);
  }
}

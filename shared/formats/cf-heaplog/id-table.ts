/**
 * Open-addressing hash from a 64-bit id (two 32-bit halves) to a node or type ordinal.
 *
 * Heap-log ids are arbitrary hex numbers (32-bit on devices, but nothing stops 64), so they cannot
 * index an array directly, and a `Map` would cost an entry object per heap object. Three parallel
 * typed arrays with linear probing cost 12 bytes per slot; the table doubles at 70% load, so 5M ids
 * take 8M slots = 96 MB, freed when the reader finishes. Slot values are `ordinal + 1`; 0 marks an
 * empty slot, so fresh arrays need no fill.
 *
 * Hash: Fibonacci hashing of `lo ^ mix(hi)` taking the top bits, which spreads sequential and
 * aligned ids (the common shapes) evenly.
 */
export class IdTable {
  private keyLo: Uint32Array;
  private keyHi: Uint32Array;
  private slot: Uint32Array;
  private shift: number;
  private mask: number;
  private used = 0;
  private limit: number;

  constructor(initialCapacity = 1 << 16) {
    let bits = 4;
    while (1 << bits < initialCapacity && bits < 30) bits++;
    const cap = 1 << bits;
    this.keyLo = new Uint32Array(cap);
    this.keyHi = new Uint32Array(cap);
    this.slot = new Uint32Array(cap);
    this.shift = 32 - bits;
    this.mask = cap - 1;
    this.limit = Math.floor(cap * 0.7);
  }

  get size(): number {
    return this.used;
  }

  /** The ordinal stored for the id, or -1. */
  get(lo: number, hi: number): number {
    const keyLo = this.keyLo;
    const keyHi = this.keyHi;
    const slot = this.slot;
    const mask = this.mask;
    let i = Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> this.shift;
    for (;;) {
      const v = slot[i];
      if (v === 0) return -1;
      if (keyLo[i] === lo && keyHi[i] === hi) return v - 1;
      i = (i + 1) & mask;
    }
  }

  /**
   * The ordinal stored for the id; when absent, store `fresh` and return it (the caller tells a new
   * id by the result being `fresh`).
   */
  getOrInsert(lo: number, hi: number, fresh: number): number {
    const keyLo = this.keyLo;
    const keyHi = this.keyHi;
    const slot = this.slot;
    const mask = this.mask;
    let i = Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> this.shift;
    for (;;) {
      const v = slot[i];
      if (v === 0) break;
      if (keyLo[i] === lo && keyHi[i] === hi) return v - 1;
      i = (i + 1) & mask;
    }
    keyLo[i] = lo;
    keyHi[i] = hi;
    slot[i] = fresh + 1;
    if (++this.used > this.limit) this.grow();
    return fresh;
  }

  private grow(): void {
    const oldLo = this.keyLo;
    const oldHi = this.keyHi;
    const oldSlot = this.slot;
    const cap = oldSlot.length * 2;
    const keyLo = new Uint32Array(cap);
    const keyHi = new Uint32Array(cap);
    const slot = new Uint32Array(cap);
    const shift = this.shift - 1;
    const mask = cap - 1;
    for (let j = 0; j < oldSlot.length; j++) {
      const v = oldSlot[j];
      if (v === 0) continue;
      const lo = oldLo[j];
      const hi = oldHi[j];
      let i = Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> shift;
      while (slot[i] !== 0) i = (i + 1) & mask;
      keyLo[i] = lo;
      keyHi[i] = hi;
      slot[i] = v;
    }
    this.keyLo = keyLo;
    this.keyHi = keyHi;
    this.slot = slot;
    this.shift = shift;
    this.mask = mask;
    this.limit = Math.floor(cap * 0.7);
  }
}

import { FormatError } from '../../errors.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { GrowableUint32Array } from '../../util/growable-array.js';

/**
 * dotnet-gcdump's `nodeFor(address)` over a whole heap walk at once: every address in a "touch
 * sequence" (each object's own address, then its references, in queue order; see
 * touch-sequence.ts) gets a node index in order of first appearance, without one random hash
 * probe per reference.
 *
 * Why: a 10M-object heap has ~35M touches; a hash table over 10M addresses is hundreds of MB, so
 * each probe is a cache and TLB miss whose branch on the loaded value also stops the CPU from
 * overlapping misses (~120 ns each, measured). Instead (a radix-partitioned hash join):
 *
 * 1. count / place (the walks in touch-sequence.ts): every touch `(address, position)` goes to
 *    one of up to 2,048 partitions: sequential reads, one write stream per partition. "Early"
 *    addresses (roots, statics, … already numbered, or merely known) go first.
 * 2. `resolve`: per partition, a table small enough for L2 gives each distinct address a dense
 *    id and keeps the smallest position it was touched at (its first touch).
 * 3. A bitmap over positions marks first touches; `number` visits them in order, so the node
 *    index of an id is `base` + the number of first touches before its own, i.e. exactly the
 *    order of `nodeFor`.
 * 4. `translate`: each touch's node index is written at its position.
 *
 * Most addresses are objects' (aligned, within the objects' address range): they are stored as a
 * 32-bit key `(address − min) >> alignment` ("narrow", 8 bytes per touch). Others (null, stray
 * references, roots far away, or every address when the range is too wide) are "wide" (lo, hi;
 * 12 bytes, hashed). An address is narrow or wide by its value alone, so the two never share an
 * id. When the objects' keys are dense (their range at most 2^17 keys per partition, i.e. up to
 * ~2 GB of heap at 8-byte alignment for 35M touches), narrow keys are partitioned by range and
 * each partition's table is direct-mapped (`rangeBits`): no hashing, no probing, no key
 * comparison; resolve took 2.2–2.8× less time than with the hash tables (4M objects, measured).
 * Otherwise partitions and slots come from a Fibonacci hash of the key.
 * Memory: 8–12 bytes per touch (freed or reused after `translate`), 4 per touch for the result,
 * 8–12 per distinct address, 1 bit per touch, and a table of ≤ 512 KB.
 */
export interface KeySpace {
  baseLo: number;
  baseHi: number;
  /** Keys drop this many always-zero low bits (0–3). */
  shift: number;
  /** The objects' largest key, when known: dense keys are then partitioned by range (see FirstTouchNumbering). */
  maxKey?: number;
}

/**
 * A key space covering addresses from (minLo, minHi) with the alignment of `lowBits`, or null
 * when the addresses are too large for exact arithmetic. (maxLo, maxHi): the objects' highest address.
 */
export function keySpaceFrom(minLo: number, minHi: number, lowBits: number, maxLo?: number, maxHi?: number): KeySpace | null {
  if (minHi >= 0x100000) return null; // base + 2^35 must stay below 2^53 (exact as a double)
  const shift = lowBits & 1 ? 0 : lowBits & 2 ? 1 : lowBits & 4 ? 2 : 3;
  const space: KeySpace = { baseLo: minLo, baseHi: minHi, shift };
  if (maxLo !== undefined && maxHi !== undefined) {
    const maxKey = narrowKey(maxLo, maxHi, minLo, minHi, shift);
    if (maxKey >= 0) space.maxKey = maxKey;
  }
  return space;
}

/** Largest range of keys per partition for range partitioning: its direct-mapped table (4 bytes a key) stays in L2. */
const MAX_RANGE_BITS = 17;

const NONE = 0xffffffff;
const EMPTY = new Uint32Array(0);
/** Fibonacci hashing multiplier (2^32 / golden ratio) for narrow keys. */
export const FIB = 0x9e3779b1;

export class FirstTouchNumbering {
  readonly partitionBits: number;
  /** Items per partition at [partition + 1] while counting; partition starts after `allocate`. */
  readonly narrowCounts: Uint32Array;
  readonly wideCounts: Uint32Array;
  private buffer = new Uint32Array(0);
  private narrow = new Uint32Array(0); // key, tag; the key becomes the id
  private wide = new Uint32Array(0); // lo, hi, tag; lo becomes the id
  private narrowIds = 0;
  private ids = 0;
  /** Smallest position per id, then (after `number`) its node index. */
  private first = new Uint32Array(0);
  private idKey = new Uint32Array(0); // narrow ids
  private wideLo = new GrowableUint32Array(16);
  private wideHi = new GrowableUint32Array(16);
  private bits = new Int32Array(0);
  private prefix = new Uint32Array(1);
  /** Scratch of `number` (4 bytes per touch), then the result of `translate`. */
  private positions = EMPTY;
  /** Id of each early address. */
  readonly earlyId: Uint32Array;
  /**
   * Range partitioning (≥ 0): narrow keys below `keyLimit` go to partition key >>> rangeBits,
   * and a partition's table is direct-mapped (slot = low rangeBits bits: no hash, no probing,
   * no key comparison). Used when the objects' keys are dense enough that 2^rangeBits slots per
   * partition fit in L2; keys above the objects' range (stray references) are then "wide".
   * −1: partitions and slots by a Fibonacci hash of the key (any key space).
   */
  readonly rangeBits: number = -1;
  /** Narrow keys are below this (2^32: every 32-bit key). */
  readonly keyLimit: number = 2 ** 32;

  /** `sequenceLength` touches and `earlyCount` early addresses will be counted and placed. */
  constructor(
    readonly sequenceLength: number,
    readonly earlyCount: number,
    readonly space: KeySpace | null,
    private readonly expectedIds: number,
  ) {
    const total = sequenceLength + earlyCount;
    if (total >= 0x7fffffff) throw new FormatError('format/too-large', `a heap walk of ${total} objects and references is more than this reader handles (2^31)`);
    let bits = 0;
    while (bits < 11 && total >>> bits > 8192) bits++;
    this.partitionBits = bits;
    if (space?.maxKey !== undefined) {
      const keyBits = 32 - Math.clz32(space.maxKey);
      const rangeBits = Math.max(4, keyBits - bits);
      if (rangeBits <= MAX_RANGE_BITS) {
        this.rangeBits = rangeBits;
        this.keyLimit = 2 ** (rangeBits + bits);
      }
    }
    this.narrowCounts = new Uint32Array((1 << bits) + 1);
    this.wideCounts = new Uint32Array((1 << bits) + 1);
    this.earlyId = new Uint32Array(earlyCount);
  }

  /**
   * Between counting and placing. The items get one buffer of at least `spareWords` words; after
   * `translate` it is handed out again by `spare()`: fresh memory costs a page fault per 4 KiB
   * (~0.4 ms per MB here) and raises the peak, reused memory does neither. The `translate`
   * result (4 bytes per touch) has its own buffer, so it can be freed on its own.
   */
  allocate(spareWords = 0): { narrow: Uint32Array; wide: Uint32Array; narrowFill: Uint32Array; wideFill: Uint32Array } {
    const P = 1 << this.partitionBits;
    const n = this.narrowCounts;
    const w = this.wideCounts;
    for (let i = 0; i < P; i++) {
      n[i + 1] += n[i];
      w[i + 1] += w[i];
    }
    this.buffer = new Uint32Array(Math.max(2 * n[P] + 3 * w[P], spareWords));
    this.narrow = this.buffer.subarray(0, 2 * n[P]);
    this.wide = this.buffer.subarray(2 * n[P], 2 * n[P] + 3 * w[P]);
    return { narrow: this.narrow, wide: this.wide, narrowFill: n.slice(0, P), wideFill: w.slice(0, P) };
  }

  /**
   * Give every distinct address an id and keep its first touch. `preNumbered(e)`: early address
   * e already has a node index (a later touch does not number it again).
   */
  resolve(preNumbered: (e: number) => boolean, token: CancellationToken): void {
    const T = this.sequenceLength;
    const P = 1 << this.partitionBits;
    const pb = this.partitionBits;
    const earlyId = this.earlyId;
    const n = this.narrowCounts;
    const w = this.wideCounts;
    // Room for the expected ids plus one partition's worth: the per-partition check below
    // assumes every item of a partition may be new, and would grow (copy) the id columns near
    // the end of every walk otherwise.
    let most = 0;
    for (let i = 0; i < P; i++) most = Math.max(most, n[i + 1] - n[i], w[i + 1] - w[i]);
    this.ensureIds(Math.max(16, this.expectedIds + most));
    let next = 0;
    // Narrow items: slots (key, id + 1); a slot left by an earlier partition holds an id below
    // this partition's first, so it reads as empty and the table is never cleared.
    if (this.rangeBits >= 0) next = this.resolveByRange(next, token);
    else {
      const tb = tableBits(n, P);
      const mask = (1 << tb) - 1;
      const table = new Uint32Array(2 << tb);
      const items = this.narrow;
      for (let part = 0; part < P; part++) {
        if ((part & 63) === 0) token.throwIfCancelled();
        const base = next;
        const start = 2 * n[part];
        const end = 2 * n[part + 1];
        if (next + (end - start) / 2 > this.first.length) this.ensureIds(next + (end - start) / 2, next);
        const first = this.first;
        const keys = this.idKey;
        for (let q = start; q < end; q += 2) {
          const key = items[q];
          const tag = items[q + 1];
          let slot = ((Math.imul(key, FIB) << pb) >>> (32 - tb)) & mask;
          let id: number;
          for (;;) {
            const v = table[2 * slot + 1];
            if (v <= base) {
              id = next++;
              table[2 * slot] = key;
              table[2 * slot + 1] = id + 1;
              keys[id] = key;
              first[id] = tag < T ? tag : NONE;
              break;
            }
            if (table[2 * slot] === key) {
              id = v - 1;
              if (tag < first[id]) first[id] = tag;
              break;
            }
            slot = (slot + 1) & mask;
          }
          if (tag >= T) earlyId[tag - T] = id;
          items[q] = id;
        }
      }
    }
    this.narrowIds = next;
    // Wide items: slots (lo, hi, id + 1), the same way.
    if (w[P] > 0) {
      const tb = tableBits(w, P);
      const mask = (1 << tb) - 1;
      const table = new Uint32Array(3 << tb);
      const items = this.wide;
      for (let part = 0; part < P; part++) {
        const base = next;
        const start = 3 * w[part];
        const end = 3 * w[part + 1];
        if (next + (end - start) / 3 > this.first.length) this.ensureIds(next + (end - start) / 3, next);
        const first = this.first;
        for (let q = start; q < end; q += 3) {
          const lo = items[q];
          const hi = items[q + 1];
          const tag = items[q + 2];
          let slot = hashOf(lo, hi) & mask;
          let id: number;
          for (;;) {
            const v = table[3 * slot + 2];
            if (v <= base) {
              id = next++;
              table[3 * slot] = lo;
              table[3 * slot + 1] = hi;
              table[3 * slot + 2] = id + 1;
              this.wideLo.push(lo);
              this.wideHi.push(hi);
              first[id] = tag < T ? tag : NONE;
              break;
            }
            if (table[3 * slot] === lo && table[3 * slot + 1] === hi) {
              id = v - 1;
              if (tag < first[id]) first[id] = tag;
              break;
            }
            slot = (slot + 1) & mask;
          }
          if (tag >= T) earlyId[tag - T] = id;
          items[q] = id;
        }
      }
    }
    this.ids = next;
    // First touches: early addresses with a node already are not numbered again.
    const first = this.first;
    for (let e = 0; e < this.earlyCount; e++) if (preNumbered(e)) first[earlyId[e]] = NONE;
    const bits = (this.bits = new Int32Array((T >>> 5) + 1));
    for (let id = 0; id < next; id++) {
      const p = first[id];
      if (p !== NONE) bits[p >>> 5] |= 1 << (p & 31);
    }
    const words = bits.length;
    const prefix = (this.prefix = new Uint32Array(words + 1));
    for (let i = 0; i < words; i++) prefix[i + 1] = prefix[i] + popcount(bits[i]);
  }

  /** The narrow items of `resolve` with range partitions: one direct-mapped table slot per key. */
  private resolveByRange(next: number, token: CancellationToken): number {
    const T = this.sequenceLength;
    const P = 1 << this.partitionBits;
    const n = this.narrowCounts;
    const earlyId = this.earlyId;
    const mask = (1 << this.rangeBits) - 1;
    const table = new Uint32Array(mask + 1); // id + 1; ids of earlier partitions read as empty
    const items = this.narrow;
    for (let part = 0; part < P; part++) {
      if ((part & 63) === 0) token.throwIfCancelled();
      const base = next;
      const start = 2 * n[part];
      const end = 2 * n[part + 1];
      if (next + (end - start) / 2 > this.first.length) this.ensureIds(next + (end - start) / 2, next);
      const first = this.first;
      const keys = this.idKey;
      for (let q = start; q < end; q += 2) {
        const key = items[q];
        const tag = items[q + 1];
        const slot = key & mask;
        const v = table[slot];
        let id: number;
        if (v <= base) {
          id = next++;
          table[slot] = id + 1;
          keys[id] = key;
          first[id] = tag < T ? tag : NONE;
        } else {
          id = v - 1;
          if (tag < first[id]) first[id] = tag;
        }
        if (tag >= T) earlyId[tag - T] = id;
        items[q] = id;
      }
    }
    return next;
  }

  /** Distinct addresses (ids). */
  get idCount(): number {
    return this.ids;
  }

  /** Distinct addresses first touched by the sequence (each becomes a new node). */
  get firstTouches(): number {
    return this.prefix[this.prefix.length - 1];
  }

  /** First touches at positions < p. */
  firstTouchesBefore(p: number): number {
    if (p >= this.sequenceLength) return this.firstTouches;
    return this.prefix[p >>> 5] + popcount(this.bits[p >>> 5] & ((1 << (p & 31)) - 1));
  }

  /** Position of the i-th first touch (0-based); i < firstTouches. */
  positionOfFirstTouch(i: number): number {
    const prefix = this.prefix;
    let lo = 0;
    let hi = prefix.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (prefix[mid] <= i) lo = mid;
      else hi = mid;
    }
    let word = this.bits[lo];
    for (let k = i - prefix[lo]; k > 0; k--) word &= word - 1;
    return 32 * lo + (31 - Math.clz32(word & -word));
  }

  /**
   * Node index of every id, in place of its first position: `base` + rank of its first touch,
   * `earlyNode(e)` for an early address numbered before, NONE for one never touched.
   */
  number(base: number, earlyNode: (e: number) => number, token: CancellationToken): Uint32Array {
    const first = this.first;
    const bits = this.bits;
    // Ranks without a random read per id (a rank lookup at a random position costs a cache miss
    // that stalls the loop, ~45 ns per id measured): the id at each first-touch position is
    // scattered (random writes do not stall), then the positions are visited in order.
    const at = (this.positions = new Uint32Array(this.sequenceLength));
    for (let id = 0; id < this.ids; id++) {
      if ((id & 0xfffff) === 0) token.throwIfCancelled();
      const p = first[id];
      if (p !== NONE) at[p] = id;
    }
    let next = base;
    for (let w = 0; w < bits.length; w++) {
      if ((w & 0xfffff) === 0) token.throwIfCancelled();
      for (let word = bits[w]; word !== 0; word &= word - 1) first[at[32 * w + 31 - Math.clz32(word & -word)]] = next++;
    }
    for (let e = 0; e < this.earlyCount; e++) {
      const n = earlyNode(e);
      if (n !== NONE) first[this.earlyId[e]] = n;
    }
    return first;
  }

  /**
   * Addresses in node order: words[2n], words[2n + 1] = lo, hi of the address numbered n, for
   * n < below (after `number`; other words are left as they are).
   */
  addressesByNode(below: number, words: Uint32Array): void {
    const nodeOf = this.first;
    const s = this.space;
    if (s) {
      const keys = this.idKey;
      const shift = s.shift;
      const baseLo = s.baseLo;
      const baseHi = s.baseHi;
      for (let id = 0; id < this.narrowIds; id++) {
        const n = nodeOf[id];
        if (n >= below) continue;
        // base + key << shift, carried by hand (keys span up to 35 bits)
        const key = keys[id];
        const add = (key << shift) >>> 0;
        const lo = (baseLo + add) >>> 0;
        const carry = lo < baseLo ? 1 : 0;
        words[2 * n] = lo;
        words[2 * n + 1] = baseHi + (shift === 0 ? 0 : key >>> (32 - shift)) + carry;
      }
    }
    for (let i = 0; i < this.wideLo.length; i++) {
      const n = nodeOf[this.narrowIds + i];
      if (n >= below) continue;
      words[2 * n] = this.wideLo.get(i);
      words[2 * n + 1] = this.wideHi.get(i);
    }
  }

  /** Drop the per-id tables (node indices, keys, wide addresses) once they were read for the last time. */
  releaseIds(): void {
    this.first = new Uint32Array(0);
    this.idKey = new Uint32Array(0);
    this.wideLo = new GrowableUint32Array(16);
    this.wideHi = new GrowableUint32Array(16);
  }

  /**
   * The node index touched at each position p < limit (after `number`). Then the items are
   * gone; their memory is `spare()`.
   */
  translate(limit: number, token: CancellationToken): Uint32Array {
    // Every position below limit is written: the scratch of `number` can hold the result.
    const out = this.positions.length >= limit ? this.positions.subarray(0, limit) : new Uint32Array(limit);
    this.positions = EMPTY;
    const nodeOf = this.first;
    const narrow = this.narrow;
    for (let q = 0; q < narrow.length; q += 2) {
      if ((q & 0x3ffff) === 0) token.throwIfCancelled();
      const tag = narrow[q + 1];
      if (tag < limit) out[tag] = nodeOf[narrow[q]];
    }
    const wide = this.wide;
    for (let q = 0; q < wide.length; q += 3) {
      const tag = wide[q + 2];
      if (tag < limit) out[tag] = nodeOf[wide[q]];
    }
    this.narrow = this.wide = new Uint32Array(0);
    return out;
  }

  /** The items' memory after `translate`, free for the caller (contents undefined). */
  spare(): Uint32Array {
    return this.buffer;
  }

  private ensureIds(n: number, keep = 0): void {
    if (n <= this.first.length) return;
    const cap = Math.max(n, Math.ceil(this.first.length * 1.5));
    const first = new Uint32Array(cap);
    first.set(this.first.subarray(0, keep));
    this.first = first;
    const keys = new Uint32Array(cap);
    keys.set(this.idKey.subarray(0, Math.min(keep, this.idKey.length)));
    this.idKey = keys;
  }
}

/** Slots for the largest partition at load ≤ 0.7 (every item distinct at worst). */
function tableBits(starts: Uint32Array, P: number): number {
  let most = 0;
  for (let i = 0; i < P; i++) most = Math.max(most, starts[i + 1] - starts[i]);
  let tb = 4;
  while (1 << tb < most * 1.43) tb++;
  return tb;
}

/**
 * Narrow key of an address, or -1 when it is wide (outside the key space or misaligned).
 * `shift` is the key space's; pass baseHi = Infinity for "no key space" (every address wide).
 */
export function narrowKey(lo: number, hi: number, baseLo: number, baseHi: number, shift: number): number {
  if ((lo & ((1 << shift) - 1)) !== 0) return -1;
  if (hi === baseHi) return lo >= baseLo ? (lo - baseLo) >>> shift : -1; // the usual case: no double arithmetic
  const rel = (hi - baseHi) * 4294967296 + (lo - baseLo);
  if (!(rel >= 0)) return -1;
  const key = rel / 2 ** shift;
  return key <= 0xffffffff ? key : -1;
}

/** Partition of a narrow key: top bits of its Fibonacci hash (the slot uses the next bits), or its range (rangeBits ≥ 0). */
export function narrowPartition(key: number, bits: number, rangeBits = -1): number {
  if (rangeBits >= 0) return key >>> rangeBits;
  return bits === 0 ? 0 : Math.imul(key, FIB) >>> (32 - bits);
}

/** The same mix as AddressMap: both halves matter (object addresses are 8-aligned). */
function hashOf(lo: number, hi: number): number {
  let h = Math.imul(lo ^ (lo >>> 16), 0x45d9f3b) ^ Math.imul(hi, 0x27d4eb2d);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  return (h ^ (h >>> 13)) >>> 0;
}

/** Partition of a wide address: top bits of its hash (the slot uses the low bits). */
export function widePartition(lo: number, hi: number, bits: number): number {
  return bits === 0 ? 0 : hashOf(lo, hi) >>> (32 - bits);
}

function popcount(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

import { FormatError } from '../../errors.js';
import { GrowableUint32Array } from '../../util/growable-array.js';
import { InPlaceWords } from '../../util/in-place-words.js';

/**
 * The targets of a heap walk's references (BulkEdge entries) in arrival order, one u32 word
 * each, in one contiguous run that later becomes the graph's edge column: resolving writes each
 * reference's node index over its own word (reference-batches.ts), so the references' 25M
 * targets at 10M objects need 100 MB once instead of 200 MB of raw addresses plus a fresh
 * 100 MB column (on the 2-core VM a first touch of a fresh page costs ~3–5 µs: ~50K faults fewer).
 *
 * A word packs the address: the top `s` bits (s = 3 for 8-byte pointers, 2 for 4-byte ones)
 * pick one of 2^s − 1 address windows of 4 GiB (the address's high word, in the order first
 * seen), the rest is the low word shifted right by s (objects are aligned to the pointer size).
 * A heap of a few GiB, or a regions heap whose small and large regions lie far apart, needs two
 * or three windows. Anything else (a misaligned pointer, an 8th window) is escaped: window
 * 2^s − 1 with the index of its full address in `escapes` (8 more bytes each), so every
 * address round-trips exactly.
 *
 * Per block of BLOCK references, how many targets fall in each address partition
 * (edgePartition) is counted as they arrive (`parts`), for resolving's batches.
 */
export const BLOCK = 1 << 18;
/** Words reserved before the first reference: room for the pseudo-nodes' edges in front of the column (resolving writes in place). */
const HEAD = 1 << 16;

export class PackedReferences {
  /** Alignment shift of addresses, and the bit position of the window number (32 − s). */
  readonly s: number;
  readonly windowShift: number;
  /** The escape window. */
  readonly esc: number;
  /** High address word of each window. */
  readonly his: Uint32Array;
  windows = 0;
  /** Full addresses (lo, hi) of escaped targets. */
  readonly escapes = new GrowableUint32Array(64);
  /** Per block of BLOCK references: targets per address partition. */
  readonly parts: Uint32Array[] = [];
  length = 0;
  private store: InPlaceWords;
  private taken = false;

  /**
   * `pointerSize` 4 or 8; `maxRefs`: the most references expected, which bounds the address space
   * reserved (a graph keeps it while it lives; without a bound, 1 GiB: 268M references, past
   * which the words are copied as they grow). `sharedMemory`: in a SharedArrayBuffer (for a
   * host that hands the graph to other threads), else in plain memory (InPlaceWords).
   */
  constructor(pointerSize: number, maxRefs?: number, sharedMemory = true) {
    this.s = pointerSize === 4 ? 2 : 3;
    this.windowShift = 32 - this.s;
    this.esc = (1 << this.s) - 1;
    this.his = new Uint32Array(this.esc + 1);
    this.store = new InPlaceWords(HEAD + 4096, HEAD + Math.max(0, Math.ceil(maxRefs ?? 1 << 28)), sharedMemory, maxRefs !== undefined);
  }

  /** The words to write `count` more references into, from word `wordAt` on (then `commit`). */
  room(count: number): Uint32Array {
    if (this.taken) throw new Error('PackedReferences: appended after its column was taken');
    return this.store.ensure(HEAD + this.length + count, HEAD + this.length);
  }

  get wordAt(): number {
    return HEAD + this.length;
  }

  /** References written up to word `wordEnd`. */
  commit(wordEnd: number): void {
    this.length = wordEnd - HEAD;
  }

  /** The partition counts of the block holding reference `i`. */
  partsOf(i: number): Uint32Array {
    const b = (i / BLOCK) | 0;
    while (this.parts.length <= b) this.parts.push(new Uint32Array(PARTS));
    return this.parts[b];
  }

  /** The word for (lo, hi): its window's, or an escape. */
  encode(lo: number, hi: number): number {
    if ((lo & this.esc) === 0) {
      for (let k = 0; k < this.windows; k++) if (this.his[k] === hi) return ((k << this.windowShift) | (lo >>> this.s)) >>> 0;
      if (this.windows < this.esc) {
        this.his[this.windows] = hi;
        return ((this.windows++ << this.windowShift) | (lo >>> this.s)) >>> 0;
      }
    }
    const k = this.escapes.length >>> 1;
    if (k >= 1 << this.windowShift) throw new FormatError('format/too-large', `more than ${1 << this.windowShift} references to addresses outside the heap's first ${this.esc} 4 GiB windows`);
    this.escapes.push(lo);
    this.escapes.push(hi);
    return ((this.esc << this.windowShift) | k) >>> 0;
  }

  /** Low and high word of the address a word packs. */
  lo(word: number): number {
    const w = word >>> this.windowShift;
    return w === this.esc ? this.escapes.raw[2 * (word & ((1 << this.windowShift) - 1))] : (word << this.s) >>> 0;
  }

  hi(word: number): number {
    const w = word >>> this.windowShift;
    return w === this.esc ? this.escapes.raw[2 * (word & ((1 << this.windowShift) - 1)) + 1] : this.his[w];
  }

  /**
   * The column: `at` free words, then the packed references (to be resolved in place), then
   * `extra` free words; a view of the same memory when `at` fits in front (else the references
   * move up once). No more references can be added afterwards.
   */
  column(at: number, extra: number): Uint32Array {
    this.taken = true;
    const n = this.length;
    if (at <= HEAD) return this.store.ensure(HEAD + n + extra, HEAD + n).subarray(HEAD - at, HEAD + n + extra);
    const words = this.store.ensure(at + n + extra, HEAD + n);
    words.copyWithin(at, HEAD, HEAD + n);
    return words.subarray(0, at + n + extra);
  }

  /** Drop the storage (a column taken from it lives on with its user). */
  clear(): void {
    this.taken = true;
    this.store = new InPlaceWords(0, 0);
  }
}

/** Address partitions: 8 MiB address ranges (modulo 8 GiB). */
export const PARTS = 1024;

export function edgePartition(lo: number, hi: number): number {
  return ((hi << 9) | (lo >>> 23)) & (PARTS - 1);
}

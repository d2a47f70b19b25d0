/**
 * One contiguous run of u32 words that grows without moving when it can, for a builder that
 * streams an unknown number of records and later wants them as one column (no chunks to join,
 * no copy). Two storages:
 *
 * - `shared`: a growable SharedArrayBuffer. V8 reserves `maxWords` of address space up front and
 *   `grow` only makes more of it usable, so the words never move and a page is committed on its
 *   first write. The view is a fixed-length Uint32Array, re-made on each growth: a
 *   length-tracking view over a growable buffer measured 10–20× slower per access in Node 20, a
 *   fixed-length one as fast as a plain array. The host can hand the finished column to other
 *   threads as it is. V8 caps a growable buffer at 4 GiB; where growable buffers are missing (or
 *   the reservation fails) and past the reservation, it falls back to doubling a plain array (a
 *   copy per doubling, as GrowableUint32Array).
 * - not shared: a plain array of the whole bound from the start (committed page by page as it
 *   is written, on Linux and macOS), or, without a bound, doubling.
 */
const MAX_RESERVED_BYTES = 2 ** 32;

export class InPlaceWords {
  /** The words; only the first `capacity` are usable (all of `words`), the first `length` meaningful to the owner. */
  words: Uint32Array;
  private growable: GrowableSharedArrayBuffer | null = null;

  /**
   * `maxWords`: how far it may grow in place (a bound the caller expects to stay under; beyond
   * it, copies). `shared` false: a plain array, of `maxWords` from the start when that bound is
   * given (`bounded`; untouched pages cost address space only), else doubling from
   * `initialWords`. Measured on the 2-core VM: first touches of a plain array's pages cost the
   * reader less system time than a SharedArrayBuffer's (250–350 vs 300–1,000 ms for the ~110K
   * of a 10M-object trace), so a reader whose graph stays on its thread uses plain memory.
   */
  constructor(initialWords: number, maxWords: number, shared = true, bounded = true) {
    const max = Math.min(MAX_RESERVED_BYTES, Math.max(initialWords, maxWords) * 4);
    if (!shared) {
      let words: Uint32Array | null = null;
      try {
        // Address space only where pages are committed on first write (Linux, macOS); Windows
        // commits the whole array, which can fail on a small page file: then doubling it is.
        if (bounded) words = new Uint32Array(max / 4);
      } catch {
        words = null;
      }
      this.words = words ?? new Uint32Array(initialWords);
      return;
    }
    try {
      // Throws RangeError where growable buffers are unsupported or the reservation fails.
      const b = new (SharedArrayBuffer as unknown as GrowableCtor)(initialWords * 4, { maxByteLength: max });
      if (b.growable === true && b.maxByteLength >= initialWords * 4) this.growable = b;
    } catch {
      this.growable = null;
    }
    this.words = this.growable ? new Uint32Array(this.growable, 0, initialWords) : new Uint32Array(initialWords);
  }

  get capacity(): number {
    return this.words.length;
  }

  /** Whether the words are in a SharedArrayBuffer that grows in place (else a plain array that is copied as it grows). */
  get inPlace(): boolean {
    return this.growable !== null;
  }

  /**
   * At least `words` usable words (a doubling, so a stream of small requests grows log-many
   * times); the first `keep` are preserved (all of them in place; a copy only on the fallback).
   */
  ensure(words: number, keep = this.words.length): Uint32Array {
    if (words <= this.words.length) return this.words;
    let want = Math.max(words, 2 * this.words.length);
    const b = this.growable;
    if (b && words * 4 <= b.maxByteLength) {
      want = Math.min(want * 4, b.maxByteLength) / 4;
      b.grow(want * 4);
      this.words = new Uint32Array(b, 0, want);
      return this.words;
    }
    const next = new Uint32Array(want);
    next.set(this.words.subarray(0, Math.min(keep, this.words.length)));
    this.growable = null;
    this.words = next;
    return next;
  }
}

interface GrowableSharedArrayBuffer extends SharedArrayBuffer {
  readonly growable: boolean;
  readonly maxByteLength: number;
  grow(byteLength: number): void;
}
type GrowableCtor = new (byteLength: number, opts: { maxByteLength: number }) => GrowableSharedArrayBuffer;

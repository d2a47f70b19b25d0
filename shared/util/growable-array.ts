/**
 * Append-only typed arrays that double their capacity, for builders that do not know their
 * final size. `finish()` trims to the used length (one copy) so the graph keeps no slack, except
 * for storage that is shared from the start (see the constructor), whose unused tail is never touched.
 *
 * Cost: amortised O(1) per push; peak memory during growth is 3x the used bytes (old + new
 * buffer), which is why builders accept an `expected` capacity hint.
 */

/** V8's longest typed array, in elements (graph/graph-limits.ts). */
const MAX_LENGTH = 2 ** 32;

type UintArray = Uint32Array | Uint8Array | Int32Array | Float64Array;
type Ctor<T extends UintArray> = { new (length: number): T; new (buffer: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number };

class Growable<T extends UintArray> {
  protected data: T;
  length = 0;

  /**
   * `sharedMemory`: the storage is a SharedArrayBuffer from the start, so `finish()` hands out the
   * used part as it is instead of copying it into one (a column the host shares with other
   * threads: see ReadOptions.sharedMemory). The unused capacity was never written, so it costs
   * address space, not memory: a large buffer's pages are committed on first write.
   */
  constructor(
    private readonly ctor: Ctor<T>,
    capacity = 1024,
    private readonly sharedMemory = false,
  ) {
    this.data = this.allocate(Math.max(16, capacity));
  }

  private allocate(length: number): T {
    return this.sharedMemory ? new this.ctor(new SharedArrayBuffer(length * this.ctor.BYTES_PER_ELEMENT)) : new this.ctor(length);
  }

  get capacity(): number {
    return this.data.length;
  }

  /** The backing array; only the first `length` entries are meaningful. */
  get raw(): T {
    return this.data;
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = value;
  }

  /** Make sure at least `extra` more entries fit without reallocating. */
  reserve(extra: number): void {
    if (this.length + extra > this.data.length) this.grow(this.length + extra);
  }

  /** Set entry `i` (i may be past the end; the gap is zero-filled). */
  set(i: number, value: number): void {
    if (i >= this.data.length) this.grow(i + 1);
    if (i >= this.length) this.length = i + 1;
    this.data[i] = value;
  }

  get(i: number): number {
    return this.data[i];
  }

  private grow(min: number): void {
    let cap = this.data.length * 2;
    while (cap < min) cap *= 2;
    // doubling must not ask for more than V8's longest typed array (2^32 elements) when `min` fits
    if (cap > MAX_LENGTH) cap = Math.max(min, MAX_LENGTH);
    const next = this.allocate(cap);
    next.set(this.data.subarray(0, this.length) as never);
    this.data = next;
  }

  /**
   * Trimmed copy (or the backing array itself when it is exactly full). `shared`: the copy lives
   * in a SharedArrayBuffer, for a graph the host hands to other threads without another copy.
   * Storage that is shared already (`sharedMemory`) is not copied: the result is a view of it.
   */
  finish(shared = false): T {
    if (this.sharedMemory) return this.data.subarray(0, this.length) as T;
    if (shared) {
      const copy = new this.ctor(new SharedArrayBuffer(this.length * this.ctor.BYTES_PER_ELEMENT));
      copy.set(this.data.subarray(0, this.length) as never);
      return copy;
    }
    if (this.length === this.data.length) return this.data;
    return this.data.slice(0, this.length) as T;
  }

  /**
   * finish() that hands out the used part as a view, without the trimmed copy, when the unused
   * tail is at most `maxSlack` of it: the graph then keeps that tail alive (at most an eighth
   * more by default, pages never written cost address space only) to save a copy of the whole
   * column and its page faults. A larger tail is trimmed as finish() does.
   */
  finishUsed(maxSlack = 1 / 8): T {
    if (this.sharedMemory || this.data.length - this.length > this.length * maxSlack) return this.finish();
    return this.data.subarray(0, this.length) as T;
  }
}

export class GrowableUint32Array extends Growable<Uint32Array> {
  constructor(capacity?: number, sharedMemory = false) {
    super(Uint32Array, capacity, sharedMemory);
  }
}

export class GrowableUint8Array extends Growable<Uint8Array> {
  constructor(capacity?: number, sharedMemory = false) {
    super(Uint8Array, capacity, sharedMemory);
  }
}

export class GrowableInt32Array extends Growable<Int32Array> {
  constructor(capacity?: number, sharedMemory = false) {
    super(Int32Array, capacity, sharedMemory);
  }
}

export class GrowableFloat64Array extends Growable<Float64Array> {
  constructor(capacity?: number, sharedMemory = false) {
    super(Float64Array, capacity, sharedMemory);
  }
}

import { FormatError } from '../../errors.js';
import type { ByteSource } from '../../util/byte-source.js';
import { utf8Text } from '../../util/utf8.js';

/**
 * Sequential little-endian reads over a ByteSource whose length may be unknown (-1: the dump
 * helper's stdout). Bytes arrive in chunks; `ensure(n)` makes the next n bytes readable
 * synchronously, so a decoder awaits only when a record crosses a chunk boundary.
 *
 * Memory: one chunk plus the carried-over tail of the previous one.
 */
export class StreamCursor {
  /** The readable bytes: the front of `store`. */
  private buf = new Uint8Array(0);
  private view = new DataView(this.buf.buffer);
  /** Reused backing array of `buf` (see append). */
  private store = new Uint8Array(0);
  private storeView = new DataView(this.store.buffer);
  /** The last chunk read, already copied into `store` (offered back to the source). */
  private spare: Uint8Array | undefined;
  private pos = 0;
  /** Offset in the source of buf[0]. */
  private base = 0;
  private ended = false;

  constructor(
    private readonly source: ByteSource,
    private readonly chunkSize = 1 << 20,
  ) {}

  /** Offset in the source of the next byte. */
  get offset(): number {
    return this.base + this.pos;
  }

  get available(): number {
    return this.buf.length - this.pos;
  }

  /** Make `n` bytes readable; throws format/truncated when the source ends first. */
  async ensure(n: number): Promise<void> {
    while (this.buf.length - this.pos < n) {
      if (this.ended) throw new FormatError('format/truncated', `${this.source.name}: the stream ends in the middle of a record`, { offset: this.offset });
      const readAt = this.base + this.buf.length;
      // The previous chunk was copied into `store`: a source that copies may refill it.
      const chunk = await this.source.read(readAt, Math.max(this.chunkSize, n), this.spare);
      if (chunk.length === 0) {
        this.ended = true;
        continue;
      }
      this.append(chunk);
      this.spare = chunk;
    }
  }

  /**
   * The unread tail, then `chunk`, become `buf`. A pipe delivers 64 KB chunks, thousands per big
   * dump: the bytes go into one reused array (the tail moved to its front) instead of a new array
   * per chunk, which was garbage for the collector to clear. It grows only for a longer chunk or a
   * record that spans more than its length.
   */
  private append(chunk: Uint8Array): void {
    const rest = this.buf.length - this.pos;
    const need = rest + chunk.length;
    let store = this.store;
    if (store.length < need) {
      store = new Uint8Array(Math.max(need, 2 * store.length, 1 << 17));
      store.set(this.buf.subarray(this.pos));
      this.store = store;
      this.storeView = new DataView(store.buffer);
    } else if (rest > 0) store.copyWithin(0, this.buf.byteOffset + this.pos, this.buf.byteOffset + this.buf.length);
    store.set(chunk, rest);
    this.base += this.pos;
    this.buf = store.subarray(0, need);
    this.view = this.storeView;
    this.pos = 0;
  }

  /** Whether the source has no byte left (reads once more if needed). */
  async atEnd(): Promise<boolean> {
    if (this.available > 0) return false;
    if (this.ended) return true;
    const chunk = await this.source.read(this.base + this.buf.length, 1);
    if (chunk.length === 0) {
      this.ended = true;
      return true;
    }
    return false;
  }

  u8(): number {
    return this.buf[this.pos++];
  }

  u32(): number {
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  /** A u64 as its low and high 32-bit words, into `out.lo` and `out.hi` (exact, no BigInt). */
  u64Words(out: { lo: number; hi: number }): void {
    out.lo = this.view.getUint32(this.pos, true);
    out.hi = this.view.getUint32(this.pos + 4, true);
    this.pos += 8;
  }

  /** A u64 as a number (exact below 2^53; larger values come back rounded). */
  u64(): number {
    const lo = this.view.getUint32(this.pos, true);
    const hi = this.view.getUint32(this.pos + 4, true);
    this.pos += 8;
    return hi * 4294967296 + lo;
  }

  utf8(length: number): string {
    const start = this.pos;
    this.pos += length;
    return utf8Text(this.buf, start, start + length);
  }

  /** The next `length` bytes as a view of the cursor's buffer (valid until the next ensure), skipped. */
  bytes(length: number): Uint8Array {
    const start = this.pos;
    this.pos += length;
    return this.buf.subarray(start, start + length);
  }

  ascii(length: number): string {
    let s = '';
    for (let i = 0; i < length; i++) s += String.fromCharCode(this.buf[this.pos + i]);
    this.pos += length;
    return s;
  }
}

import { FormatError } from '../../errors.js';
import type { ByteSource } from '../../util/byte-source.js';
import type { CancellationToken } from '../../util/cancellation.js';
import type { ProgressSink } from '../../util/progress.js';
import { MAX_NAME_CHARS, MAX_TEXT_CHARS, NAME_CUT_MARK } from '../name-cap.js';
import { decodeFsChars, skipFsChars } from './fs-string.js';

/** Default window: big enough that refills are rare, small enough that a 4 GB file is never one buffer. */
export const DEFAULT_CHUNK = 8 * 1024 * 1024;

/** Longest string we accept (code units); real gcdump strings are type names and short logs. */
export const MAX_STRING_CHARS = 16 * 1024 * 1024;

export { MAX_NAME_CHARS, MAX_TEXT_CHARS, NAME_CUT_MARK } from '../name-cap.js';

/**
 * A little-endian read cursor over a ByteSource, holding one window of the file at a time.
 *
 * Reads are synchronous on the current window; `need(n)` (async) makes sure the next `n` bytes
 * are in it, refilling from the source when not. Running past the end of the file is a
 * `format/truncated` error that names `section` (what was being read) and the offset, e.g.
 * "gcdump ended inside the node table at offset 183742".
 *
 * Cost: one source read per window (DEFAULT_CHUNK bytes); a refill re-reads at most `n - 1`
 * bytes that were already in the previous window.
 */
export class ByteCursor {
  /** What is being read, for error messages ("the type table"). */
  section = 'the file header';
  private buf: Uint8Array = new Uint8Array(0);
  private view: DataView = new DataView(this.buf.buffer);
  private bufStart = 0;
  /** Absolute file offset of the next byte. */
  pos = 0;
  /** Strings cut to their cap so far (see name-cap.ts), and the longest of them (code units claimed). */
  stringsCut = 0;
  longestCut = 0;

  constructor(
    readonly source: ByteSource,
    readonly size: number,
    private readonly token: CancellationToken,
    private readonly progress: ProgressSink,
    readonly chunkSize = DEFAULT_CHUNK,
  ) {}

  /** For loops that may run long without refilling the window (many small objects). */
  throwIfCancelled(): void {
    this.token.throwIfCancelled();
  }

  get remaining(): number {
    return this.size - this.pos;
  }

  /** Whether the next `n` bytes are already in the window. */
  has(n: number): boolean {
    return this.pos >= this.bufStart && this.pos + n <= this.bufStart + this.buf.length;
  }

  /** Make the next `n` bytes available for synchronous reads. */
  async need(n: number): Promise<void> {
    if (!this.has(n)) await this.fill(n);
  }

  private async fill(n: number): Promise<void> {
    this.token.throwIfCancelled();
    if (this.pos < 0 || this.pos + n > this.size) throw this.truncated(n);
    const len = Math.min(this.size - this.pos, Math.max(this.chunkSize, n));
    const data = await this.source.read(this.pos, len);
    if (data.length < n) throw this.truncated(n);
    this.buf = data;
    this.view = new DataView(data.buffer, data.byteOffset, data.length);
    this.bufStart = this.pos;
    this.progress('parse', this.pos, this.size);
  }

  truncated(n: number, what = this.section): FormatError {
    return new FormatError(
      'format/truncated',
      `${this.source.name} ended inside ${what} at offset ${this.size} (${n} more bytes needed at offset ${this.pos})`,
      { offset: this.pos },
    );
  }

  corrupt(message: string, offset = this.pos): FormatError {
    return new FormatError('format/corrupt', `${this.source.name}: ${message} (in ${this.section}, offset ${offset})`, { offset });
  }

  seek(offset: number): void {
    this.pos = offset;
  }

  async skip(n: number): Promise<void> {
    if (n < 0 || this.pos + n > this.size) throw this.truncated(n);
    this.pos += n;
  }

  /**
   * Bytes [offset, offset + length) straight from the source (big arrays bypass the window).
   * `into` (≥ length bytes): where the caller wants them; a source that copies (a file) fills it
   * and returns a view of it, one that holds the bytes (memory) returns its own view, so check
   * with `landedIn`. Reading into the destination saves a copy and the page faults of fresh memory.
   */
  async readRange(offset: number, length: number, into?: Uint8Array): Promise<Uint8Array> {
    this.token.throwIfCancelled();
    if (offset + length > this.size) {
      this.pos = offset;
      throw this.truncated(length);
    }
    const data = await this.source.read(offset, length, into);
    if (data.length < length) {
      this.pos = offset;
      throw this.truncated(length);
    }
    this.progress('parse', offset + length, this.size);
    return data;
  }

  /** Whether `data` (from readRange) already is `into`'s first bytes (else copy it there). */
  static landedIn(data: Uint8Array, into: Uint8Array): boolean {
    return data.buffer === into.buffer && data.byteOffset === into.byteOffset;
  }

  // ---- synchronous reads: call need() first ----

  u8(): number {
    return this.buf[this.pos++ - this.bufStart];
  }

  i32(): number {
    const v = this.view.getInt32(this.pos - this.bufStart, true);
    this.pos += 4;
    return v;
  }

  u32(): number {
    const v = this.view.getUint32(this.pos - this.bufStart, true);
    this.pos += 4;
    return v;
  }

  f32(): number {
    const v = this.view.getFloat32(this.pos - this.bufStart, true);
    this.pos += 4;
    return v;
  }

  /** i64 as a double (exact below 2^53; sizes and counts never get near that). */
  i64(): number {
    const lo = this.view.getUint32(this.pos - this.bufStart, true);
    const hi = this.view.getInt32(this.pos - this.bufStart + 4, true);
    this.pos += 8;
    return hi * 4294967296 + lo;
  }

  u64(): bigint {
    const v = this.view.getBigUint64(this.pos - this.bufStart, true);
    this.pos += 8;
    return v;
  }

  i64Big(): bigint {
    const v = this.view.getBigInt64(this.pos - this.bufStart, true);
    this.pos += 8;
    return v;
  }

  peekU8(): number {
    return this.buf[this.pos - this.bufStart];
  }

  // ---- asynchronous conveniences ----

  async readU8(): Promise<number> {
    await this.need(1);
    return this.u8();
  }

  async readI32(): Promise<number> {
    await this.need(4);
    return this.i32();
  }

  async readU32(): Promise<number> {
    await this.need(4);
    return this.u32();
  }

  async readF32(): Promise<number> {
    await this.need(4);
    return this.f32();
  }

  async readI64(): Promise<number> {
    await this.need(8);
    return this.i64();
  }

  async readU64(): Promise<bigint> {
    await this.need(8);
    return this.u64();
  }

  /** The next byte without consuming it, or -1 at the end of the file. */
  async peek(): Promise<number> {
    if (this.pos >= this.size) return -1;
    await this.need(1);
    return this.peekU8();
  }

  /**
   * A FastSerialization string (§2.1); null for count -1. Beyond `maxChars` code units the rest is
   * stepped over (not decoded) and the value ends in NAME_CUT_MARK.
   */
  async readString(maxChars = MAX_STRING_CHARS): Promise<string | null> {
    return this.stringAt(maxChars, true);
  }

  private async stringAt(maxChars: number, countCut: boolean): Promise<string | null> {
    const start = this.pos;
    const count = await this.readI32();
    if (count === -1) return null;
    if (count < -1 || count > MAX_STRING_CHARS) throw this.corrupt(`impossible string length ${count}`, start);
    if (count > this.remaining) throw this.truncated(count);
    let keep = Math.min(count, maxChars);
    let out = '';
    let left = count;
    while (left > 0) {
      // Decode in pieces so a long string never needs a window of 3 × its length.
      const k = Math.min(left, 65536);
      const want = Math.min(3 * k, this.remaining);
      await this.need(want);
      const from = this.pos - this.bufStart;
      const limit = from + want;
      const d = Math.min(k, keep);
      let end = from;
      if (d > 0) {
        const r = decodeFsChars(this.buf, from, d, limit);
        if (r.end < 0) throw this.truncated(want + 1);
        out += r.value;
        end = r.end;
        keep -= d;
      }
      if (k > d) end = skipFsChars(this.buf, end, k - d, limit);
      if (end < 0) throw this.truncated(want + 1);
      this.pos = this.bufStart + end;
      left -= k;
    }
    if (count > maxChars && countCut) {
      // Do not leave half a surrogate pair before the mark.
      const last = out.charCodeAt(out.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) out = out.slice(0, -1);
      out += NAME_CUT_MARK;
      this.stringsCut++;
      this.longestCut = Math.max(this.longestCut, count);
    }
    return out;
  }

  /**
   * A name that is wholly in the window, decoded without an await (the type table reads three
   * fields per type; an async call each made a table of zeros crawl), or undefined when it is not:
   * then readName reads it, cuts it or reports the damage.
   */
  nameInWindow(): string | null | undefined {
    if (!this.has(4)) return undefined;
    const at = this.pos - this.bufStart;
    const count = this.view.getInt32(at, true);
    if (count === -1) {
      this.pos += 4;
      return null;
    }
    if (count < 0 || count > MAX_NAME_CHARS) return undefined;
    const r = decodeFsChars(this.buf, at + 4, count, this.buf.length);
    if (r.end < 0) return undefined;
    this.pos = this.bufStart + r.end;
    return r.value;
  }

  /** A name: readString capped at MAX_NAME_CHARS. */
  readName(): Promise<string | null> {
    return this.readString(MAX_NAME_CHARS);
  }

  /** A long text (a log): readString capped at MAX_TEXT_CHARS. */
  readText(): Promise<string | null> {
    return this.readString(MAX_TEXT_CHARS);
  }

  /** Step over a string without keeping it (nothing is decoded). */
  async skipString(): Promise<void> {
    await this.stringAt(0, false);
  }
}

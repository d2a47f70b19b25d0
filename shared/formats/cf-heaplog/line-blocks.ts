import type { ByteSource } from '../../util/byte-source.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { NEVER_CANCELLED } from '../../util/cancellation.js';
import type { ProgressSink } from '../../util/progress.js';
import { NO_PROGRESS } from '../../util/progress.js';

/** Default read size: large enough that per-read overhead vanishes, small enough to never matter. */
export const DEFAULT_CHUNK_SIZE = 4 * 1024 * 1024;

/**
 * A line longer than this is not a heap-log record (a CF object with 16M references cannot exist
 * on a device with a 32 MB process slot): it is skipped with a problem instead of growing the carry
 * buffer without bound when a file has no newlines at all.
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Splits a ByteSource into blocks of whole lines, reading `chunkSize` bytes at a time.
 *
 * Each `next()` exposes `buf[start, end)`: one or more complete lines, each ending in '\n' except
 * possibly the very last line of the source (then `unterminated` is true). A line that straddles
 * two chunks is copied once into a carry buffer and handed out as its own block; everything else is
 * a zero-copy view of the chunk the source returned. Callers find line ends with `buf.indexOf(10)`,
 * which V8 runs as a native memchr.
 *
 * Cost: one read per chunk, one copy of each straddling line. Memory: one chunk plus the carry.
 */
export class LineBlocks {
  buf: Uint8Array = new Uint8Array(0);
  start = 0;
  end = 0;
  /** The current block's last line has no '\n' (end of source). */
  unterminated = false;
  /** The current block is a placeholder for one overlong line that was skipped (buf is empty). */
  overlong = false;
  /** Bytes consumed from the source so far. */
  offset = 0;
  /** Source offset of `buf[0]` (where a carried line began, for the carry buffer). */
  base = 0;

  private carry = new Uint8Array(256);
  private carryLength = 0;
  /** Dropping bytes of an overlong line until its newline. */
  private skipping = false;
  private pending: Uint8Array | null = null;
  private pendingStart = 0;
  /** Source offsets of `pending[0]` and of the carried line's first byte. */
  private pendingBase = 0;
  private carryBase = 0;
  private eof = false;
  private readonly chunkSize: number;
  /** The last chunk read, once used up: the next read may go into it (ByteSource.read's `reuse`). */
  private spent: Uint8Array | undefined = undefined;

  constructor(
    private readonly source: ByteSource,
    chunkSize = DEFAULT_CHUNK_SIZE,
    private readonly token: CancellationToken = NEVER_CANCELLED,
    private readonly progress: ProgressSink = NO_PROGRESS,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {
    this.chunkSize = Math.max(1, Math.floor(chunkSize));
  }

  /** Advance to the next block; false at the end of the source. */
  async next(): Promise<boolean> {
    this.unterminated = false;
    this.overlong = false;
    for (;;) {
      if (this.pending) {
        if (this.takeFromPending()) return true;
        continue;
      }
      if (this.eof) return this.flushCarryAtEof();
      this.token.throwIfCancelled();
      // Every view of the previous chunk is dead by now: blocks live until the next call, and a
      // straddling line's start was copied into the carry. Saves a fresh 4 MiB per read.
      const chunk = await this.source.read(this.offset, this.chunkSize, this.spent);
      this.spent = chunk;
      this.pendingBase = this.offset;
      this.offset += chunk.length;
      this.progress('parse', this.offset, Math.max(0, this.source.size));
      if (chunk.length < this.chunkSize) this.eof = true;
      if (chunk.length > 0) {
        this.pending = chunk;
        this.pendingStart = 0;
      }
    }
  }

  /** Emit whatever block the pending chunk yields next; false when the chunk is used up. */
  private takeFromPending(): boolean {
    const chunk = this.pending!;
    const from = this.pendingStart;
    const nl = chunk.indexOf(10, from);
    if (nl < 0) {
      // No line end in the rest of this chunk: it all belongs to the carried line.
      this.pending = null;
      this.appendCarry(chunk, from, chunk.length);
      return false;
    }
    if (this.skipping || this.carryLength > 0) {
      // Finish the straddling line: carry + chunk[from, nl].
      this.pendingStart = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        this.carryLength = 0;
        return this.emitOverlong();
      }
      this.appendCarry(chunk, from, nl + 1);
      this.buf = this.carry;
      this.base = this.carryBase;
      this.start = 0;
      this.end = this.carryLength;
      this.carryLength = 0;
      return true;
    }
    // Whole lines up to the last newline of the chunk, without copying.
    const last = chunk.lastIndexOf(10);
    this.buf = chunk;
    this.base = this.pendingBase;
    this.start = from;
    this.end = last + 1;
    if (last + 1 < chunk.length) {
      this.pendingStart = last + 1;
    } else {
      this.pending = null;
    }
    return true;
  }

  /** Add bytes to the carried partial line (or start skipping it once it is overlong). */
  private appendCarry(chunk: Uint8Array, from: number, to: number): void {
    if (this.skipping) return;
    const n = to - from;
    if (this.carryLength === 0) this.carryBase = this.pendingBase + from;
    if (this.carryLength + n > this.maxLineBytes) {
      this.skipping = true;
      this.carryLength = 0;
      this.carry = new Uint8Array(256);
      return;
    }
    if (this.carryLength + n > this.carry.length) {
      let cap = this.carry.length * 2;
      while (cap < this.carryLength + n) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.carry.subarray(0, this.carryLength));
      this.carry = next;
    }
    this.carry.set(chunk.subarray(from, to), this.carryLength);
    this.carryLength += n;
  }

  private flushCarryAtEof(): boolean {
    if (this.skipping) {
      this.skipping = false;
      return this.emitOverlong();
    }
    if (this.carryLength === 0) return false;
    this.buf = this.carry;
    this.base = this.carryBase;
    this.start = 0;
    this.end = this.carryLength;
    this.carryLength = 0;
    this.unterminated = true;
    return true;
  }

  private emitOverlong(): boolean {
    this.buf = new Uint8Array(0);
    this.start = 0;
    this.end = 0;
    this.overlong = true;
    return true;
  }
}

import { encodeCompressedInt } from './compressed-int.js';
import { encodeFsChars, fsCharsByteLength } from './fs-string.js';

/** Default output chunk: large enough to keep the chunk list short, small enough to never be one giant buffer. */
export const SINK_CHUNK = 4 * 1024 * 1024;

/**
 * A little-endian writer into a list of fixed-size chunks, with the absolute offset of every
 * byte known (FastSerialization labels are offsets). Nothing is ever concatenated: a 10M-node
 * graph becomes a few hundred chunks, not one 500 MB buffer.
 */
export class ByteSink {
  private readonly chunks: Uint8Array[] = [];
  private cur: Uint8Array;
  private view: DataView;
  private at = 0;
  private flushed = 0;

  constructor(private readonly chunkSize = SINK_CHUNK) {
    this.cur = new Uint8Array(chunkSize);
    this.view = new DataView(this.cur.buffer);
  }

  /** Absolute offset of the next byte. */
  get offset(): number {
    return this.flushed + this.at;
  }

  /** Make room for `n` contiguous bytes. */
  private room(n: number): void {
    if (this.at + n <= this.cur.length) return;
    this.flush();
    this.cur = new Uint8Array(Math.max(this.chunkSize, n));
    this.view = new DataView(this.cur.buffer);
  }

  private flush(): void {
    if (this.at > 0) this.chunks.push(this.cur.subarray(0, this.at));
    this.flushed += this.at;
    this.at = 0;
  }

  u8(v: number): void {
    this.room(1);
    this.cur[this.at++] = v;
  }

  i32(v: number): void {
    this.room(4);
    this.view.setInt32(this.at, v, true);
    this.at += 4;
  }

  u32(v: number): void {
    this.room(4);
    this.view.setUint32(this.at, v, true);
    this.at += 4;
  }

  f32(v: number): void {
    this.room(4);
    this.view.setFloat32(this.at, v, true);
    this.at += 4;
  }

  /** An i64 from a double (exact below 2^53; NaN and infinities become 0). */
  i64(v: number): void {
    this.room(8);
    this.view.setBigInt64(this.at, Number.isFinite(v) ? BigInt.asIntN(64, BigInt(Math.trunc(v))) : 0n, true);
    this.at += 8;
  }

  i64Big(v: bigint): void {
    this.room(8);
    this.view.setBigInt64(this.at, v, true);
    this.at += 8;
  }

  u64(v: bigint): void {
    this.room(8);
    this.view.setBigUint64(this.at, v, true);
    this.at += 8;
  }

  compressed(v: number): void {
    this.room(5);
    this.at = encodeCompressedInt(v, this.cur, this.at);
  }

  /** FastSerialization string: i32 count (-1 for null) + code units (§2.1). */
  string(s: string | null): void {
    if (s === null) {
      this.i32(-1);
      return;
    }
    this.i32(s.length);
    const n = fsCharsByteLength(s);
    if (n <= this.chunkSize) {
      this.room(n);
      this.at = encodeFsChars(s, this.cur, this.at);
      return;
    }
    // A very long string: encode it in pieces of whole code units.
    for (let i = 0; i < s.length; i += 65536) {
      const piece = s.slice(i, i + 65536);
      this.room(3 * piece.length);
      this.at = encodeFsChars(piece, this.cur, this.at);
    }
  }

  /** Copy `bytes` (any length) into the output. */
  bytes(bytes: Uint8Array): void {
    let done = 0;
    while (done < bytes.length) {
      if (this.at === this.cur.length) this.room(this.chunkSize);
      const n = Math.min(bytes.length - done, this.cur.length - this.at);
      this.cur.set(bytes.subarray(done, done + n), this.at);
      this.at += n;
      done += n;
    }
  }

  /** Append finished chunks of another sink without copying them. */
  appendChunks(chunks: readonly Uint8Array[]): void {
    this.flush();
    for (const c of chunks) {
      this.chunks.push(c);
      this.flushed += c.length;
    }
    this.cur = new Uint8Array(this.chunkSize);
    this.view = new DataView(this.cur.buffer);
  }

  /** The chunks written so far; the sink must not be used afterwards. */
  finish(): Uint8Array[] {
    this.flush();
    return this.chunks;
  }
}

import { FormatError } from '../../errors.js';
import { MAX_NAME_CHARS, NAME_CUT_MARK } from '../name-cap.js';

/**
 * Little-endian reads over a byte range: the primitives of EventPipe metadata and CLR payloads.
 *
 * One cursor is allocated per record (metadata) or reused across events (`reset`), never per
 * field. 64-bit integers come back as doubles: exact below 2^53, which covers QPC timestamps,
 * thread ids and user-space addresses; readers that need all 64 bits use `u32` pairs instead
 * (no BigInt in hot paths). Every read checks the end of the range and throws a coded
 * FormatError with the absolute offset, so a corrupt length can never read past the record.
 */
export class PayloadCursor {
  pos: number;
  end: number;
  /** Strings cut to MAX_NAME_CHARS by utf16z so far, and the longest of them (code units). */
  stringsCut = 0;
  longestCut = 0;
  private view: DataView;

  constructor(
    public bytes: Uint8Array,
    start = 0,
    end = bytes.length,
    /** Absolute stream offset of bytes[0], for error messages. */
    public baseOffset = 0,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
    this.end = end;
  }

  reset(bytes: Uint8Array, view: DataView, start: number, end: number, baseOffset: number): void {
    this.bytes = bytes;
    this.view = view;
    this.pos = start;
    this.end = end;
    this.baseOffset = baseOffset;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  need(n: number, what: string): void {
    if (n < 0 || this.pos + n > this.end) {
      throw new FormatError('format/corrupt', `EventPipe record too short: ${what} needs ${n} bytes, ${this.end - this.pos} left`, {
        offset: this.baseOffset + this.pos,
      });
    }
  }

  u8(): number {
    this.need(1, 'u8');
    return this.bytes[this.pos++];
  }

  u16(): number {
    this.need(2, 'u16');
    const v = this.view.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }

  i32(): number {
    this.need(4, 'i32');
    const v = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }

  u32(): number {
    this.need(4, 'u32');
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  /** Unsigned 64-bit as a double (exact below 2^53). */
  u64(): number {
    this.need(8, 'u64');
    const lo = this.view.getUint32(this.pos, true);
    const hi = this.view.getUint32(this.pos + 4, true);
    this.pos += 8;
    return hi * 4294967296 + lo;
  }

  /** Signed 64-bit as a double. */
  i64(): number {
    this.need(8, 'i64');
    const lo = this.view.getUint32(this.pos, true);
    const hi = this.view.getInt32(this.pos + 4, true);
    this.pos += 8;
    return hi * 4294967296 + lo;
  }

  /** A pointer-sized unsigned value (4 or 8 bytes). */
  ptr(pointerSize: number): number {
    return pointerSize === 4 ? this.u32() : this.u64();
  }

  skip(n: number): void {
    this.need(n, 'field');
    this.pos += n;
  }

  /** LEB128 up to 32 bits (at most 5 bytes). */
  varUint32(): number {
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      this.need(1, 'varuint32');
      const b = this.bytes[this.pos++];
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result >>> 0;
      shift += 7;
    }
    throw new FormatError('format/corrupt', 'varuint32 longer than 5 bytes', { offset: this.baseOffset + this.pos });
  }

  /** LEB128 up to 64 bits (at most 10 bytes), as a double. */
  varUint64(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      this.need(1, 'varuint64');
      const b = this.bytes[this.pos++];
      result += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return result;
      mul *= 128;
    }
    throw new FormatError('format/corrupt', 'varuint64 longer than 10 bytes', { offset: this.baseOffset + this.pos });
  }

  /**
   * LEB128 u64 read as a two's-complement delta (values ≥ 2^63 are negative): EventPipe adds
   * timestamp deltas modulo 2^64. Exact for |delta| < 2^53.
   */
  varInt64Delta(): number {
    let lo = 0;
    let hi = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      this.need(1, 'varuint64');
      const b = this.bytes[this.pos++];
      const g = b & 0x7f;
      if (shift < 32) {
        lo |= g << shift;
        if (shift > 25) hi |= g >>> (32 - shift);
      } else hi |= g << (shift - 32);
      shift += 7;
      if ((b & 0x80) === 0) {
        if (hi & 0x80000000) {
          const nlo = (~lo + 1) >>> 0;
          return -(((~hi + (nlo === 0 ? 1 : 0)) >>> 0) * 4294967296 + nlo);
        }
        return (hi >>> 0) * 4294967296 + (lo >>> 0);
      }
    }
    throw new FormatError('format/corrupt', 'varuint64 longer than 10 bytes', { offset: this.baseOffset + this.pos });
  }

  /**
   * UTF-16LE up to a 00 00 code unit (consumed); an unterminated string is corrupt. Beyond
   * `maxChars` code units (name-cap.ts) the rest is stepped over and the value ends in
   * NAME_CUT_MARK: a name may be as long as the 64 MiB block that carries it.
   */
  utf16z(maxChars = MAX_NAME_CHARS): string {
    const bytes = this.bytes;
    let p = this.pos;
    const end = this.end - 1;
    while (p < end && (bytes[p] | bytes[p + 1]) !== 0) p += 2;
    if (p >= end) {
      throw new FormatError('format/corrupt', 'unterminated UTF-16 string', { offset: this.baseOffset + this.pos });
    }
    const units = (p - this.pos) >> 1;
    let s: string;
    if (units <= maxChars) s = decodeUtf16(bytes, this.pos, p);
    else {
      let keep = maxChars;
      const last = bytes[this.pos + 2 * keep - 2] | (bytes[this.pos + 2 * keep - 1] << 8);
      if (last >= 0xd800 && last <= 0xdbff) keep--; // no half surrogate pair before the mark
      s = decodeUtf16(bytes, this.pos, this.pos + 2 * keep) + NAME_CUT_MARK;
      this.stringsCut++;
      this.longestCut = Math.max(this.longestCut, units);
    }
    this.pos = p + 2;
    return s;
  }

  /** A 16-byte GUID in the usual 8-4-4-4-12 text form. */
  guid(): string {
    this.need(16, 'guid');
    const s = formatGuid(this.bytes, this.pos);
    this.pos += 16;
    return s;
  }
}

/** UTF-16LE code units in [start, end) as a string (no TextDecoder: shared/ has no DOM lib). */
export function decodeUtf16(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  const units: number[] = [];
  for (let p = start; p + 1 < end; p += 2) {
    units.push(bytes[p] | (bytes[p + 1] << 8));
    if (units.length === 4096) {
      s += String.fromCharCode(...units);
      units.length = 0;
    }
  }
  return s + String.fromCharCode(...units);
}

/** Windows/.NET GUID layout: u32, u16, u16 little-endian, then 8 bytes as written. */
export function formatGuid(bytes: Uint8Array, at: number): string {
  const hex = (i: number) => bytes[at + i].toString(16).padStart(2, '0');
  const le = (...idx: number[]) => idx.map(hex).join('');
  return `${le(3, 2, 1, 0)}-${le(5, 4)}-${le(7, 6)}-${le(8, 9)}-${le(10, 11, 12, 13, 14, 15)}`;
}

/** Whether 16 bytes at `at` are all zero (the common, empty activity id). */
export function isZeroGuid(bytes: Uint8Array, at: number): boolean {
  for (let i = 0; i < 16; i++) if (bytes[at + i] !== 0) return false;
  return true;
}

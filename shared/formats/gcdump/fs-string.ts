/**
 * FastSerialization strings (gcdump-format.md §2.1): `i32 charCount` (-1 = null) followed by
 * each UTF-16 code unit encoded on its own in 1–3 bytes, UTF-8 style.
 *
 * Surrogate halves are encoded separately (CESU-8-like), which a standard UTF-8 decoder rejects,
 * so both directions are written by hand. The byte length is only known after decoding.
 */

/** Decoded string plus the position after it. */
export interface FsStringResult {
  value: string | null;
  end: number;
}

/** Above this many code units a piece is flushed to the result string (bounds the scratch array). */
const PIECE = 4096;

/**
 * Decode `charCount` code units starting at `bytes[pos]` (the count prefix already consumed).
 *
 * Returns `end = -1` when the bytes run out before `charCount` units were decoded, so streaming
 * callers can fetch more and retry.
 */
export function decodeFsChars(bytes: Uint8Array, pos: number, charCount: number, limit = bytes.length): FsStringResult {
  let out = '';
  const units: number[] = [];
  for (let i = 0; i < charCount; i++) {
    if (pos >= limit) return { value: null, end: -1 };
    const b = bytes[pos];
    let unit: number;
    if (b < 0x80) {
      unit = b;
      pos += 1;
    } else if (b < 0xe0) {
      if (pos + 2 > limit) return { value: null, end: -1 };
      unit = ((b & 0x1f) << 6) | (bytes[pos + 1] & 0x3f);
      pos += 2;
    } else {
      if (pos + 3 > limit) return { value: null, end: -1 };
      unit = ((b & 0x0f) << 12) | ((bytes[pos + 1] & 0x3f) << 6) | (bytes[pos + 2] & 0x3f);
      pos += 3;
    }
    units.push(unit);
    if (units.length === PIECE) {
      out += String.fromCharCode(...units);
      units.length = 0;
    }
  }
  if (units.length > 0) out += String.fromCharCode(...units);
  return { value: out, end: pos };
}

/**
 * Step over `charCount` encoded code units from `bytes[pos]` without decoding them; the position
 * after them, or -1 when the bytes run out first (as in decodeFsChars). One byte read per unit.
 */
export function skipFsChars(bytes: Uint8Array, pos: number, charCount: number, limit = bytes.length): number {
  for (let i = 0; i < charCount; i++) {
    if (pos >= limit) return -1;
    const b = bytes[pos];
    pos += b < 0x80 ? 1 : b < 0xe0 ? 2 : 3;
  }
  return pos > limit ? -1 : pos;
}

/** Decode a whole fsstring (count prefix included) from an in-memory buffer. */
export function decodeFsString(bytes: Uint8Array, pos: number): FsStringResult {
  const count = bytes[pos] | (bytes[pos + 1] << 8) | (bytes[pos + 2] << 16) | (bytes[pos + 3] << 24);
  if (count === -1) return { value: null, end: pos + 4 };
  if (count < -1 || pos + 4 > bytes.length) return { value: null, end: -1 };
  return decodeFsChars(bytes, pos + 4, count);
}

/** Bytes the encoded characters of `s` take (without the 4-byte count). */
export function fsCharsByteLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n += c <= 0x7f ? 1 : c <= 0x7ff ? 2 : 3;
  }
  return n;
}

/** Write the characters of `s` at `out[pos]` (room must exist); returns the position after them. */
export function encodeFsChars(s: string, out: Uint8Array, pos: number): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x7f) {
      out[pos++] = c;
    } else if (c <= 0x7ff) {
      out[pos++] = 0xc0 | (c >> 6);
      out[pos++] = 0x80 | (c & 0x3f);
    } else {
      out[pos++] = 0xe0 | ((c >> 12) & 0x0f);
      out[pos++] = 0x80 | ((c >> 6) & 0x3f);
      out[pos++] = 0x80 | (c & 0x3f);
    }
  }
  return pos;
}

/** A complete fsstring (count + characters) as bytes; null encodes as count -1. */
export function encodeFsString(s: string | null): Uint8Array {
  const len = s === null ? 0 : fsCharsByteLength(s);
  const out = new Uint8Array(4 + len);
  const count = s === null ? -1 : s.length;
  out[0] = count & 0xff;
  out[1] = (count >> 8) & 0xff;
  out[2] = (count >> 16) & 0xff;
  out[3] = (count >>> 24) & 0xff;
  if (s !== null) encodeFsChars(s, out, 4);
  return out;
}

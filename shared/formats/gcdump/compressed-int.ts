/**
 * The compressed signed integer of PerfView's graph blob (gcdump-format.md §6.3).
 *
 * Base-128, most-significant group first, sign carried by bit 6 of the first byte; the fifth byte
 * (if any) holds 8 bits. This is neither LEB128 nor the NetTrace varint. The node-record decoder
 * inlines the same steps in its hot loop; these functions are the reference form, used by the
 * writer and by cold paths.
 */

/** Decoded value of the last `decodeCompressedInt` call's end position (avoids a tuple per call). */
export interface DecodeResult {
  value: number;
  /** Position just after the encoded value. */
  end: number;
}

/**
 * Decode the value starting at `bytes[pos]`.
 *
 * Reads past the end of `bytes` read as 0 (JS typed-array semantics), so callers must check
 * `end <= bytes.length` themselves when the input may be truncated.
 */
export function decodeCompressedInt(bytes: Uint8Array, pos: number, out: DecodeResult = { value: 0, end: 0 }): DecodeResult {
  let b = bytes[pos++] | 0;
  let v = (b & 0x3f) - (b & 0x40);
  if (b & 0x80) {
    b = bytes[pos++] | 0;
    v = (v << 7) + (b & 0x7f);
    if (b & 0x80) {
      b = bytes[pos++] | 0;
      v = (v << 7) + (b & 0x7f);
      if (b & 0x80) {
        b = bytes[pos++] | 0;
        v = (v << 7) + (b & 0x7f);
        if (b & 0x80) {
          b = bytes[pos++] | 0;
          v = ((v << 7) + b) | 0;
        }
      }
    }
  }
  out.value = v;
  out.end = pos;
  return out;
}

/** Bytes the shortest encoding of `v` (an i32) takes: 1–5. */
export function compressedIntLength(v: number): number {
  v |= 0;
  if (v >= -0x40 && v < 0x40) return 1;
  if (v >= -0x2000 && v < 0x2000) return 2;
  if (v >= -0x100000 && v < 0x100000) return 3;
  if (v >= -0x8000000 && v < 0x8000000) return 4;
  return 5;
}

/**
 * Write the shortest encoding of `v` (taken as an i32) at `out[pos]`; returns the position after
 * it. `out` must have room for 5 bytes.
 */
export function encodeCompressedInt(v: number, out: Uint8Array, pos: number): number {
  v |= 0;
  const n = compressedIntLength(v);
  if (n === 5) {
    out[pos++] = ((v >> 28) & 0xff) | 0x80;
    out[pos++] = ((v >> 21) & 0x7f) | 0x80;
    out[pos++] = ((v >> 14) & 0x7f) | 0x80;
    out[pos++] = ((v >> 7) & 0x7f) | 0x80;
    out[pos++] = v & 0x7f;
    return pos;
  }
  for (let shift = 7 * (n - 1); shift > 0; shift -= 7) out[pos++] = ((v >> shift) & 0x7f) | 0x80;
  out[pos++] = v & 0x7f;
  return pos;
}

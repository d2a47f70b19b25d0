import { decodeUtf8 } from '../formats/nettrace/v6-decoder.js';

/** Longest text taken by the ASCII fast path (bounded: fromCharCode.apply passes each byte as an argument). */
const ASCII_FAST_MAX = 4096;

/**
 * UTF-8 bytes [start, end) of `b` as a string; malformed sequences become U+FFFD (decodeUtf8).
 * Most texts of a dump (string values, type and field names) are short ASCII: one fromCharCode
 * call over the bytes instead of the general decoder's code-point array.
 */
export function utf8Text(b: Uint8Array, start: number, end: number): string {
  if (end - start <= ASCII_FAST_MAX) {
    let i = start;
    while (i < end && b[i] < 0x80) i++;
    if (i === end) return String.fromCharCode.apply(null, b.subarray(start, end) as unknown as number[]);
  }
  return decodeUtf8(b, start, end);
}

/** Whether bytes [start, end) are all ASCII (then the text has one UTF-16 char per byte). */
export function isAscii(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (b[i] >= 0x80) return false;
  return true;
}

import { capName, MAX_NAME_CHARS } from '../name-cap.js';

/**
 * Field access inside one heap-log line without regexes or substrings.
 *
 * A line is `buf[pos, end)`; fields are separated by spaces or tabs. Numbers are hex of up to 16
 * digits, read into two 32-bit halves (`lo`, `hi`) so 64-bit object ids never touch BigInt and
 * 32-bit ids cost nothing extra. The cursor is one reusable object per reader (no allocation per
 * line or field).
 */
export const HEX_OK = 1;
export const HEX_END = 0;
export const HEX_BAD = -1;

export class FieldCursor {
  buf: Uint8Array = new Uint8Array(0);
  /** Where the (trimmed) line begins: its record letter. */
  start = 0;
  pos = 0;
  end = 0;
  /** Low and high 32 bits of the last number read. */
  lo = 0;
  hi = 0;

  /** Point at `buf[start, end)`, trimming surrounding blanks and a trailing '\r'. */
  reset(buf: Uint8Array, start: number, end: number): void {
    while (end > start && isBlankOrCr(buf[end - 1])) end--;
    while (start < end && isBlank(buf[start])) start++;
    this.buf = buf;
    this.start = start;
    this.pos = start;
    this.end = end;
  }

  /** Nothing but blanks is left. */
  atEnd(): boolean {
    const buf = this.buf;
    let p = this.pos;
    while (p < this.end && isBlank(buf[p])) p++;
    this.pos = p;
    return p >= this.end;
  }

  /**
   * Read the next field as hex into `lo`/`hi`. False when there is no field, the field holds a
   * non-hex character, or it has more than 16 digits (the position is then unspecified).
   */
  hex(): boolean {
    return this.nextHex() === HEX_OK;
  }

  /**
   * Like `hex()` but tells the end of the line (HEX_END) from a bad field (HEX_BAD), so list
   * loops skip blanks once per field instead of twice.
   */
  nextHex(): number {
    const buf = this.buf;
    const end = this.end;
    let p = this.pos;
    while (p < end && (buf[p] === 32 || buf[p] === 9)) p++;
    if (p >= end) {
      this.pos = p;
      return HEX_END;
    }
    let lo = 0;
    let hi = 0;
    const first = p;
    while (p < end) {
      const d = HEX_DIGIT[buf[p]];
      if (d < 0) break;
      hi = ((hi << 4) | (lo >>> 28)) >>> 0;
      lo = ((lo << 4) | d) >>> 0;
      p++;
    }
    this.pos = p;
    const digits = p - first;
    if (digits === 0 || digits > 16) return HEX_BAD;
    if (p < end && buf[p] !== 32 && buf[p] !== 9) return HEX_BAD;
    this.lo = lo;
    this.hi = hi;
    return HEX_OK;
  }

  /** The last number as a double (exact below 2^53; callers that need 64 bits use lo/hi). */
  value(): number {
    return this.hi * 4294967296 + this.lo;
  }

  /** Skip one field of any content; false when none is left. */
  skipField(): boolean {
    if (this.atEnd()) return false;
    const buf = this.buf;
    let p = this.pos;
    while (p < this.end && !isBlank(buf[p])) p++;
    this.pos = p;
    return true;
  }

  /**
   * The rest of the line as text (blanks trimmed); '' when nothing is left. Capped like every
   * name (decodeText); `cut.count` counts the cut ones.
   */
  rest(cut?: { count: number }): string {
    if (this.atEnd()) return '';
    return decodeText(this.buf, this.pos, this.end, cut);
  }

  /**
   * `[start, end)` pairs of the remaining fields, for the rare records whose middle field may hold
   * blanks (AppDomain names): the caller decides from the count which field is which.
   */
  fieldRanges(out: number[]): number {
    out.length = 0;
    const buf = this.buf;
    let p = this.pos;
    const end = this.end;
    while (p < end) {
      while (p < end && isBlank(buf[p])) p++;
      if (p >= end) break;
      out.push(p);
      while (p < end && !isBlank(buf[p])) p++;
      out.push(p);
    }
    return out.length / 2;
  }
}

/** Digit value per byte, -1 for non-hex: one load per character instead of three range tests. */
export const HEX_DIGIT = (() => {
  const t = new Int8Array(256).fill(-1);
  for (let c = 0; c < 10; c++) t[48 + c] = c;
  for (let c = 0; c < 6; c++) {
    t[97 + c] = 10 + c;
    t[65 + c] = 10 + c;
  }
  return t;
})();

export function isBlank(c: number): boolean {
  return c === 32 || c === 9;
}

function isBlankOrCr(c: number): boolean {
  return c === 32 || c === 9 || c === 13;
}

/** `0x…` form of a 64-bit id given as halves (messages and UNKNOWN type names). */
export function hexId(lo: number, hi: number): string {
  return hi === 0 ? '0x' + lo.toString(16) : '0x' + hi.toString(16) + lo.toString(16).padStart(8, '0');
}

/**
 * Bytes as text: UTF-8 when valid, else Latin-1 (older Windows tools wrote the ANSI code page).
 *
 * Only names go through here (types, AppDomains: thousands, not millions), so a hand-written
 * decoder is cheap and keeps shared/ free of TextDecoder, which its ES2022-only lib lacks.
 * A name longer than MAX_NAME_CHARS (a line may be 64 MiB) is cut to it plus NAME_CUT_MARK
 * (name-cap.ts), and `cut.count` is incremented: only the first 4 × MAX_NAME_CHARS bytes are
 * decoded, moved back to the start of a UTF-8 sequence so the kept part still decodes as UTF-8
 * (4 bytes per code point at most, so they always hold more than the kept part).
 */
export function decodeText(buf: Uint8Array, start: number, end: number, cut?: { count: number }): string {
  if (end - start <= MAX_NAME_CHARS) return decodeWhole(buf, start, end);
  let to = Math.min(end, start + 4 * MAX_NAME_CHARS);
  for (let k = 0; k < 3 && to < end && (buf[to] & 0xc0) === 0x80; k++) to--;
  const text = decodeWhole(buf, start, to);
  if (text.length <= MAX_NAME_CHARS) return text;
  if (cut) cut.count++;
  return capName(text);
}

function decodeWhole(buf: Uint8Array, start: number, end: number): string {
  let ascii = true;
  for (let i = start; i < end; i++) {
    if (buf[i] >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return latin1(buf, start, end);
  return utf8(buf, start, end) ?? latin1(buf, start, end);
}

function latin1(buf: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i += 4096) {
    s += String.fromCharCode.apply(null, Array.from(buf.subarray(i, Math.min(end, i + 4096))));
  }
  return s;
}

/** Strict UTF-8 (no overlongs, no surrogates); null on any invalid sequence. */
function utf8(buf: Uint8Array, start: number, end: number): string | null {
  const codes: number[] = [];
  let i = start;
  while (i < end) {
    const b = buf[i];
    let cp: number;
    let n: number;
    let min: number;
    if (b < 0x80) {
      codes.push(b);
      i++;
      continue;
    } else if ((b & 0xe0) === 0xc0) {
      cp = b & 0x1f;
      n = 1;
      min = 0x80;
    } else if ((b & 0xf0) === 0xe0) {
      cp = b & 0x0f;
      n = 2;
      min = 0x800;
    } else if ((b & 0xf8) === 0xf0) {
      cp = b & 0x07;
      n = 3;
      min = 0x10000;
    } else {
      return null;
    }
    if (i + n >= end) return null;
    for (let k = 1; k <= n; k++) {
      const c = buf[i + k];
      if ((c & 0xc0) !== 0x80) return null;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return null;
    codes.push(cp);
    i += n + 1;
  }
  let s = '';
  for (let k = 0; k < codes.length; k += 4096) s += String.fromCodePoint(...codes.slice(k, k + 4096));
  return s;
}

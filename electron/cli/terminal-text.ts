/**
 * Names from a file are data, never terminal commands or line breaks.
 *
 * Type names, AppDomain names, file names and trace names come from the input, and a crafted file
 * can hold any code point: ESC sequences that clear the screen or retitle the window, a newline
 * that forges a second `error fake/code: ...` line on stderr or a second table row, a carriage
 * return that overwrites what was printed. Every such character in table/text output and in error
 * messages is written as a visible escape instead (`\n`, `\x1b`, `\u{202e}`), so one line stays one
 * line and the terminal only ever receives printable text. CSV and JSON keep the exact names
 * (JSON.stringify escapes U+0000–U+001F itself).
 *
 * Escaped: the C0 and C1 control characters and DEL (Unicode category Cc), the Unicode line and
 * paragraph separators, and the bidirectional overrides/isolates that can make a name display as
 * a different one. Backslashes are not doubled: Windows paths in messages stay readable, at the
 * cost that a literal backslash-n in a name looks like an escaped newline.
 */
// Cc is U+0000–U+001F and U+007F–U+009F; U+2028–U+202E are the two separators and the five
// embedding/override controls; U+2066–U+2069 the isolates. A plain (non-/u) character class:
// none of them is astral, and the scan runs for every table cell.
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');

export function escapeControl(s: string): string {
  // The common case (nothing to escape) costs one scan and no new string.
  return UNSAFE.test(s) ? s.replace(UNSAFE_ALL, escapeChar) : s;
}

function escapeChar(c: string): string {
  switch (c) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
  }
  const code = c.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

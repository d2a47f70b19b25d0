import type { ProblemCode } from '../../graph/problems.js';
import type { ByteSource } from '../../util/byte-source.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { NEVER_CANCELLED } from '../../util/cancellation.js';
import type { ProgressSink } from '../../util/progress.js';
import { decodeText, FieldCursor, isBlank } from './field-cursor.js';
import { DEFAULT_CHUNK_SIZE, LineBlocks, MAX_LINE_BYTES } from './line-blocks.js';

/**
 * One pass over a CF heap log: lines → sections (`a … c`) → records, for both the reader (which
 * wants one section's records) and the section lister (which counts every section's objects).
 *
 * Section rules (documented for users in the README):
 * - `a` starts a section; an `a` while a section is open closes it without its `c` (reported).
 * - Records before the first `a` (a log whose head was cut off), or between a `c` and the next `a`,
 *   form an unnamed section of their own, so nothing in the file is silently lost.
 * - A last line without '\n' is a cut-off record unless it is the `c` itself: it is reported and
 *   ignored rather than read as a shorter id or size.
 */
export const REC_APPDOMAIN = 0x61; // a
export const REC_END = 0x63; // c
export const REC_OBJECT = 0x6f; // o
export const REC_ROOT = 0x72; // r
export const REC_TYPE = 0x74; // t

/** What an `a` record says (or an unnamed section's placeholder). */
export interface SectionHeader {
  index: number;
  /** AppDomain name; null for an unnamed section (records outside any `a … c`). */
  name: string | null;
  version: number | null;
  /** Milliseconds since device boot (hex in the file), or null when absent. */
  timestampMs: number | null;
  line: number;
}

/** What a `c` record says. */
export interface SectionEnd {
  name: string | null;
  timestampMs: number | null;
  line: number;
}

export interface LogVisitor {
  /** A section starts; return true to receive its records. */
  begin(header: SectionHeader): boolean;
  /** A `t`, `o` or `r` record (or an unknown letter) of a section `begin` accepted; the cursor is past the letter. */
  record(letter: number, cursor: FieldCursor, line: number): void;
  /** The accepted section ended; `end` is null when the file ended or the next `a` came first. */
  end(header: SectionHeader, end: SectionEnd | null, line: number): void;
  /** A problem in an accepted section or outside every section. */
  problem(code: ProblemCode, line: number, message: string): void;
  /**
   * Optional fast path for the bulk of a log, plain object lines of an accepted section:
   * `buf[start]` is just past "o ", the line's '\n' comes before `end` if it is complete. Returns
   * the index after the '\n' when the line was taken whole, or -1 (nothing taken) to have it read
   * the general way, which also reports whatever is wrong with it.
   */
  objectLine?(buf: Uint8Array, start: number, end: number, line: number): number;
}

export interface WalkOptions {
  token?: CancellationToken;
  progress?: ProgressSink;
  chunkSize?: number;
  /** Longest line kept (default 64 MiB); tests lower it. */
  maxLineBytes?: number;
}

export interface WalkResult {
  sectionCount: number;
  lineCount: number;
  bytes: number;
}

export async function walkCfHeapLog(source: ByteSource, visitor: LogVisitor, opts: WalkOptions = {}): Promise<WalkResult> {
  const token = opts.token ?? NEVER_CANCELLED;
  const blocks = new LineBlocks(source, opts.chunkSize ?? DEFAULT_CHUNK_SIZE, token, opts.progress, opts.maxLineBytes);
  const c = new FieldCursor();
  const ranges: number[] = [];
  let line = 0;
  let sectionCount = 0;
  let open: SectionHeader | null = null;
  let wanted = false;
  const fastObjects = visitor.objectLine !== undefined;

  const close = (end: SectionEnd | null, at: number): void => {
    if (open && wanted) visitor.end(open, end, at);
    open = null;
    wanted = false;
  };
  const start = (header: SectionHeader): void => {
    open = header;
    sectionCount++;
    wanted = visitor.begin(header);
  };

  while (await blocks.next()) {
    if (blocks.overlong) {
      line++;
      if (wanted || !open) visitor.problem('malformed-record', line, `line is longer than ${opts.maxLineBytes ?? MAX_LINE_BYTES} bytes and was skipped`);
      continue;
    }
    const buf = blocks.buf;
    const blockEnd = blocks.end;
    let pos = blocks.start;
    while (pos < blockEnd) {
      // Most lines of a big log are objects of the section being read: no line split, no cursor.
      if (fastObjects && wanted && buf[pos] === REC_OBJECT && buf[pos + 1] === 32) {
        const next = visitor.objectLine!(buf, pos + 2, blockEnd, line + 1);
        if (next >= 0) {
          pos = next;
          if ((++line & 0xffff) === 0) token.throwIfCancelled();
          continue;
        }
      }
      const nl = buf.indexOf(10, pos);
      const lineEnd = nl < 0 || nl >= blockEnd ? blockEnd : nl;
      const next = lineEnd + 1;
      line++;
      if ((line & 0xffff) === 0) token.throwIfCancelled();
      c.reset(buf, pos, lineEnd);
      pos = next;
      if (c.pos >= c.end) continue; // blank line
      const letter = buf[c.pos];
      if (c.pos + 1 < c.end && !isBlank(buf[c.pos + 1])) {
        if (wanted || !open) visitor.problem('unknown-record', line, `unknown record "${preview(buf, c.pos, c.end)}"`);
        continue;
      }
      if (blocks.unterminated && lineEnd === blockEnd && letter !== REC_END) {
        if (wanted || !open) {
          visitor.problem('truncated', line, `the log ends inside this line ("${preview(buf, c.pos, c.end)}"); the partial record was ignored`);
        }
        continue;
      }
      c.pos++;
      if (letter === REC_APPDOMAIN) {
        if (open) close(null, line - 1);
        start(parseHeader(c, ranges, sectionCount, line, visitor));
      } else if (letter === REC_END) {
        const end = parseEnd(c, ranges, line);
        if (open) close(end, line);
        else visitor.problem('malformed-record', line, 'end record "c" outside any AppDomain section');
      } else {
        if (!open) {
          if (letter !== REC_OBJECT && letter !== REC_TYPE && letter !== REC_ROOT) {
            visitor.problem('unknown-record', line, `unknown record "${preview(buf, c.pos - 1, c.end)}"`);
            continue;
          }
          start({ index: sectionCount, name: null, version: null, timestampMs: null, line });
          if (wanted) visitor.problem('truncated', line, 'records outside any AppDomain section (no "a" record before them): read as an unnamed section');
        }
        if (wanted) visitor.record(letter, c, line);
      }
    }
  }
  if (open) close(null, line);
  return { sectionCount, lineCount: line, bytes: blocks.offset };
}

/** `a VERSION NAME [TIMESTAMP]`: the name may hold blanks, so the timestamp is the last field only when 3+ fields exist and it is hex. */
function parseHeader(c: FieldCursor, ranges: number[], index: number, line: number, visitor: LogVisitor): SectionHeader {
  const n = c.fieldRanges(ranges);
  let version: number | null = null;
  if (n >= 1 && c.hex()) version = c.value();
  else visitor.problem('malformed-record', line, 'AppDomain record "a" without a hex version');
  let name: string | null = null;
  let timestampMs: number | null = null;
  if (n >= 2) {
    let last = n - 1;
    if (n >= 3) {
      const ts = hexRange(c.buf, ranges[2 * last], ranges[2 * last + 1]);
      if (ts !== null) {
        timestampMs = ts;
        last--;
      }
    }
    name = decodeText(c.buf, ranges[2], ranges[2 * last + 1]);
  } else {
    visitor.problem('malformed-record', line, 'AppDomain record "a" without a name');
  }
  if (version !== null && version !== 2) {
    visitor.problem('other', line, `heap log version ${version}; only version 2 is known, reading it as version 2`);
  }
  return { index, name, version, timestampMs, line };
}

/** `c NAME [TIMESTAMP]`. */
function parseEnd(c: FieldCursor, ranges: number[], line: number): SectionEnd {
  const n = c.fieldRanges(ranges);
  if (n === 0) return { name: null, timestampMs: null, line };
  let last = n - 1;
  let timestampMs: number | null = null;
  if (n >= 2) {
    const ts = hexRange(c.buf, ranges[2 * last], ranges[2 * last + 1]);
    if (ts !== null) {
      timestampMs = ts;
      last--;
    }
  }
  return { name: decodeText(c.buf, ranges[0], ranges[2 * last + 1]), timestampMs, line };
}

/** A 1–13 digit hex field as a number (timestamps), or null. */
function hexRange(buf: Uint8Array, start: number, end: number): number | null {
  if (end - start < 1 || end - start > 13) return null;
  let v = 0;
  for (let i = start; i < end; i++) {
    const ch = buf[i];
    let d: number;
    if (ch >= 48 && ch <= 57) d = ch - 48;
    else if (ch >= 97 && ch <= 102) d = ch - 87;
    else if (ch >= 65 && ch <= 70) d = ch - 55;
    else return null;
    v = v * 16 + d;
  }
  return v;
}

/** At most 60 characters of a line for a message. */
export function preview(buf: Uint8Array, start: number, end: number): string {
  const cut = Math.min(end, start + 60);
  let s = '';
  for (let i = start; i < cut; i++) {
    const ch = buf[i];
    s += ch >= 32 && ch < 127 ? String.fromCharCode(ch) : '?';
  }
  return cut < end ? s + '…' : s;
}

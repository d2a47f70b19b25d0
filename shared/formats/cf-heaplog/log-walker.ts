import type { ProblemCode } from '../../graph/problems.js';
import type { ByteSource } from '../../util/byte-source.js';
import { SliceByteSource } from '../../util/byte-source.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { NEVER_CANCELLED } from '../../util/cancellation.js';
import type { ProgressSink } from '../../util/progress.js';
import { MAX_NAME_CHARS, NAME_CUT_MARK } from '../name-cap.js';
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
}

export async function walkCfHeapLog(source: ByteSource, visitor: LogVisitor, opts: WalkOptions = {}): Promise<WalkResult> {
  const walk = new LogWalk(visitor, opts);
  await walk.run(source, 0, source.size);
  return walk.finish();
}

/**
 * The walk's state between stretches of bytes, so a log can be walked in pieces: the reader
 * walks up to a split point, may take the next stretch as a fragment read by another thread
 * (`inWantedSection`, then `skipLines`), and walks on from where that fragment stopped; the
 * other thread walks its stretch with `enterFragment` and `stopAtBoundary`.
 */
export class LogWalk {
  line = 0;
  sectionCount = 0;
  private open: SectionHeader | null = null;
  private wanted = false;
  private readonly c = new FieldCursor();
  private readonly ranges: number[] = [];
  private readonly token: CancellationToken;
  private progress: ProgressSink | undefined;

  constructor(
    private readonly visitor: LogVisitor,
    private readonly opts: WalkOptions = {},
  ) {
    this.token = opts.token ?? NEVER_CANCELLED;
    this.progress = opts.progress;
  }

  /** Where later `run`s report bytes read (absolute offsets); undefined for none. */
  setProgress(progress: ProgressSink | undefined): void {
    this.progress = progress;
  }

  /** Inside a section whose records the visitor takes. */
  get inWantedSection(): boolean {
    return this.open !== null && this.wanted;
  }

  /** Walk as if inside a section the visitor takes, begun before these bytes (no `begin`, and no `end` is reported). */
  enterFragment(): void {
    this.open = { index: 0, name: null, version: null, timestampMs: null, line: 0 };
    this.wanted = true;
  }

  /** Lines read elsewhere (a fragment that joined): count them as walked. */
  skipLines(n: number): void {
    this.line += n;
  }

  /**
   * Walk bytes [from, to) of `source` (`from` at a line start). With `stopAtBoundary`, stop at
   * the first `a` or `c` line and return its offset (null when the bytes ran out first).
   */
  async run(source: ByteSource, from: number, to: number, stopAtBoundary = false): Promise<number | null> {
    const { visitor, opts, token, c, ranges } = this;
    const whole = from === 0 && to === source.size;
    const progress = this.progress;
    const blocks = new LineBlocks(
      whole ? source : new SliceByteSource(source, from, to),
      opts.chunkSize ?? DEFAULT_CHUNK_SIZE,
      token,
      whole || !progress ? progress : (phase, done) => progress(phase, from + done, source.size),
      opts.maxLineBytes,
    );
    const fastObjects = visitor.objectLine !== undefined;
    while (await blocks.next()) {
      if (blocks.overlong) {
        this.line++;
        if (this.wanted || !this.open) visitor.problem('malformed-record', this.line, `line is longer than ${opts.maxLineBytes ?? MAX_LINE_BYTES} bytes and was skipped`);
        continue;
      }
      const buf = blocks.buf;
      const blockEnd = blocks.end;
      let pos = blocks.start;
      while (pos < blockEnd) {
        // Most lines of a big log are objects of the section being read: no line split, no cursor.
        if (fastObjects && this.wanted && buf[pos] === REC_OBJECT && buf[pos + 1] === 32) {
          const next = visitor.objectLine!(buf, pos + 2, blockEnd, this.line + 1);
          if (next >= 0) {
            pos = next;
            if ((++this.line & 0xffff) === 0) token.throwIfCancelled();
            continue;
          }
        }
        const nl = buf.indexOf(10, pos);
        const lineEnd = nl < 0 || nl >= blockEnd ? blockEnd : nl;
        const lineStart = pos;
        pos = lineEnd + 1;
        c.reset(buf, lineStart, lineEnd);
        if (c.pos >= c.end) {
          this.line++; // blank line
          continue;
        }
        const letter = buf[c.pos];
        const boundary = (letter === REC_APPDOMAIN || letter === REC_END) && (c.pos + 1 >= c.end || isBlank(buf[c.pos + 1]));
        if (boundary && stopAtBoundary) return from + blocks.base + lineStart;
        const line = ++this.line;
        if ((line & 0xffff) === 0) token.throwIfCancelled();
        if (c.pos + 1 < c.end && !isBlank(buf[c.pos + 1])) {
          if (this.wanted || !this.open) visitor.problem('unknown-record', line, `unknown record "${preview(buf, c.pos, c.end)}"`);
          continue;
        }
        if (blocks.unterminated && lineEnd === blockEnd && letter !== REC_END) {
          if (this.wanted || !this.open) {
            visitor.problem('truncated', line, `the log ends inside this line ("${preview(buf, c.pos, c.end)}"); the partial record was ignored`);
          }
          continue;
        }
        c.pos++;
        if (letter === REC_APPDOMAIN) {
          if (this.open) this.close(null, line - 1);
          this.start(parseHeader(c, ranges, this.sectionCount, line, visitor));
        } else if (letter === REC_END) {
          const end = parseEnd(c, ranges, line);
          if (this.open) this.close(end, line);
          else visitor.problem('malformed-record', line, 'end record "c" outside any AppDomain section');
        } else {
          if (!this.open) {
            if (letter !== REC_OBJECT && letter !== REC_TYPE && letter !== REC_ROOT) {
              visitor.problem('unknown-record', line, `unknown record "${preview(buf, c.pos - 1, c.end)}"`);
              continue;
            }
            this.start({ index: this.sectionCount, name: null, version: null, timestampMs: null, line });
            if (this.wanted) visitor.problem('truncated', line, 'records outside any AppDomain section (no "a" record before them): read as an unnamed section');
          }
          if (this.wanted) visitor.record(letter, c, line);
        }
      }
    }
    return null;
  }

  /** The end of the log: an open section ends without its `c`. */
  finish(): WalkResult {
    if (this.open) this.close(null, this.line);
    return { sectionCount: this.sectionCount, lineCount: this.line };
  }

  private close(end: SectionEnd | null, at: number): void {
    if (this.open && this.wanted) this.visitor.end(this.open, end, at);
    this.open = null;
    this.wanted = false;
  }

  private start(header: SectionHeader): void {
    this.open = header;
    this.sectionCount++;
    this.wanted = this.visitor.begin(header);
  }
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
    const cut = { count: 0 };
    name = decodeText(c.buf, ranges[2], ranges[2 * last + 1], cut);
    if (cut.count > 0) visitor.problem('malformed-record', line, `the AppDomain name of ${ranges[2 * last + 1] - ranges[2]} bytes was cut to ${MAX_NAME_CHARS} characters and ends in "${NAME_CUT_MARK}"`);
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

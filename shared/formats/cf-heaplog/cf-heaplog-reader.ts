import { checkMemoryBudget } from '../../graph/memory-estimate.js';
import { AppError, FormatError } from '../../errors.js';
import type { HeapGraph } from '../../graph/heap-graph.js';
import { emptyMetadata } from '../../graph/metadata.js';
import type { ProblemCode } from '../../graph/problems.js';
import { PROBLEM_CAP } from '../../graph/problems.js';
import type { ByteSource } from '../../util/byte-source.js';
import { NEVER_CANCELLED, type CancellationToken } from '../../util/cancellation.js';
import type { ReadOptions } from '../read-options.js';
import type { FieldCursor } from './field-cursor.js';
import type { LogVisitor, SectionEnd, SectionHeader } from './log-walker.js';
import { LogWalk, REC_OBJECT, walkCfHeapLog } from './log-walker.js';
import { appendFragment, fragmentOf, type SectionFragment } from './section-fragment.js';
import { SectionGraph } from './section-graph.js';

/**
 * Reader for the .NET Compact Framework / XNA Remote Performance Monitor GC heap logs ("CF heap
 * log v2": text, one record per line, hex numbers; see README "Compact Framework heap logs").
 *
 * Each AppDomain section (`a … c`) is its own snapshot. `readCfHeapLog` reads the one chosen by
 * `opts.select` (an AppDomain name, or a 0-based section index when the value is all digits;
 * default the first section) and still scans the rest of the file for the section count, which
 * costs one memchr per line. `listCfHeapLogSections` is the cheap listing of all sections.
 *
 * The graph: "[CF Roots]" (the last node) → root categories (root-categories.ts) → objects. The address
 * column holds each object's id from the log (the log has no addresses). No generation data.
 * Timestamps are milliseconds since device boot (GetTickCount), so durations use 32-bit wrap-around.
 */
export interface CfHeapLogReadOptions extends ReadOptions {
  /** Bytes per read (default 4 MiB); tests use tiny sizes to exercise lines split across chunks. */
  chunkSize?: number;
  /** Longest line read (default 64 MiB, always above chunkSize in practice); longer ones are skipped with a problem. */
  maxLineBytes?: number;
  /**
   * With a stretchReader: the line start where the second thread begins (tests choose it);
   * default a line start near the middle, for files of PARALLEL_MIN_BYTES or more.
   */
  splitAt?: number;
}

/** Below this, a second thread costs more to start (~0.1 s) than it saves. */
export const PARALLEL_MIN_BYTES = 32 * 1024 * 1024;

export interface CfHeapLogSection {
  index: number;
  /** AppDomain name; null for records outside any `a … c` (a log whose head was cut off). */
  name: string | null;
  startMs: number | null;
  endMs: number | null;
  /** `o` records in the section. */
  objects: number;
}

export const CF_HEAPLOG_VERSION = 'CF heap log v2';

type Selector = { index: number } | { name: string };

function parseSelector(select: string | undefined): Selector {
  if (select === undefined || select === '') return { index: 0 };
  return /^\d+$/.test(select) ? { index: Number(select) } : { name: select };
}

/** Milliseconds from start to end on the device's 32-bit tick counter (it wraps every 49.7 days). */
export function elapsedMs(start: number, end: number): number {
  return end >= start ? end - start : end + 4294967296 - start;
}

export async function readCfHeapLog(source: ByteSource, opts: CfHeapLogReadOptions = {}): Promise<HeapGraph> {
  const token = opts.token ?? NEVER_CANCELLED;
  const selector = parseSelector(opts.select);
  // Object lines run ~25–40 bytes; the hint only sizes the section's first column allocations.
  const expected = source.size > 0 ? Math.min(Math.floor(source.size / 32), 1 << 24) : 0;
  let graph: SectionGraph | null = null;
  let chosen: SectionHeader | null = null;
  let ending: SectionEnd | null = null;
  // Problems outside every section, met before the chosen one: kept (capped) until its graph exists.
  let fileProblems: { code: ProblemCode; line: number; message: string }[] = [];
  const fileProblemsOverCap: Partial<Record<ProblemCode, number>> = {};
  const names: (string | null)[] = [];

  const visitor: LogVisitor = {
    begin(header) {
      names.push(header.name);
      if (chosen) return false;
      const hit = 'index' in selector ? header.index === selector.index : header.name === selector.name;
      if (!hit) return false;
      chosen = header;
      graph = new SectionGraph(expected, opts.sharedMemory === true);
      for (const p of fileProblems) graph.problem(p.code, p.line, p.message);
      for (const [code, n] of Object.entries(fileProblemsOverCap) as [ProblemCode, number][]) {
        graph.problemsOverCap(code, n, `${n} more "${code}" problems before this section`);
      }
      fileProblems = [];
      return true;
    },
    record(letter: number, c: FieldCursor, line: number) {
      graph!.record(letter, c, line);
    },
    objectLine(buf: Uint8Array, start: number, end: number, line: number) {
      return graph!.objectLine(buf, start, end, line);
    },
    end(header, end, line) {
      ending = end;
      const g = graph!;
      if (!end) {
        g.problem('truncated', line, `AppDomain section ${label(header)} has no end record "c" (the log was cut off?)`);
      } else if (header.name !== null && end.name !== header.name) {
        g.problem('malformed-record', end.line, `end record names "${end.name ?? ''}" but the section began as "${header.name}"`);
      }
    },
    problem(code, line, message) {
      if (graph) graph.problem(code, line, message);
      else if (fileProblems.length < PROBLEM_CAP) fileProblems.push({ code, line, message });
      else fileProblemsOverCap[code] = (fileProblemsOverCap[code] ?? 0) + 1;
    },
  };
  const walk = new LogWalk(visitor, { token, progress: opts.progress, chunkSize: opts.chunkSize, maxLineBytes: opts.maxLineBytes });
  const split = opts.stretchReader ? await splitPoint(source, opts) : null;
  if (split === null) {
    await walk.run(source, 0, source.size);
  } else {
    await walkSplit(walk, source, split, opts, token, () => graph);
  }
  const walked = walk.finish();

  const g = graph as SectionGraph | null;
  const header = chosen as SectionHeader | null;
  if (!g || !header) {
    if (walked.sectionCount === 0) {
      throw new FormatError('format/corrupt', `${source.name} holds no Compact Framework heap log records`, { offset: 0 });
    }
    const list = names.map((n, i) => `${i}: ${n ?? '(unnamed)'}`).join(', ');
    throw new AppError('usage/bad-argument', `${source.name} has no AppDomain section "${opts.select}" (sections: ${list})`);
  }
  const endRecord = ending as SectionEnd | null;
  const meta = emptyMetadata('cf-heaplog');
  meta.formatVersion = CF_HEAPLOG_VERSION;
  meta.processName = header.name;
  meta.pointerSize = 4;
  // Keys absent when the log lacks them (an unnamed section, a missing timestamp or end record).
  const extra: Record<string, string | number> = {};
  if (header.name !== null) extra.appDomain = header.name;
  if (header.timestampMs !== null) extra.startTimestampMs = header.timestampMs;
  if (endRecord?.timestampMs != null) extra.endTimestampMs = endRecord.timestampMs;
  if (header.timestampMs !== null && endRecord?.timestampMs != null) {
    extra.durationMs = elapsedMs(header.timestampMs, endRecord.timestampMs);
  }
  extra.sectionIndex = header.index;
  extra.sectionCount = walked.sectionCount;
  meta.extra = extra;
  // Objects, plus a little room for undescribed ids and the root pseudo-nodes; references and roots.
  const nodes = g.objectCount + Math.ceil(g.objectCount / 1000) + 64;
  const edges = g.refs.length + g.roots.length + 64;
  // The graph's size is known only after the parse here; the columns and the analyses are still to come.
  checkMemoryBudget(source.name, nodes, edges, opts.memoryBudget);
  opts.sizeHint?.(nodes, edges);
  return g.finish(meta, token, opts.progress, opts.sharedMemory === true);
}

function label(h: SectionHeader): string {
  return h.name === null ? `#${h.index} (unnamed)` : `#${h.index} "${h.name}"`;
}

/** Every section with its name, timestamps and object count: one pass, no graph. */
export async function listCfHeapLogSections(source: ByteSource, opts: CfHeapLogReadOptions = {}): Promise<CfHeapLogSection[]> {
  const sections: CfHeapLogSection[] = [];
  let current: CfHeapLogSection | null = null;
  const visitor: LogVisitor = {
    begin(header) {
      current = { index: header.index, name: header.name, startMs: header.timestampMs, endMs: null, objects: 0 };
      sections.push(current);
      return true;
    },
    record(letter: number) {
      if (letter === REC_OBJECT) current!.objects++;
    },
    end(_header, end) {
      if (end) current!.endMs = end.timestampMs;
    },
    problem() {},
  };
  await walkCfHeapLog(source, visitor, { token: opts.token, progress: opts.progress, chunkSize: opts.chunkSize });
  return sections;
}

/**
 * Walk the whole source while another thread reads the stretch from `split` on: it joins the
 * section being read if the walk is inside that section when it gets there
 * (section-fragment.ts). A function of its own so the fragment's arrays are garbage as soon as
 * they have joined, before the section's ids are resolved.
 */
async function walkSplit(walk: LogWalk, source: ByteSource, split: number, opts: CfHeapLogReadOptions, token: CancellationToken, section: () => SectionGraph | null): Promise<void> {
  let theirs = 0;
  let mine = 0;
  const progress = opts.progress;
  const tell = () => progress?.('parse', Math.min(source.size, mine + theirs), source.size);
  walk.setProgress(progress ? (_, done) => ((mine = done), tell()) : undefined);
  const tail = opts.stretchReader!({ format: 'cf-heaplog', from: split, chunkSize: opts.chunkSize, maxLineBytes: opts.maxLineBytes }, token, (bytes) => {
    theirs = bytes;
    tell();
  });
  // a failed helper thread is no error: the stretch is then read here (and never unhandled)
  const fragment = tail.result.catch(() => null);
  let resumeAt = split;
  try {
    await walk.run(source, 0, split);
    const g = section();
    if (walk.inWantedSection && g) {
      const f = await fragment;
      token.throwIfCancelled();
      if (f) {
        appendFragment(g, f, walk.line);
        walk.skipLines(f.lines);
        resumeAt = f.end;
      }
    }
  } finally {
    tail.cancel();
  }
  walk.setProgress(progress);
  await walk.run(source, resumeAt, source.size);
}

/** A line start at or after the middle of the source (null when the file is small or the middle line is overlong). */
async function splitPoint(source: ByteSource, opts: CfHeapLogReadOptions): Promise<number | null> {
  if (opts.splitAt !== undefined) return opts.splitAt > 0 && opts.splitAt < source.size ? opts.splitAt : null;
  if (source.size < PARALLEL_MIN_BYTES) return null;
  const mid = Math.floor(source.size / 2);
  const window = await source.read(mid - 1, 64 * 1024);
  const nl = window.indexOf(10);
  return nl < 0 || mid + nl >= source.size ? null : mid + nl;
}

/**
 * The other thread's part of a split read (see readCfHeapLog): the records from `from` (a line
 * start) up to the first `a`/`c` line or the end, as if inside the section being read there.
 */
export async function readCfHeapLogFragment(source: ByteSource, from: number, opts: CfHeapLogReadOptions = {}): Promise<SectionFragment> {
  const g = new SectionGraph(Math.min(Math.floor((source.size - from) / 32), 1 << 24));
  const visitor: LogVisitor = {
    begin: () => false,
    record: (letter, c, line) => g.record(letter, c, line),
    objectLine: (buf, start, end, line) => g.objectLine(buf, start, end, line),
    end() {},
    problem: (code, line, message) => g.problem(code, line, message),
  };
  const walk = new LogWalk(visitor, { token: opts.token, progress: opts.progress, chunkSize: opts.chunkSize, maxLineBytes: opts.maxLineBytes });
  walk.enterFragment();
  const stop = await walk.run(source, from, source.size, true);
  return fragmentOf(g, walk.line, stop ?? source.size);
}

import { NONE } from '../../graph/heap-graph.js';
import type { ProblemCode } from '../../graph/problems.js';
import type { GrowableUint32Array, GrowableUint8Array } from '../../util/growable-array.js';
import { hexId } from './field-cursor.js';
import type { IdColumn } from './id-resolution.js';
import type { ProblemsDump } from './line-problems.js';
import type { SectionGraph } from './section-graph.js';

/**
 * A stretch of one section's records read by another thread, and how it joins the section.
 *
 * Why: reading a big log is one thread's work (~1.1–1.5 s of the 5M-object benchmark log's ~2.5
 * s), while the second core idles until the analysis starts. So the reader splits the file at a
 * line start near the middle; another thread reads from there up to the next `a`/`c` line into a
 * SectionGraph of its own (`fragmentOf`), and when the reader's own walk reaches the split point
 * inside the section it is reading, the fragment joins it (`appendFragment`) and the walk goes on
 * where the fragment stopped. The result is the graph a sequential read gives, bit for bit (the
 * tests compare every column, type and problem for every split point of many logs):
 * - records append in file order; the fragment's line numbers shift by the lines before it;
 * - its type indices are its own, assigned in order of first sight: mapped in that order through
 *   the section's table, they get exactly the indices a sequential read assigns;
 * - a `t` record in the fragment that names a type the section had already named is the
 *   'duplicate-id' problem a sequential read reports there (the first name stays);
 * - its problems are re-added after the section's, as the same adds would have been (caps included).
 * Cost of the join: one pass over the fragment's columns (a copy; the arrays arrive transferred).
 */
export interface SectionFragment {
  /** Lines walked (counted from the fragment's first line), and where the walk stopped: an `a`/`c` line, or the end. */
  lines: number;
  end: number;
  objects: number;
  idLo: Uint32Array;
  idHi: Uint32Array | null;
  nodeType: Uint32Array;
  selfSize: Uint32Array;
  edgeStart: Uint32Array;
  line: Uint32Array;
  refCount: number;
  refLo: Uint32Array;
  refHi: Uint32Array | null;
  rootCount: number;
  rootLo: Uint32Array;
  rootHi: Uint32Array | null;
  rootKind: Uint8Array;
  rootFlags: Uint8Array;
  rootContainer: Uint32Array;
  rootLine: Uint32Array;
  /** The fragment's type table; index 0 is UNDEFINED. */
  typeLo: number[];
  typeHi: number[];
  typeName: string[];
  typeDescribed: boolean[];
  typeLine: number[];
  typeNamedAt: number[];
  increasing: boolean;
  problems: ProblemsDump;
}

/** A graph read from a fragment's stretch (see LogWalk.enterFragment) as a SectionFragment. */
export function fragmentOf(g: SectionGraph, lines: number, end: number): SectionFragment {
  return {
    lines,
    end,
    objects: g.ids.length,
    idLo: g.ids.lo.raw,
    idHi: g.ids.hi?.raw ?? null,
    nodeType: g.nodeType.raw,
    selfSize: g.selfSize.raw,
    edgeStart: g.edgeStart.raw,
    line: g.line.raw,
    refCount: g.refs.length,
    refLo: g.refs.lo.raw,
    refHi: g.refs.hi?.raw ?? null,
    rootCount: g.roots.length,
    rootLo: g.roots.ids.lo.raw,
    rootHi: g.roots.ids.hi?.raw ?? null,
    rootKind: g.roots.kind.raw,
    rootFlags: g.roots.flags.raw,
    rootContainer: g.roots.container.raw,
    rootLine: g.roots.line.raw,
    typeLo: g.typeLo,
    typeHi: g.typeHi,
    typeName: g.typeName,
    typeDescribed: g.typeDescribed,
    typeLine: g.typeLine,
    typeNamedAt: g.typeNamedAt,
    increasing: g.increasing,
    problems: g.problems.dump(),
  };
}

/** Append a fragment read elsewhere to `g`: its records follow g's, `lineOffset` lines on. */
export function appendFragment(g: SectionGraph, f: SectionFragment, lineOffset: number): void {
  // Types, in the fragment's order of first sight.
  const typeMap = new Uint32Array(f.typeLo.length);
  const late: { code: ProblemCode; line: number; message: string }[] = [];
  for (let t = 1; t < f.typeLo.length; t++) {
    const u = g.typeIndex(f.typeLo[t], f.typeHi[t], f.typeLine[t] + lineOffset);
    typeMap[t] = u;
    if (!f.typeDescribed[t]) continue;
    const at = f.typeNamedAt[t] + lineOffset;
    if (g.typeDescribed[u]) {
      const message = `type ${hexId(f.typeLo[t], f.typeHi[t])} is described again ("${f.typeName[t]}"); the first name is kept`;
      late.push({ code: 'duplicate-id', line: at, message });
    } else {
      g.typeDescribed[u] = true;
      g.typeName[u] = f.typeName[t];
      g.typeNamedAt[u] = at;
    }
  }
  late.sort((a, b) => a.line - b.line);

  // Objects: ids, then the per-object columns.
  const n = f.objects;
  if (n > 0) {
    const firstHi = f.idHi ? f.idHi[0] : 0;
    const before = g.ids.length > 0 && (firstHi < g.prevHi || (firstHi === g.prevHi && f.idLo[0] <= g.prevLo));
    g.increasing = g.increasing && f.increasing && !before;
    g.prevLo = f.idLo[n - 1];
    g.prevHi = f.idHi ? f.idHi[n - 1] : 0;
  }
  appendIds(g.ids, f.idLo, f.idHi, n);
  appendMapped(g.nodeType, f.nodeType, n, typeMap);
  appendShifted(g.selfSize, f.selfSize, n, 0);
  appendShifted(g.edgeStart, f.edgeStart, n, g.refs.length);
  appendShifted(g.line, f.line, n, lineOffset);
  appendIds(g.refs, f.refLo, f.refHi, f.refCount);

  const roots = g.roots;
  const k = f.rootCount;
  appendIds(roots.ids, f.rootLo, f.rootHi, k);
  appendBytes(roots.kind, f.rootKind, k);
  appendBytes(roots.flags, f.rootFlags, k);
  const container = roots.container;
  container.reserve(k);
  for (let i = 0; i < k; i++) container.push(f.rootContainer[i] === NONE ? NONE : typeMap[f.rootContainer[i]]);
  appendShifted(roots.line, f.rootLine, k, lineOffset);

  g.problems.append(f.problems, lineOffset, late);
}

function appendIds(to: IdColumn, lo: Uint32Array, hi: Uint32Array | null, n: number): void {
  const at = to.length;
  if (hi !== null) to.withHigh();
  appendShifted(to.lo, lo, n, 0);
  if (to.hi === null) return;
  to.hi.length = at;
  if (hi === null) {
    to.hi.reserve(n);
    to.hi.raw.fill(0, at, at + n);
    to.hi.length = at + n;
  } else {
    appendShifted(to.hi, hi, n, 0);
  }
}

function appendShifted(to: GrowableUint32Array, from: Uint32Array, n: number, add: number): void {
  to.reserve(n);
  const at = to.length;
  const raw = to.raw;
  if (add === 0) raw.set(from.subarray(0, n), at);
  else for (let i = 0; i < n; i++) raw[at + i] = from[i] + add;
  to.length = at + n;
}

function appendMapped(to: GrowableUint32Array, from: Uint32Array, n: number, map: Uint32Array): void {
  to.reserve(n);
  const at = to.length;
  const raw = to.raw;
  for (let i = 0; i < n; i++) raw[at + i] = map[from[i]];
  to.length = at + n;
}

function appendBytes(to: GrowableUint8Array, from: Uint8Array, n: number): void {
  to.reserve(n);
  to.raw.set(from.subarray(0, n), to.length);
  to.length += n;
}

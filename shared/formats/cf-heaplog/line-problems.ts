import type { ProblemCode } from '../../graph/problems.js';
import { PROBLEM_CAP, ProblemList } from '../../graph/problems.js';

/**
 * A CF log section's problems, spelled "line N: …" and kept in line order although some are
 * only found after the whole section is read (a duplicate object id needs every id resolved).
 *
 * Like ProblemList, at most PROBLEM_CAP messages are kept and every problem is counted. Problems
 * found while streaming arrive in line order; `insertInLineOrder` merges the late ones among them
 * (on the same line the streaming one stays first); problems added after that (unresolved types,
 * dangling ids) go at the end, as the reader reports them after the records.
 * Memory: the kept messages only.
 */
interface Entry {
  code: ProblemCode;
  /** 0 for a message that stands for problems outside this section (addMany): not numbered. */
  line: number;
  /** Without the "line N: " prefix, which merged() adds, so a fragment read elsewhere can be renumbered. */
  message: string;
  n: number;
}

/** A fragment's problems (lines counted from the fragment's start), to append to a section's. */
export interface ProblemsDump {
  entries: { code: ProblemCode; line: number; message: string }[];
  overflow: Partial<Record<ProblemCode, number>>;
}

export class LineProblems {
  /** Kept messages; `n` > 1 for one message that stands for n problems (addMany). */
  private entries: Entry[] = [];
  /** Problems counted but not spelled, per code. */
  private overflow: Partial<Record<ProblemCode, number>> = {};

  /** Whether the next problem's message will be kept (callers skip formatting when not). */
  get spells(): boolean {
    return this.entries.length < PROBLEM_CAP;
  }

  add(code: ProblemCode, line: number, message: string): void {
    if (this.spells) this.entries.push({ code, line, message, n: 1 });
    else this.count(code, 1);
  }

  /** `n` problems counted elsewhere (before this section), beyond the cap. */
  addMany(code: ProblemCode, n: number, message: string): void {
    if (n <= 0) return;
    if (this.spells) this.entries.push({ code, line: 0, message, n });
    else this.count(code, n);
  }

  /** Merge problems found late, sorted by line, plus `unspelled` more of the same code. */
  insertInLineOrder(code: ProblemCode, late: readonly { line: number; message: string }[], unspelled = 0): void {
    const merged: Entry[] = [];
    let i = 0;
    for (const p of late) {
      while (i < this.entries.length && this.entries[i].line <= p.line) merged.push(this.entries[i++]);
      merged.push({ code, line: p.line, message: p.message, n: 1 });
    }
    while (i < this.entries.length) merged.push(this.entries[i++]);
    for (const p of merged.slice(PROBLEM_CAP)) this.count(p.code, p.n);
    this.entries = merged.slice(0, PROBLEM_CAP);
    this.count(code, unspelled);
  }

  /** Everything as a ProblemList: kept messages in order, then the counts of the rest. */
  merged(): ProblemList {
    const list = new ProblemList();
    for (const p of this.entries) list.addMany(p.code, p.n, p.line > 0 ? `line ${p.line}: ${p.message}` : p.message);
    for (const [code, n] of Object.entries(this.overflow) as [ProblemCode, number][]) list.addMany(code, n, '');
    return list;
  }

  /** The problems of a fragment read on its own (no addMany, no late inserts), to move to another thread. */
  dump(): ProblemsDump {
    return { entries: this.entries.map((p) => ({ code: p.code, line: p.line, message: p.message })), overflow: { ...this.overflow } };
  }

  /**
   * Append a fragment's problems as if they had been added here, in order, `lineOffset` lines
   * on, plus `late` ones (found only when the fragment joins: sorted by line) among them. Kept
   * and counted exactly as the same adds would have been: the fragment kept at least as many
   * messages as this list still has room for.
   */
  append(d: ProblemsDump, lineOffset: number, late: readonly { code: ProblemCode; line: number; message: string }[]): void {
    let i = 0;
    for (const p of d.entries) {
      while (i < late.length && late[i].line <= p.line + lineOffset) this.add(late[i].code, late[i].line, late[i++].message);
      this.add(p.code, p.line + lineOffset, p.message);
    }
    while (i < late.length) this.add(late[i].code, late[i].line, late[i++].message);
    for (const [code, n] of Object.entries(d.overflow) as [ProblemCode, number][]) this.count(code, n);
  }

  private count(code: ProblemCode, n: number): void {
    if (n > 0) this.overflow[code] = (this.overflow[code] ?? 0) + n;
  }
}

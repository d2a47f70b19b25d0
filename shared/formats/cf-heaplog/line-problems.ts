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
  line: number;
  message: string;
  n: number;
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
    if (this.spells) this.entries.push({ code, line, message: `line ${line}: ${message}`, n: 1 });
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
      merged.push({ code, line: p.line, message: `line ${p.line}: ${p.message}`, n: 1 });
    }
    while (i < this.entries.length) merged.push(this.entries[i++]);
    for (const p of merged.slice(PROBLEM_CAP)) this.count(p.code, p.n);
    this.entries = merged.slice(0, PROBLEM_CAP);
    this.count(code, unspelled);
  }

  /** Everything as a ProblemList: kept messages in order, then the counts of the rest. */
  merged(): ProblemList {
    const list = new ProblemList();
    for (const p of this.entries) list.addMany(p.code, p.n, p.message);
    for (const [code, n] of Object.entries(this.overflow) as [ProblemCode, number][]) list.addMany(code, n, '');
    return list;
  }

  private count(code: ProblemCode, n: number): void {
    if (n > 0) this.overflow[code] = (this.overflow[code] ?? 0) + n;
  }
}

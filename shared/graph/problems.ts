/**
 * Data problems found while reading a snapshot: recoverable, reported, never thrown.
 *
 * Like DevTools' HeapSnapshotProblemReport the message list is capped (100), but every problem is
 * still counted per code, so "13,135 dangling references" stays exact even when only the first
 * hundred are spelled out.
 */

export type ProblemCode =
  | 'dangling-reference'
  | 'unknown-type'
  | 'undefined-node'
  | 'duplicate-node'
  | 'duplicate-id'
  | 'size-overflow'
  | 'size-mismatch'
  | 'malformed-record'
  | 'unknown-record'
  | 'truncated'
  | 'node-cap-reached'
  | 'unresolved-type'
  | 'other';

export interface Problem {
  code: ProblemCode;
  message: string;
}

export interface ProblemReport {
  /** The first `cap` problems, in the order found. */
  readonly entries: readonly Problem[];
  /** How many problems of each code were found (not capped). */
  readonly counts: Readonly<Partial<Record<ProblemCode, number>>>;
  readonly total: number;
}

export const PROBLEM_CAP = 100;

export class ProblemList implements ProblemReport {
  readonly entries: Problem[] = [];
  readonly counts: Partial<Record<ProblemCode, number>> = {};
  total = 0;

  constructor(private readonly cap = PROBLEM_CAP) {}

  add(code: ProblemCode, message: string): void {
    this.total++;
    this.counts[code] = (this.counts[code] ?? 0) + 1;
    if (this.entries.length < this.cap) this.entries.push({ code, message });
  }

  /** Count `n` problems of one kind at once with a single summary message. */
  addMany(code: ProblemCode, n: number, message: string): void {
    if (n <= 0) return;
    this.total += n;
    this.counts[code] = (this.counts[code] ?? 0) + n;
    if (this.entries.length < this.cap) this.entries.push({ code, message });
  }

  snapshot(): ProblemReport {
    return { entries: this.entries.slice(), counts: { ...this.counts }, total: this.total };
  }
}

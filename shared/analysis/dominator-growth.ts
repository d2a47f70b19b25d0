import { AppError } from '../errors.js';
import type { RetainerSnapshot } from './dominator-signatures.js';

/**
 * Growth suspects at dominator level over N ≥ 2 snapshots of one process, oldest first: the
 * retainers of each snapshot (dominator-signatures.ts), matched by signature (a heuristic
 * identity, see there), compared.
 *
 * Per signature: `retained[i]` = its retained size in snapshot i, 0 where it is absent (not in
 * the snapshot, or under the threshold there); `growth` = last − first; `growingSteps` = how many
 * of the N − 1 steps i → i + 1 have retained[i + 1] > retained[i]; `steadiness` =
 * growingSteps / (N − 1); `slope` = least-squares slope of retained over the snapshot index
 * 0 … N − 1, in bytes per snapshot. Listed: signatures with growth > 0, ranked two ways —
 * by growth (desc; ties: shallower first, then signature) and by steadiness (desc; ties: slope
 * desc, growth desc, signature). A growing collection shows with each of its dominators up the
 * chain (each is one row, at its own depth): the shallowest is the top-level retainer.
 * Cost: O(Σ entries) with one map keyed by signature (bounded by the entries, not the heap).
 */
export interface DominatorTrendRow {
  signature: string;
  path: string[];
  /** The type name in the newest snapshot that has the retainer. */
  type: string;
  depth: number;
  retained: number[];
  present: boolean[];
  growth: number;
  growingSteps: number;
  steadiness: number;
  slope: number;
  /** 1-based rank by growth and by steadiness. */
  growthRank: number;
  steadinessRank: number;
  /** The node (ordinal) and address in the last snapshot, or null when absent there. */
  lastNode: number | null;
  lastAddress: string | null;
}

export interface DominatorTrend {
  labels: string[];
  minBytes: number[];
  /** Distinct signatures seen in any snapshot. */
  retainersSeen: number;
  /** Rows with growth > 0, by growth rank. */
  rows: DominatorTrendRow[];
}

export type DominatorTrendSort = 'growth' | 'steadiness';

export function dominatorGrowth(snapshots: readonly RetainerSnapshot[]): DominatorTrend {
  const k = snapshots.length;
  if (k < 2) throw new AppError('usage/bad-argument', `a trend needs at least 2 snapshots (got ${k})`);
  const series = new Map<string, { path: string[]; type: string; depth: number; retained: number[]; present: boolean[]; lastNode: number | null; lastAddress: string | null }>();
  snapshots.forEach((s, i) => {
    for (const e of s.entries) {
      let r = series.get(e.signature);
      if (!r) {
        r = { path: e.path, type: e.type, depth: e.depth, retained: new Array<number>(k).fill(0), present: new Array<boolean>(k).fill(false), lastNode: null as number | null, lastAddress: null as string | null };
        series.set(e.signature, r);
      }
      r.type = e.type; // the newest name: a type name's size bucket can change (dominator-signatures.ts)
      r.retained[i] = e.retained;
      r.present[i] = true;
      if (i === k - 1) {
        r.lastNode = e.node;
        r.lastAddress = e.address;
      }
    }
  });
  const rows: DominatorTrendRow[] = [];
  for (const [signature, r] of series) {
    const growth = r.retained[k - 1] - r.retained[0];
    if (!(growth > 0)) continue;
    let growingSteps = 0;
    for (let i = 1; i < k; i++) if (r.retained[i] > r.retained[i - 1]) growingSteps++;
    rows.push({ signature, ...r, growth, growingSteps, steadiness: growingSteps / (k - 1), slope: leastSquaresSlope(r.retained), growthRank: 0, steadinessRank: 0 });
  }
  const bySig = (a: DominatorTrendRow, b: DominatorTrendRow) => (a.signature < b.signature ? -1 : a.signature > b.signature ? 1 : 0);
  rows.sort((a, b) => b.steadiness - a.steadiness || b.slope - a.slope || b.growth - a.growth || bySig(a, b));
  rows.forEach((r, i) => (r.steadinessRank = i + 1));
  rows.sort((a, b) => b.growth - a.growth || a.depth - b.depth || bySig(a, b));
  rows.forEach((r, i) => (r.growthRank = i + 1));
  return { labels: snapshots.map((s) => s.label), minBytes: snapshots.map((s) => s.minBytes), retainersSeen: series.size, rows };
}

/** The rows in the order of one ranking (a copy). */
export function rankedBy(rows: readonly DominatorTrendRow[], sort: DominatorTrendSort): DominatorTrendRow[] {
  const copy = rows.slice();
  return sort === 'growth' ? copy.sort((a, b) => a.growthRank - b.growthRank) : copy.sort((a, b) => a.steadinessRank - b.steadinessRank);
}

/** Least-squares slope of values over x = 0 … n − 1 (0 for fewer than 2 values). */
export function leastSquaresSlope(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return 0;
  const mx = (n - 1) / 2;
  let my = 0;
  for (const v of values) my += v;
  my /= n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (i - mx) * (values[i] - my);
    den += (i - mx) * (i - mx);
  }
  return num / den;
}

import { dominatorGrowth } from '../analysis/dominator-growth.js';
import type { RetainerSnapshot } from '../analysis/dominator-signatures.js';
import type { TypeSummary } from '../analysis/type-summary.js';
import { AppError } from '../errors.js';
import { MAX_DOMINATOR_TREND_ROWS, type DominatorTrendResult } from '../ipc/dtos-growth.js';
import type { SessionId } from '../ipc/contract.js';

/**
 * The Trend view's Dominators mode (the CLI's `trend --dominators`): main gathers each session's
 * retainers (computed in its own worker, bounded by the threshold) and its type summary (for the
 * snapshot labels and totals, as the type trend), and matches them here by signature:
 * O(Σ retainers). At most MAX_DOMINATOR_TREND_ROWS rows cross, the top ones by growth.
 */
export function dominatorTrendOf(snapshots: readonly { sessionId: SessionId; summary: TypeSummary; retainers: RetainerSnapshot }[]): DominatorTrendResult {
  const ids = snapshots.map((s) => s.sessionId);
  if (new Set(ids).size !== ids.length) throw new AppError('usage/bad-argument', 'a trend needs distinct snapshots (one session was given twice)');
  const empty = snapshots.find((s) => s.summary.totalCount === 0);
  if (empty) throw new AppError('usage/bad-argument', `${empty.summary.label} has no heap objects (a GC-only trace or an empty snapshot): a trend needs snapshots with objects`);
  const t = dominatorGrowth(snapshots.map((s) => s.retainers));
  return {
    snapshots: snapshots.map(({ sessionId, summary: s }) => ({ sessionId, label: s.label, timeCollected: s.timeCollected, totalCount: s.totalCount, totalRetained: s.totalRetained })),
    minBytes: snapshots[0].retainers.minBytes,
    maxDepth: snapshots[0].retainers.maxDepth,
    retainersSeen: t.retainersSeen,
    growing: t.rows.length,
    rows: t.rows.slice(0, MAX_DOMINATOR_TREND_ROWS),
  };
}

import type { SessionId } from './dtos-session.js';
import type { TrendSnapshotDto } from './dtos-views.js';

/**
 * Growth suspects at dominator level over open sessions (issue 16; the CLI's
 * `trend --dominators`): each session reduces itself to its retainers (big dominators named by
 * their dominator chain, a heuristic identity: shared/analysis/dominator-signatures.ts) in its own
 * worker, main matches them by signature. Waits for the analysis of each session.
 */
export interface TrendDominatorsReq {
  /** 2–32 distinct sessions, oldest first; each must have heap objects. */
  sessionIds: SessionId[];
  /**
   * Retainers retain at least this many bytes (default: 0.01% of the first session's reachable
   * bytes, at least 1 KiB). At least 1,024: the retainers of each session cross from its worker
   * to main, up to reachable / minBytes of them per level.
   */
  minBytes?: number;
  /** Dominator-tree levels walked below the root (default 8, at most 64). */
  maxDepth?: number;
}

export interface DominatorTrendRowDto {
  signature: string;
  /** The signature's segments, root side first. */
  path: string[];
  /** Type name in the newest snapshot that has the retainer. */
  type: string;
  depth: number;
  /** One value per snapshot, in the order of `snapshots` (0 where absent or under the threshold). */
  retained: number[];
  present: boolean[];
  /** Last − first. */
  growth: number;
  /** Steps i → i + 1 whose retained size grew, of snapshots.length − 1. */
  growingSteps: number;
  /** growingSteps / (snapshots − 1). */
  steadiness: number;
  /** Least-squares slope of retained over the snapshot index, bytes per snapshot. */
  slope: number;
  growthRank: number;
  steadinessRank: number;
  /** The retainer in the newest snapshot (session-local node), or null when absent there. */
  lastNode: number | null;
  lastAddress: string | null;
}

/** At most this many rows cross (the top ones by growth); `growing` counts them all. */
export const MAX_DOMINATOR_TREND_ROWS = 2000;

export interface DominatorTrendResult {
  snapshots: TrendSnapshotDto[];
  minBytes: number;
  maxDepth: number;
  /** Distinct signatures seen in any snapshot. */
  retainersSeen: number;
  /** Retainers that grew (last > first); `rows` holds the first MAX_DOMINATOR_TREND_ROWS by growth. */
  growing: number;
  rows: DominatorTrendRowDto[];
}

import type { SessionId } from './dtos-session.js';

/**
 * "What if" (issue 16): references a tab ignores, and the analysis recomputed without them.
 *
 * Node ordinals and type indices are session-local, like everywhere in the contract:
 *   - `reference`: every reference from object (or pseudo-node) `from` to `to`;
 *   - `type`: every reference out of every instance of type `typeIndex`;
 *   - `root`: every reference out of pseudo-node `node` (a root category such as
 *     "[finalizer Handles]", "[static vars]", or one "[static var …]" holder).
 */
export type IgnoreRuleDto = { kind: 'reference'; from: number; to: number } | { kind: 'type'; typeIndex: number } | { kind: 'root'; node: number };

export interface IgnoredItem {
  rule: IgnoreRuleDto;
  /** What the banner shows, e.g. "SampleShop.PriceFeed 0x7f… → System.Action<…> 0x7f…", "references from System.EventHandler", "[finalizer Handles]". */
  label: string;
  /** References (edges of the graph) this rule matched; rules may share some. */
  references: number;
}

/** A tab's ignore list, as its summary reports it while one is set. */
export interface IgnoredSummary {
  items: IgnoredItem[];
  /** Distinct references ignored: every number of the tab is "with N references ignored". */
  references: number;
}

/** Replace the session's ignore list; `rules: []` restores the original analysis. */
export interface SetIgnoredReq {
  sessionId: SessionId;
  rules: IgnoreRuleDto[];
}

/** At most this many rules per tab (each is one banner line). */
export const MAX_IGNORE_RULES = 100;

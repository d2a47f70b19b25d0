import type { SessionReq } from './dtos-session.js';

/**
 * Contract DTOs (see contract.ts for the rules) of the sunburst / treemap of the dominator tree
 * (issue 16). Kept in their own file so they never touch the other views' DTOs.
 */

/** The aggregated rings below a center (shared/analysis/dominator-sunburst.ts). Waits for the analysis. */
export interface DominatorSunburstReq extends SessionReq {
  /** The center object; null = the graph's root (the whole reachable heap). */
  node: number | null;
  /** 'object': one item per object; 'type': the children of an item grouped by type. */
  mode: 'object' | 'type';
  /** Mode 'type': groups to walk from `node` first (each step: the previous members' dominator-tree children of that type). */
  typePath?: number[];
  /** Rings below the center, 1–8 (default 4). */
  depth?: number;
  /** Children kept per item at most, 1–200 (default 30). */
  top?: number;
  /** A kept child's retained size is at least this share of the center's, 0.001–0.5 (default 0.005). */
  minShare?: number;
  /**
   * Which view asks (any string up to 64 characters, e.g. one per Sunburst view): a newer request
   * of the same session with the same key supersedes this one, which then fails with `cancelled`
   * if it is still waiting or computing. Without a key nothing is superseded. Not part of the answer.
   */
  supersedeKey?: string;
}

export interface SunburstItemDto {
  /** Index of the parent item in `items`; -1 for the center (items[0]). Parents come first. */
  parent: number;
  /** Ring: 0 = the center. */
  depth: number;
  /** 'others' = the children folded because they are past `top` or under `minShare` of the center. */
  kind: 'object' | 'group' | 'others';
  /** The object (object items, or a group of exactly one object); null otherwise. */
  node: number | null;
  /** null for 'others'. */
  typeIndex: number | null;
  /** The type name; "n others" for folded items. */
  name: string;
  /** Hex address of `node`, null without one. */
  address: string | null;
  pseudo: boolean;
  /** Exact retained size: groups and 'others' sum what they stand for (disjoint subtrees). */
  retainedSize: number;
  /** Objects the item stands for (1 for an object). */
  count: number;
  /** 'others': how many items (objects or type groups) were folded into it; 0 otherwise. */
  folded: number;
  /** Objects in the next ring down (dominator-tree children of the item's objects); 0 for 'others'. */
  childCount: number;
}

export interface DominatorSunburst {
  /** The center object (the graph's root when asked with null). */
  node: number;
  mode: 'object' | 'type';
  typePath: number[];
  depth: number;
  top: number;
  minShare: number;
  /** Bytes reachable from the root (the root's retained size), for shares of the heap. */
  reachableSize: number;
  /** Center first, then ring by ring; siblings largest retained first, 'others' last. */
  items: SunburstItemDto[];
}

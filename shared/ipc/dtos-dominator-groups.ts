import type { SessionReq, WindowReq } from './dtos-session.js';

/**
 * Contract DTOs (see contract.ts for the rules) of the dominator tree grouped by type and of
 * "Retained by" (issue 14). Kept in their own file so they never touch the other views' DTOs.
 */

/** Top-level rows of the grouped dominator tree, largest retained size first. Waits for the analysis. */
export type DominatorTypeGroupsReq = WindowReq;

/**
 * One type in the grouped dominator tree. Its instances are the reachable objects of the type
 * that no other object of the same type dominates ("outermost" instances; the graph's root node
 * is never one). Their dominator subtrees are disjoint, so `retainedSize` counts every byte once
 * and equals the type's retained size in the Types view.
 */
export interface DominatorTypeGroupRow {
  typeIndex: number;
  type: string;
  /** Outermost instances: reachable objects of the type not dominated by another object of the type. */
  count: number;
  /** All reachable objects of the type (count + those nested under another instance). */
  reachableCount: number;
  /** Σ retained size of the outermost instances (= the type's retained size). */
  retainedSize: number;
  /** retainedSize / the snapshot's total object size × 100. */
  retainedPercent: number;
  /** The type is a pseudo-node category such as `[static vars]`. */
  pseudo: boolean;
}

/** A group's outermost instances, largest retained size first (ties by ascending ordinal). */
export interface DominatorTypeInstancesReq extends WindowReq {
  typeIndex: number;
}

/** Who immediately dominates the instances of a type, grouped by the dominator's type. Waits for the analysis. */
export interface RetainedByReq extends SessionReq {
  typeIndex: number;
}

export interface RetainedByRow {
  /** The immediate dominators' type (a pseudo-node's own name, e.g. `[static vars]`). */
  typeIndex: number;
  type: string;
  pseudo: boolean;
  /** The row of the type itself: instances nested under another instance of the same type. */
  self: boolean;
  /** Reachable instances of the asked type whose immediate dominator has this type. */
  count: number;
  /** Σ retained size of those instances. */
  retainedSize: number;
  /** retainedSize / the snapshot's total object size × 100. */
  retainedPercent: number;
}

export interface RetainedBy {
  typeIndex: number;
  type: string;
  /** Reachable instances (Σ count over the rows). */
  reachableCount: number;
  /** Instances no root reaches: they have no dominator and are in no row. */
  unreachableCount: number;
  /**
   * The type's retained size (Σ over the outermost instances). Σ retainedSize over the rows can
   * exceed it: an instance nested under another instance of the type (directly: the `self` row,
   * or further up its dominator chain) has its bytes counted in the outer one's retained size too.
   */
  typeRetainedSize: number;
  /** Largest retainedSize first (ties: larger count, then type index). */
  rows: RetainedByRow[];
}

/** The dominator objects behind one "Retained by" row, most retained first (windows). Waits for the analysis. */
export interface RetainedByObjectsReq extends WindowReq {
  typeIndex: number;
  /** The row's type: the immediate dominators' type. */
  dominatorTypeIndex: number;
}

export interface RetainedByObjectRow {
  /** The dominator object. */
  node: number;
  type: string;
  address: string;
  pseudo: boolean;
  /** Instances of the asked type it immediately dominates. */
  count: number;
  /** Σ retained size of those instances. */
  retainedSize: number;
  /** retainedSize / the snapshot's total object size × 100. */
  retainedPercent: number;
}

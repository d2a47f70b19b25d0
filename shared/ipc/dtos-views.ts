import type { RowWindow, SessionId, SessionReq, SizeCount, SortSpec, WindowReq } from './dtos-session.js';
import type { DIFF_SORT_KEYS, OBJECT_SORT_KEYS, TYPE_SORT_KEYS } from './sort-keys.js';

/**
 * Contract DTOs (see contract.ts for the rules) of the analysis views: type and object rows,
 * references, dominators, paths to roots, generations, diff and the GC timeline.
 */

// ---------------------------------------------------------------- rows

export type TypeSortKey = (typeof TYPE_SORT_KEYS)[number];

/** Filter: case-insensitive substring of the type name (or of the module name). */
export interface TypeRowsReq extends WindowReq {
  sort: SortSpec<TypeSortKey>;
  filter?: string;
  /** A type index whose row number in this sort and filter the answer reports as `located`. */
  locate?: number;
}

export interface TypeRow {
  typeIndex: number;
  type: string;
  module: string | null;
  count: number;
  shallowSize: number;
  /**
   * Type retained size: Σ retained size of the instances that no other instance of the type
   * dominates (nested ones count once; what instances hold only jointly is not in it); null until
   * the analysis is done.
   */
  retainedSize: number | null;
  /** Scaled estimates of a sampled dump; null when not sampled. */
  scaledCount: number | null;
  scaledShallowSize: number | null;
  /** shallowSize / Σ shallow of all objects × 100. */
  shallowPercent: number;
  /** retainedSize / Σ shallow of all objects × 100; null until the analysis is done. */
  retainedPercent: number | null;
  /**
   * Set retained size: the bytes that become unreachable when every instance of the type is
   * removed; null until computed for this type (`setRetained`: up to one walk over the reachable graph).
   */
  setRetainedSize: number | null;
  /**
   * Objects of the type no root reaches (garbage, weakly held, frozen (non-GC heap) without a
   * root) and Σ their shallow sizes; null until the analysis is done. retainedSize counts
   * reachable objects only: retainedSize ≥ shallowSize − unreachableSize.
   */
  unreachableCount: number | null;
  unreachableSize: number | null;
}

export type ObjectSortKey = (typeof OBJECT_SORT_KEYS)[number];

/**
 * Instances of one type. Filter: an address written with `0x` ("0x7f3a10") matches that one
 * address exactly (case and leading zeros do not matter); bare hex ("7f3a") is a case-insensitive
 * substring of the hex address.
 */
export interface ObjectRowsReq extends WindowReq {
  typeIndex: number;
  sort: SortSpec<ObjectSortKey>;
  filter?: string;
  /** Only objects of this generation (0–4, 5 = frozen (non-GC heap), 255 = unknown). */
  generation?: number;
  /**
   * Process dumps: only the strings holding this distinct value (a Strings row's `valueId`),
   * reachable or not; with the other filters too. A type's objects without that value: none.
   */
  valueId?: number;
}

export interface ObjectRow {
  node: number;
  /** 0x-prefixed hex. */
  address: string;
  size: number;
  retainedSize: number | null;
  /** 'gen0' | 'gen1' | 'gen2' | 'LOH' | 'POH' | 'frozen (non-GC heap)', or null when unknown. */
  generation: string | null;
  /** Reachable from the roots; null until the analysis is done. */
  reachable: boolean | null;
  /**
   * Process dumps only (absent on formats without contents): a System.String's value, its first
   * ROW_VALUE_CHARS chars (graph/string-values.ts); null for other objects and strings the dump did not carry.
   */
  value?: string | null;
  /** Process dumps only: the string's full length in UTF-16 chars (value is cut off when longer); null with value. */
  valueLength?: number | null;
}

export interface ObjectInfo {
  node: number;
  typeIndex: number;
  type: string;
  module: string | null;
  address: string;
  size: number;
  retainedSize: number | null;
  generation: string | null;
  pseudo: boolean;
  reachable: boolean | null;
  /** Immediate dominator (null for the root, unreachable objects and before the analysis). */
  dominator: number | null;
  outgoing: number;
  incoming: number;
  /**
   * What `address` is: 'address' the object's address in the process (.gcdump, EventPipe trace),
   * 'id' the object id a Compact Framework heap log writes instead (the log has no addresses),
   * 'none' a pseudo-node (root, root category) or an object the file never described.
   */
  addressKind: 'address' | 'id' | 'none';
  /** Process dumps only (absent elsewhere): a System.String's value as the dump reader kept it (at most 1,024 chars); null for other objects. */
  value?: string | null;
  /** Process dumps only: the string's full length in UTF-16 chars; null with value. */
  valueLength?: number | null;
}

/** Go to address: the object at the address, or the one containing it (`offset` bytes in). */
export interface AddressLookup {
  object: ObjectInfo;
  /** Bytes from the object's start to the address asked for; 0 when the address is the object's own. */
  offset: number;
}

export interface ReferencesReq extends WindowReq {
  node: number;
  /** 'outgoing': objects this one references; 'incoming': objects that reference it (retainers). */
  direction: 'outgoing' | 'incoming';
}

/**
 * One reference of an object, outgoing (file order, duplicates kept: an object holding the same
 * target in two fields lists it twice) or incoming (retainers, ascending ordinal).
 */
export interface ReferenceRow {
  node: number;
  typeIndex: number;
  type: string;
  address: string;
  size: number;
  retainedSize: number | null;
  /**
   * Name of the field holding an outgoing reference, when the format records it. .gcdump and
   * EventPipe heap walks do not (absent: the references are in file order).
   */
  field?: string;
  generation: string | null;
  pseudo: boolean;
  /** References out of this row's object (to expand it as a tree). */
  outgoing: number;
  /** References into it; null until the analysis (which builds the retainer index) is done. */
  incoming: number | null;
  /** Process dumps only: a System.String's value, quoted, at most 40 chars then "…" (absent for other objects and files). */
  preview?: string;
}

// ---------------------------------------------------------------- dominators and paths

/** Children of `node` (null = the root) in the dominator tree, largest retained size first. Waits for the analysis. */
export interface DominatorChildrenReq extends WindowReq {
  node: number | null;
}

export interface DominatorRow {
  node: number;
  typeIndex: number;
  type: string;
  address: string;
  size: number;
  retainedSize: number;
  /** retainedSize / Σ shallow of all objects × 100. */
  retainedPercent: number;
  childCount: number;
  pseudo: boolean;
  /** Process dumps only (absent elsewhere): a System.String's value, quoted, at most 40 chars then "…"; null for other objects. */
  preview?: string | null;
}

export interface DominatorPathReq extends SessionReq {
  node: number;
}

/** Root first, `node` last: every dominator on the way (for expanding the tree to an object). */
export interface DominatorPath {
  path: DominatorRow[];
}

export type PathsTarget = { kind: 'object'; node: number } | { kind: 'type'; typeIndex: number };

export interface PathsToRootsReq extends SessionReq {
  target: PathsTarget;
  /** Paths wanted for an object, shortest included (default 5, at most 50). */
  maxPaths?: number;
}

export interface PathStepDto {
  node: number;
  type: string;
  address: string;
  size: number;
  pseudo: boolean;
  /** Process dumps only: a System.String's value, quoted, at most 40 chars then "…" (absent for other objects and files). */
  preview?: string;
}

export interface RetentionPathDto {
  /** Edges on the path. */
  length: number;
  rootCategory: string | null;
  rootDetail: string | null;
  /** Root first, target last. */
  steps: PathStepDto[];
}

/**
 * One branch of the merged "why are objects of type T alive" tree, flattened: level 0 is the type
 * itself, each child level the type of the objects holding the previous one, up to the root.
 */
export interface TypePathNode {
  id: number;
  /** Parent id, null at level 0. */
  parent: number | null;
  depth: number;
  type: string;
  /** Instances whose shortest path passes through this branch. */
  count: number;
  /** Instances whose path reaches the root at this branch. */
  endsHere: number;
  /** Instances not followed further (depth bound or size cap). */
  cutOff: number;
  /** Children not listed (breadth bound) and the instances they carry. */
  omittedBranches: number;
  omittedCount: number;
}

export type PathsToRoots =
  | {
      kind: 'object';
      node: number;
      reachable: boolean;
      /** On a frozen (non-GC heap) segment: when unreachable, never collected rather than garbage. */
      frozen: boolean;
      paths: RetentionPathDto[];
      truncated: boolean;
    }
  | {
      kind: 'type';
      typeIndex: number;
      type: string;
      instances: number;
      reachable: number;
      unreachable: number;
      /** Frozen (non-GC heap) objects among the unreachable: never collected, so not garbage. */
      unreachableFrozen: number;
      /** Depth-first order: a parent comes before its children. */
      nodes: TypePathNode[];
      incomplete: boolean;
    };

// ---------------------------------------------------------------- generations, diff, GC timeline

export interface GenerationsReq extends SessionReq {
  /** Largest types listed per generation (default 20). */
  topTypes?: number;
}

export interface GenerationRow {
  /** 'gen0' | 'gen1' | 'gen2' | 'LOH' | 'POH' | 'unknown' | 'frozen (non-GC heap)'. */
  generation: string;
  count: number;
  size: number;
  sizePercent: number;
  /** Largest types (by bytes) in this generation. */
  topTypes: { typeIndex: number; type: string; count: number; size: number }[];
}

export interface Generations {
  hasData: boolean;
  /** Why there are no rows (no generation data in the file), else null. */
  message: string | null;
  /** Seven rows (gen0, gen1, gen2, LOH, POH, unknown, frozen (non-GC heap)) when the file has generation data, else []. */
  rows: GenerationRow[];
  /** Objects of at least `threshold` bytes (85,000: the runtime's LOH threshold), whatever the file says. */
  largeBySize: { count: number; size: number; threshold: number };
  objects: SizeCount;
}

export type DiffSortKey = (typeof DIFF_SORT_KEYS)[number];

/**
 * Type-level diff of this session against `baselineSessionId`, keyed by type NAME (objects cannot
 * be matched across dumps). Waits for the analysis of both sessions (retained columns). Filter:
 * case-insensitive substring of the type name.
 */
export interface DiffReq extends WindowReq {
  baselineSessionId: SessionId;
  sort: SortSpec<DiffSortKey>;
  filter?: string;
  /** Only types whose count, shallow or retained size changed (default false). */
  changedOnly?: boolean;
}

export interface DiffNumbers {
  count: number;
  baselineCount: number;
  countDelta: number;
  shallowSize: number;
  baselineShallowSize: number;
  shallowDelta: number;
  retainedSize: number;
  baselineRetainedSize: number;
  retainedDelta: number;
}

export interface DiffRow extends DiffNumbers {
  type: string;
  module: string | null;
  /** 'added': only in this session; 'removed': only in the baseline. */
  status: 'both' | 'added' | 'removed';
}

export interface DiffWindow extends RowWindow<DiffRow> {
  /** Whole heaps (all types, unfiltered); retained = bytes reachable from the roots. */
  totals: DiffNumbers;
  added: number;
  removed: number;
}

/** One garbage collection of a trace (shared/analysis/gc-timeline.ts). */
export interface GcEventDto {
  /** The runtime's GC number. */
  index: number;
  /** Condemned generation 0, 1, 2. */
  generation: number;
  reason: string;
  /** 'NonConcurrent' | 'Background' | 'Foreground'. */
  kind: string;
  /** ms since the trace's start. */
  startMs: number;
  durationMs: number | null;
  /** Time the program was suspended for this GC; null when no suspension was seen. */
  pauseMs: number | null;
  /** Not in GC events (always null today; kept for the chart's scale). */
  heapSizeBefore: number | null;
  /** Σ sizesAfter, null without GCHeapStats. */
  heapSizeAfter: number | null;
  /** Bytes after the GC: gen0, gen1, gen2, LOH, POH; null without GCHeapStats. */
  sizesAfter: number[] | null;
  promotedBytes: number | null;
  mode: 'compacting' | 'sweeping' | null;
}

export interface GcTimelineSummaryDto {
  gcCount: number;
  /** GCs per condemned generation 0, 1, 2. */
  byGeneration: number[];
  induced: number;
  pause: { count: number; totalMs: number; p50: number; p90: number; p99: number; max: number };
  traceDurationMs: number;
  /** Σ GC pauses / trace duration × 100. */
  pausedPercent: number;
}

export interface GcTimeline {
  /** False for snapshots without GC events (.gcdump, CF logs); `reason` says why. */
  available: boolean;
  reason: string | null;
  events: GcEventDto[];
  summary: GcTimelineSummaryDto | null;
}

// ---------------------------------------------------------------- set retained (types grid)

export interface SetRetainedReq {
  sessionId: SessionId;
  /** Types to compute, in this order (at most 1,000); computed ones are answered from the session's cache. */
  typeIndices: number[];
}

export interface SetRetainedResult {
  rows: { typeIndex: number; setRetainedSize: number }[];
  /** Wall time of this call, including waiting for a call before it. */
  ms: number;
}

// ---------------------------------------------------------------- trend (issue 14)

/**
 * Types that grow at every step over 2+ open sessions of one process (analysis/trend.ts, the same
 * computation as the CLI's `trend`). Sessions are read in the order given (oldest first; the UI
 * orders them by capture time when every one has it). Waits for the analysis of each session.
 */
export interface TrendReq {
  /** 2–32 distinct sessions, oldest first; each must have heap objects (not a GC-only trace). */
  sessionIds: SessionId[];
}

export interface TrendSnapshotDto {
  sessionId: SessionId;
  label: string;
  timeCollected: string | null;
  /** Heap objects, and bytes reachable from the roots, of the whole snapshot. */
  totalCount: number;
  totalRetained: number;
}

export interface TrendRowDto {
  type: string;
  module: string | null;
  /** The object count grows strictly at every step. */
  countGrows: boolean;
  /** The type retained size grows strictly at every step. */
  retainedGrows: boolean;
  /** One value per snapshot, in the order of `snapshots` (0 where the type is absent). */
  counts: number[];
  shallow: number[];
  retained: number[];
  /** Last − first. */
  countGrowth: number;
  retainedGrowth: number;
}

export interface TrendResult {
  snapshots: TrendSnapshotDto[];
  /** Type names seen in any of the snapshots. */
  typesSeen: number;
  /** Every growing type, by retained growth (largest first), then count growth, then name. */
  rows: TrendRowDto[];
}

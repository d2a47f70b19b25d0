import type { FillFacts } from './fill-facts.js';
import type { ProblemReport } from './problems.js';
import type { SnapshotMetadata } from './metadata.js';

/**
 * The heap graph: every object of a snapshot as columns of typed arrays indexed by node ordinal.
 *
 * A node is a `number` (its ordinal, 0 ≤ n < nodeCount). There is no object per node: the data of
 * node `n` is `nodeType[n]`, `selfSize[n]`, `address[n]`, … and its outgoing references are
 * `edgeTarget[firstEdge[n] .. firstEdge[n + 1])` (CSR). Edges carry no labels, because .gcdump
 * child lists have none; only process dumps add the optional `edgeFieldName` column (the field
 * holding each reference).
 *
 * Memory (the base graph, before any analysis):
 *
 * | column      | type          | bytes        |
 * |-------------|---------------|--------------|
 * | nodeType    | Uint32Array   | 4 per node   |
 * | selfSize    | Uint32Array   | 4 per node   |
 * | firstEdge   | Uint32Array   | 4 per node   |
 * | address     | BigUint64Array| 8 per node   |
 * | nodeFlags   | Uint8Array    | 1 per node   |
 * | generation  | Uint8Array    | 1 per node   |
 * | edgeTarget  | Uint32Array   | 4 per edge   |
 *
 * = 22 bytes per node + 4 bytes per reference; 10M objects with 25M references ≈ 320 MB.
 *
 * `selfSize` is 32-bit because every producer we read bounds it: a .gcdump stores sizes as
 * compressed i32. Readers of 64-bit sizes (EventPipe) clamp and report a problem.
 *
 * The graph is a plain object of typed arrays and strings, so it can be structured-cloned or
 * have its buffers transferred between workers.
 */
export interface HeapGraph {
  readonly nodeCount: number;
  readonly edgeCount: number;
  /** Index into `types` for each node. */
  readonly nodeType: Uint32Array;
  /** Bytes of the object itself (0 for pseudo and undefined nodes). */
  readonly selfSize: Uint32Array;
  /** CSR row offsets, length nodeCount + 1. */
  readonly firstEdge: Uint32Array;
  /** CSR targets, length edgeCount. Duplicates and self-edges are allowed (gcdump has them). */
  readonly edgeTarget: Uint32Array;
  /** 64-bit object address (0 for pseudo-nodes). For display and generations only: no BigInt in analysis loops. */
  readonly address: BigUint64Array;
  /** NODE_* bits. */
  readonly nodeFlags: Uint8Array;
  /** 0–4 (gen0, gen1, gen2, LOH, POH), GEN_FROZEN or GEN_UNKNOWN. */
  readonly generation: Uint8Array;
  /** Whether `generation` came from real heap data (segments / generation ranges). */
  readonly hasGenerationData: boolean;
  /** The synthetic root node; all GC roots hang below it. */
  readonly rootIndex: number;
  readonly types: TypeTable;
  readonly metadata: SnapshotMetadata;
  readonly problems: ProblemReport;
  /** Σ selfSize over all nodes (a double: the sum can pass 2^32). */
  readonly totalSize: number;
  /**
   * Optional (process dumps only; other formats carry no field names): for each edge, an index
   * into `fieldNames` naming the field that holds the reference, or NONE (array elements,
   * pseudo-node edges). 4 bytes per edge when present.
   */
  readonly edgeFieldName?: Uint32Array;
  /** The string table `edgeFieldName` indexes. */
  readonly fieldNames?: readonly string[];
  /**
   * Optional (process dumps only): for each node, an index into `stringValues` when the node is a
   * System.String whose contents the dump carries, else NONE. 4 bytes per node when present.
   * Read it through stringValueOf (graph/string-values.ts).
   */
  readonly nodeStringValue?: Uint32Array;
  /** The distinct string values `nodeStringValue` indexes (equal index ⇔ equal contents). */
  readonly stringValues?: StringValueTable;
  /** Optional (process dumps only): how full arrays and collections are; see graph/fill-facts.ts. */
  readonly fillFacts?: FillFacts;
}

/**
 * Distinct string contents, each bounded (a prefix) with its full length kept. The texts are
 * UTF-8 bytes in one pool, decoded when read (graph/string-values.ts: stringValueText), so a dump
 * with a million distinct strings holds no million JS strings.
 */
export interface StringValueTable {
  /** UTF-8 bytes holding every value's kept text (may hold other bytes too: a dump's whole string table). */
  readonly bytes: Uint8Array;
  /** Per value: its kept text (the first chars, at most the reader's bound, e.g. 1,024) is bytes [textStart, textEnd). */
  readonly textStart: Uint32Array;
  readonly textEnd: Uint32Array;
  /** The value's full length in UTF-16 chars; greater than its text's length when cut off. */
  readonly lengths: Uint32Array;
}

/** Name of the field holding edge `edge` (an index into edgeTarget), or null when the graph has none. */
export function edgeFieldNameOf(g: HeapGraph, edge: number): string | null {
  const col = g.edgeFieldName;
  if (!col || !g.fieldNames) return null;
  const id = col[edge];
  return id === NONE ? null : (g.fieldNames[id] ?? null);
}

/** Type names are few (thousands) and nodes many: names live once here. */
export interface TypeTable {
  readonly count: number;
  readonly names: readonly string[];
  /** Full module path, or null (pseudo types, JS heaps). */
  readonly modules: readonly (string | null)[];
  /**
   * The size stored with the type in a .gcdump ("size of the first node of this type"; -1 when
   * no node was ever defined). Kept so our writer reproduces files exactly.
   */
  readonly sizes: Int32Array;
}

/** "No node" in Uint32 columns (predecessor, idom, root). */
export const NONE = 0xffffffff;

/** A synthetic node (the root, "[static vars]", a static-variable holder): not a heap object. */
export const NODE_PSEUDO = 1;
/** Referenced but never described (gcdump offset 0, or an address no event defined). */
export const NODE_UNDEFINED = 2;
/** Outgoing edges of this node are weak: they do not keep their targets alive (weak GC handles). */
export const NODE_WEAK_EDGES = 4;
/** The object is pinned (reached from a pinned root). */
export const NODE_PINNED = 8;

export const GEN_UNKNOWN = 255;
export const GENERATION_NAMES = ['gen0', 'gen1', 'gen2', 'LOH', 'POH'] as const;

/**
 * A heap object on a frozen (non-GC) segment: string literals, RuntimeType objects and boxed
 * statics the runtime (.NET 8+) allocates outside the GC heap. The GC never moves or collects
 * them and reports no generation range for them, so they are recognised by address: see
 * computeGenerations. Not a GC generation, hence outside GENERATION_NAMES.
 */
export const GEN_FROZEN = 5;
export const FROZEN_GENERATION_NAME = 'frozen (non-GC heap)';

/** Objects at least this large live in the large-object heap (the runtime's threshold). */
export const LOH_THRESHOLD = 85_000;

/** Out-degree of `node`. */
export function outDegree(g: HeapGraph, node: number): number {
  return g.firstEdge[node + 1] - g.firstEdge[node];
}

/** Type name of `node`. */
export function nodeTypeName(g: HeapGraph, node: number): string {
  return g.types.names[g.nodeType[node]];
}

/** Address as a 0x-prefixed hex string (display only). */
export function formatAddress(g: HeapGraph, node: number): string {
  return '0x' + g.address[node].toString(16);
}

/** Whether `node` stands for a real heap object (not the root, a category or an undefined slot). */
export function isHeapObject(g: HeapGraph, node: number): boolean {
  return (g.nodeFlags[node] & (NODE_PSEUDO | NODE_UNDEFINED)) === 0;
}

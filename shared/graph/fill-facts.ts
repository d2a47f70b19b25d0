import type { HeapGraph } from './heap-graph.js';

/**
 * How full arrays and collections are, for graphs that know (process dumps: the ClrMD helper reads
 * array contents and collection fields, see electron/dump-reader/ArrayFacts.cs). .gcdump files and
 * heap-walk traces carry no contents: `hasFillFacts` is false there.
 *
 * Per node (9 bytes per node when present): `kind` says what the node is (FILL_NONE for any other
 * object and for pseudo nodes), `count` and `capacity` what it holds:
 * - FILL_ARRAY: count = elements that are not the default value (a non-null reference, a non-zero
 *   primitive, a struct with a non-zero byte), capacity = the array's length;
 * - FILL_COLLECTION (List, Dictionary, HashSet, Queue, Stack): count = the collection's Count,
 *   capacity = the length of its backing array (0 when it has none).
 * Per type: `elementSize`, the bytes of one array element (0: not an array type).
 */
export const FILL_NONE = 0;
export const FILL_ARRAY = 1;
export const FILL_COLLECTION = 2;

export interface FillFacts {
  readonly kind: Uint8Array;
  readonly count: Uint32Array;
  readonly capacity: Uint32Array;
  /** Per type id. */
  readonly elementSize: Uint32Array;
}

export function hasFillFacts(g: HeapGraph): boolean {
  return g.fillFacts !== undefined;
}

/** What is wrong when the columns do not fit a graph of `nodes` nodes and `types` types, else null. */
export function checkFillFacts(f: FillFacts, nodes: number, types: number): string | null {
  if (f.kind.length !== nodes || f.count.length !== nodes || f.capacity.length !== nodes) return 'fill column length';
  if (f.elementSize.length !== types) return 'element size column length';
  return null;
}

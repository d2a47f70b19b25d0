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
 * - FILL_COLLECTION (a BCL collection, see COLLECTION_KINDS): count = the collection's Count,
 *   capacity = the element slots it has allocated (0 when it has none; for node-based kinds the count).
 * Per type: `elementSize`, the bytes of one array element (0: not an array type).
 * `collections` (streams with COLLECTION records): per collection node its kind and storage bytes.
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
  /** Kind and storage of the collection nodes, when the stream said (absent for older streams). */
  readonly collections?: CollectionTable;
}

/**
 * One row per collection node, nodes ascending (few rows: only collections have one). `kind` is a
 * COLLECTION_KINDS index, or a value this version does not know (a newer helper): such a row is still a
 * collection with a count, capacity and storage, only without a name for its kind. `storage` =
 * bytes of the objects the collection allocated to hold elements (its backing arrays, segments or
 * tables), 0 when the capacity is 0 (see electron/dump-reader/CollectionFacts.cs).
 */
export interface CollectionTable {
  readonly node: Uint32Array;
  readonly kind: Uint8Array;
  readonly storage: Float64Array;
}

/**
 * Collection kinds of COLLECTION records (electron/dump-reader/CollectionFacts.cs Kind): the index
 * in this list is the value on the wire. Only append.
 */
export const COLLECTION_KINDS: readonly string[] = [
  'List',
  'Dictionary',
  'HashSet',
  'Queue',
  'Stack',
  'ConcurrentDictionary',
  'ConcurrentQueue',
  'ConcurrentBag',
  'SortedDictionary',
  'SortedList',
  'SortedSet',
  'LinkedList',
  'Collection',
  'StringBuilder',
  'PriorityQueue',
  'ConcurrentStack',
];

/** The kind's name, or "kind N" for a value this version does not know. */
export function collectionKindName(kind: number): string {
  return COLLECTION_KINDS[kind] ?? `kind ${kind}`;
}

/** Row of `node` in the table, or -1 (binary search: rows are ascending by node). */
export function collectionRow(t: CollectionTable, node: number): number {
  let lo = 0;
  let hi = t.node.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = t.node[mid];
    if (v === node) return mid;
    if (v < node) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

export function hasFillFacts(g: HeapGraph): boolean {
  return g.fillFacts !== undefined;
}

/** What is wrong when the columns do not fit a graph of `nodes` nodes and `types` types, else null. */
export function checkFillFacts(f: FillFacts, nodes: number, types: number): string | null {
  if (f.kind.length !== nodes || f.count.length !== nodes || f.capacity.length !== nodes) return 'fill column length';
  if (f.elementSize.length !== types) return 'element size column length';
  const c = f.collections;
  if (c) {
    if (c.kind.length !== c.node.length || c.storage.length !== c.node.length) return 'collection table length';
    for (let i = 0; i < c.node.length; i++) {
      if (c.node[i] >= nodes || (i > 0 && c.node[i] <= c.node[i - 1])) return 'collection table order';
      if (f.kind[c.node[i]] !== FILL_COLLECTION) return 'collection table row of a node that is not a collection';
    }
  }
  return null;
}

import { collectionKindName, collectionRow, FILL_ARRAY, FILL_COLLECTION, hasFillFacts } from '../../graph/fill-facts.js';
import type { HeapGraph } from '../../graph/heap-graph.js';
import { FlaggedGroups, grouped, type Finding, type InspectionContext } from './finding.js';

/**
 * Empty collections (process dumps only): reachable collections the dump reader recognises
 * (graph/fill-facts.ts COLLECTION_KINDS: List, Dictionary, HashSet, Queue, Stack, PriorityQueue,
 * the concurrent, sorted and linked ones, Collection/ObservableCollection, StringBuilder) whose
 * Count is 0,
 * grouped by type.
 *
 * objects = the collections, shallowBytes = Σ their own sizes, bytes = exact retained (finding.ts),
 * withCapacity = how many have allocated element slots (capacity above 0), backingBytes = Σ their
 * storage bytes: memory allocated for elements that are not there. Storage comes from the stream's
 * COLLECTION record (per kind, electron/dump-reader/CollectionFacts.cs); for an older stream
 * (COLLECTION_FILL, no storage) it is the arrays the backing fields (BACKING_FIELDS) hold.
 * collectionKind (COLLECTION records only) names the kind whose definition applied.
 * Cost: one pass over the nodes, plus a binary search in the collection table (or the
 * out-references) of each flagged collection.
 */
export const BACKING_FIELDS: readonly string[] = ['_items', '_entries', '_buckets', '_array'];

export function inspectEmptyCollections(ctx: InspectionContext): Finding[] {
  const { g, a, token } = ctx;
  if (!hasFillFacts(g)) return [];
  const f = g.fillFacts!;
  const table = f.collections;
  const names = g.types.names;
  const backingField = new Uint8Array(g.fieldNames?.length ?? 0);
  g.fieldNames?.forEach((name, i) => (backingField[i] = BACKING_FIELDS.includes(name) ? 1 : 0));
  const groups = new FlaggedGroups<number>(ctx);
  // per type (few keys), not per node
  const backing = new Map<number, number>();
  const withCapacity = new Map<number, number>();
  const kindOfType = new Map<number, number>();
  for (let n = 0; n < g.nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    if (f.kind[n] !== FILL_COLLECTION || f.count[n] !== 0 || !a.reachable[n]) continue;
    const t = g.nodeType[n];
    groups.add(n, String(t), t);
    const row = table ? collectionRow(table, n) : -1;
    if (row >= 0) kindOfType.set(t, table!.kind[row]);
    if (f.capacity[n] === 0) continue;
    const b = row >= 0 ? table!.storage[row] : backingArrays(g, n, backingField);
    backing.set(t, (backing.get(t) ?? 0) + b);
    withCapacity.set(t, (withCapacity.get(t) ?? 0) + 1);
  }
  const bytes = groups.finish();
  return groups.keys.map((t, gi) => {
    const kind = kindOfType.get(t);
    return {
      kind: 'empty-collections' as const,
      title: `${grouped(groups.count[gi])} empty ${names[t]} (${grouped(bytes[gi])} bytes retained)`,
      explanation: 'Collections with no elements: each costs its own object and, once it had a capacity, storage (backing arrays, segments or tables) that holds nothing.',
      fix: fixFor(kind),
      objects: groups.count[gi],
      bytes: bytes[gi],
      shallowBytes: groups.shallow[gi],
      examples: groups.exampleRows(gi),
      details: {
        type: names[t],
        withCapacity: withCapacity.get(t) ?? 0,
        backingBytes: backing.get(t) ?? 0,
        ...(kind === undefined ? {} : { collectionKind: collectionKindName(kind) }),
      },
    };
  });
}

/** Σ sizes of the arrays `n` holds in a backing field (streams without COLLECTION records). */
function backingArrays(g: HeapGraph, n: number, backingField: Uint8Array): number {
  const f = g.fillFacts!;
  let b = 0;
  for (let e = g.firstEdge[n]; e < g.firstEdge[n + 1]; e++) {
    const target = g.edgeTarget[e];
    const field = g.edgeFieldName?.[e];
    if (field !== undefined && backingField[field] && f.kind[target] === FILL_ARRAY) b += g.selfSize[target];
  }
  return b;
}

const GENERIC_FIX = 'Create collections lazily on first add, share a static empty instance for read-only use, or call TrimExcess() on ones that were emptied.';

/** The usual fix; kinds without TrimExcess() get their own advice. */
function fixFor(kind: number | undefined): string {
  switch (kind === undefined ? '' : collectionKindName(kind)) {
    case 'ConcurrentDictionary':
    case 'ConcurrentQueue':
    case 'ConcurrentBag':
      return 'Create concurrent collections lazily (Lazy<T> or Interlocked.CompareExchange on first add) or replace an emptied one with a new, small one: they never shrink.';
    case 'SortedDictionary':
    case 'SortedSet':
    case 'LinkedList':
    case 'ConcurrentStack':
      return 'Create the collection lazily on first add, or share a static empty instance for read-only use: even empty it costs its own objects.';
    case 'StringBuilder':
      return 'Create builders where text is built and drop them after ToString(); a cleared builder keeps its capacity (set Capacity, or use a new one, to release it).';
    case 'Collection':
      return 'Create the collection lazily on first add; the wrapped List<T> holds the capacity (its TrimExcess() releases it).';
    default:
      return GENERIC_FIX;
  }
}

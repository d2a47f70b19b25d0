import { FILL_ARRAY, FILL_COLLECTION, hasFillFacts } from '../../graph/fill-facts.js';
import { FlaggedGroups, grouped, type Finding, type InspectionContext } from './finding.js';

/**
 * Empty collections (process dumps only): reachable List, Dictionary, HashSet, Queue and Stack
 * objects (System.Collections.Generic) whose Count is 0, grouped by type.
 *
 * objects = the collections, shallowBytes = Σ their own sizes, bytes = exact retained (finding.ts),
 * backingBytes = Σ sizes of the arrays their backing fields (BACKING_FIELDS) hold when the
 * capacity is above 0: memory allocated for elements that are not there. withCapacity = how many
 * of them have such an array.
 * Cost: one pass over the nodes, plus the out-references of the flagged collections.
 */
export const BACKING_FIELDS: readonly string[] = ['_items', '_entries', '_buckets', '_array'];

export function inspectEmptyCollections(ctx: InspectionContext): Finding[] {
  const { g, a, token } = ctx;
  if (!hasFillFacts(g)) return [];
  const f = g.fillFacts!;
  const names = g.types.names;
  const backingField = new Uint8Array(g.fieldNames?.length ?? 0);
  g.fieldNames?.forEach((name, i) => (backingField[i] = BACKING_FIELDS.includes(name) ? 1 : 0));
  const groups = new FlaggedGroups<number>(ctx);
  const backing = new Map<number, number>();
  const withCapacity = new Map<number, number>();
  for (let n = 0; n < g.nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    if (f.kind[n] !== FILL_COLLECTION || f.count[n] !== 0 || !a.reachable[n]) continue;
    const t = g.nodeType[n];
    groups.add(n, String(t), t);
    if (f.capacity[n] === 0) continue;
    let b = 0;
    for (let e = g.firstEdge[n]; e < g.firstEdge[n + 1]; e++) {
      const target = g.edgeTarget[e];
      const field = g.edgeFieldName?.[e];
      if (field !== undefined && backingField[field] && f.kind[target] === FILL_ARRAY) b += g.selfSize[target];
    }
    // per type (few keys), not per node
    backing.set(t, (backing.get(t) ?? 0) + b);
    withCapacity.set(t, (withCapacity.get(t) ?? 0) + 1);
  }
  const bytes = groups.finish();
  return groups.keys.map((t, gi) => ({
    kind: 'empty-collections' as const,
    title: `${grouped(groups.count[gi])} empty ${names[t]} (${grouped(bytes[gi])} bytes retained)`,
    explanation: 'Collections with no elements: each costs its own object and, once it had a capacity, a backing array that holds nothing.',
    fix: 'Create collections lazily on first add, share a static empty instance for read-only use, or call TrimExcess() on ones that were emptied.',
    objects: groups.count[gi],
    bytes: bytes[gi],
    shallowBytes: groups.shallow[gi],
    examples: groups.exampleRows(gi),
    details: { type: names[t], withCapacity: withCapacity.get(t) ?? 0, backingBytes: backing.get(t) ?? 0 },
  }));
}

import { FILL_ARRAY, hasFillFacts } from '../../graph/fill-facts.js';
import { FlaggedGroups, grouped, type Finding, type InspectionContext } from './finding.js';

/**
 * Sparse and empty arrays (process dumps only: other files carry no array contents; see
 * graph/fill-facts.ts for what "non-default element" means).
 *
 * Sparse arrays, a heuristic: a reachable array of length ≥ SPARSE_MIN_LENGTH whose non-default
 * elements are at most SPARSE_MAX_FILL (25%) of its length. Grouped by array type; wastedBytes =
 * Σ (length − non-default elements) × element size, the bytes spent on default slots.
 *
 * Empty arrays: reachable arrays of length 0, grouped by type, reported when a type has at least
 * MIN_EMPTY_ARRAYS of them (one per type is what Array.Empty<T>() itself keeps).
 *
 * Both: objects = the arrays, shallowBytes = Σ their sizes, bytes = exact retained (finding.ts).
 * Cost: one pass over the nodes, the group columns of FlaggedGroups.
 */
export const SPARSE_MIN_LENGTH = 16;
export const SPARSE_MAX_FILL = 0.25;
export const MIN_EMPTY_ARRAYS = 2;

export function inspectArrayFill(ctx: InspectionContext): Finding[] {
  const { g, a, token } = ctx;
  if (!hasFillFacts(g)) return [];
  const f = g.fillFacts!;
  const names = g.types.names;
  const sparse = new FlaggedGroups<number>(ctx);
  const empty = new FlaggedGroups<number>(ctx);
  const wasted = new Map<number, number>();
  const slots = new Map<number, number>();
  const filled = new Map<number, number>();
  for (let n = 0; n < g.nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    if (f.kind[n] !== FILL_ARRAY || !a.reachable[n]) continue;
    const length = f.capacity[n];
    const t = g.nodeType[n];
    if (length === 0) empty.add(n, String(t), t);
    else if (length >= SPARSE_MIN_LENGTH && f.count[n] <= SPARSE_MAX_FILL * length) {
      sparse.add(n, String(t), t);
      // per type (few keys), not per node
      wasted.set(t, (wasted.get(t) ?? 0) + (length - f.count[n]) * f.elementSize[t]);
      slots.set(t, (slots.get(t) ?? 0) + length);
      filled.set(t, (filled.get(t) ?? 0) + f.count[n]);
    }
  }
  const out: Finding[] = [];
  const sparseBytes = sparse.finish();
  sparse.keys.forEach((t, gi) => {
    const w = wasted.get(t)!;
    out.push({
      kind: 'sparse-arrays',
      title: `${grouped(sparse.count[gi])} sparse ${names[t]} (${grouped(w)} bytes of default elements)`,
      explanation: `Arrays of ${SPARSE_MIN_LENGTH} or more elements of which at most ${SPARSE_MAX_FILL * 100}% are set (a heuristic): most of their memory holds null or zero.`,
      fix: 'Size the array to what is stored (or let a List<T> grow), or use a dictionary keyed by index for sparse data.',
      objects: sparse.count[gi],
      bytes: sparseBytes[gi],
      shallowBytes: sparse.shallow[gi],
      examples: sparse.exampleRows(gi),
      details: { type: names[t], elements: slots.get(t)!, nonDefaultElements: filled.get(t)!, elementSize: f.elementSize[t], wastedBytes: w },
    });
  });
  const emptyBytes = empty.finish();
  empty.keys.forEach((t, gi) => {
    if (empty.count[gi] < MIN_EMPTY_ARRAYS) return;
    out.push({
      kind: 'empty-arrays',
      title: `${grouped(empty.count[gi])} empty ${names[t]} (${grouped(empty.shallow[gi])} bytes)`,
      explanation: 'Separate arrays of length 0: each is an object with a header and nothing in it.',
      fix: 'Use the shared Array.Empty<T>() (or [] in C# 12) instead of new T[0].',
      objects: empty.count[gi],
      bytes: emptyBytes[gi],
      shallowBytes: empty.shallow[gi],
      examples: empty.exampleRows(gi),
      details: { type: names[t] },
    });
  });
  return out;
}

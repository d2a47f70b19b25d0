import { NONE } from '../../graph/heap-graph.js';
import { hasStringValues, stringValueText } from '../../graph/string-values.js';
import { stringValueStats } from '../duplicate-strings.js';
import { exampleOf, grouped, type Finding, type InspectionContext } from './finding.js';

/**
 * Duplicate strings (process dumps only: other files carry no string contents): one finding per
 * value held by several reachable System.String objects, the copies beyond the first being the
 * flagged objects. Heuristic threshold: a value is reported when its extra copies waste at least
 * MIN_WASTED_BYTES (below that, "true" held three times is noise, not a finding).
 *
 * objects = copies − 1; shallowBytes = their bytes = the value's wasted bytes; bytes = Σ exact
 * retained of those copies (a string references nothing, so it retains only itself and the two
 * agree). The copy kept out is the first in address order; examples are the next flagged copies in
 * address order (all copies of one value have the same size).
 * Cost: the per-value columns of duplicate-strings.ts, one more pass over the nodes for examples
 * (an Int32Array per distinct value maps a value to its finding: nothing per node).
 */
export const MIN_WASTED_BYTES = 1024;

export function inspectDuplicateStrings(ctx: InspectionContext): Finding[] {
  const { g, a, token } = ctx;
  if (!hasStringValues(g)) return [];
  const stats = stringValueStats(g, a.reachable, token)!;
  const table = g.stringValues!;
  const findingOf = new Int32Array(stats.count.length).fill(-1);
  const values: number[] = [];
  for (let v = 0; v < stats.count.length; v++) {
    if (stats.count[v] >= 2 && stats.totalBytes[v] - stats.copySize[v] >= MIN_WASTED_BYTES) {
      findingOf[v] = values.length;
      values.push(v);
    }
  }
  if (values.length === 0) return [];
  const seenFirst = new Uint8Array(values.length);
  const bytes = new Float64Array(values.length);
  const examples: number[][] = values.map(() => []);
  const col = g.nodeStringValue!;
  for (let n = 0; n < g.nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    const v = col[n];
    if (v === NONE || !a.reachable[n]) continue;
    const f = findingOf[v];
    if (f < 0) continue;
    if (!seenFirst[f]) {
      seenFirst[f] = 1; // the copy that stays
      continue;
    }
    bytes[f] += a.retainedSize[n];
    if (examples[f].length < ctx.exampleCount) examples[f].push(n);
  }
  return values.map((v, f) => {
    const text = stringValueText(table, v);
    const shown = JSON.stringify(text.length > 60 ? text.slice(0, 60) : text) + (text.length > 60 || table.lengths[v] > text.length ? '…' : '');
    const wasted = stats.totalBytes[v] - stats.copySize[v];
    return {
      kind: 'duplicate-strings' as const,
      title: `${grouped(stats.count[v])} copies of ${shown} (${grouped(wasted)} bytes wasted)`,
      explanation: 'The same text is held by many separate string objects; every copy but one is memory spent on nothing new.',
      fix: 'Share one instance: string.Intern or a small interning pool for values read from input, a static readonly for constants, or an enum/ID instead of the text.',
      objects: stats.count[v] - 1,
      bytes: bytes[f],
      shallowBytes: wasted,
      examples: examples[f].map((n) => exampleOf(ctx, n)),
      details: { value: text, length: table.lengths[v], truncated: table.lengths[v] > text.length, copies: stats.count[v], totalBytes: stats.totalBytes[v], wastedBytes: wasted },
    };
  });
}

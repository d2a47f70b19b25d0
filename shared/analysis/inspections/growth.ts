import type { HeapGraph } from '../../graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../graph/heap-graph.js';
import type { DominanceAnalysis } from '../analyze.js';
import { retainerSignatures, type RetainerSnapshot } from '../dominator-signatures.js';
import { staticFieldBytes, staticFieldTargets } from './statics.js';
import { exampleOf, grouped, keepLargest, type Finding, type InspectionContext } from './finding.js';

/**
 * What a baseline snapshot contributes to growth suspects: per type name its retained bytes and
 * reachable count, per static field its retained bytes. Small (types and fields, not nodes), so
 * the baseline's graph can be dropped before the current one is loaded.
 */
export interface InspectionBaseline {
  label: string;
  types: Map<string, { retained: number; count: number }>;
  statics: Map<string, number>;
  /** Its big retainers (dominator-signatures.ts), for growth at dominator level; absent in baselines made before it existed. */
  retainers?: RetainerSnapshot;
}

export function baselineOf(g: HeapGraph, a: DominanceAnalysis, label: string): InspectionBaseline {
  const names = g.types.names;
  // pseudo-node types ("[root]", "[static var …]") are not object types
  const pseudoType = new Uint8Array(names.length);
  for (let n = 0; n < g.nodeCount; n++) if (g.nodeFlags[n] & NODE_PSEUDO) pseudoType[g.nodeType[n]] = 1;
  const types = new Map<string, { retained: number; count: number }>();
  for (let t = 0; t < names.length; t++) {
    if (a.typeReachableCount[t] === 0 || pseudoType[t] !== 0) continue;
    const prev = types.get(names[t]);
    types.set(names[t], { retained: (prev?.retained ?? 0) + a.typeRetained[t], count: (prev?.count ?? 0) + a.typeReachableCount[t] });
  }
  const statics = new Map<string, number>();
  for (const [field, { targets }] of staticFieldTargets(g)) statics.set(field, staticFieldBytes(a, targets));
  return { label, types, statics, retainers: retainerSignatures(g, a, label) };
}

/**
 * Growth suspects against a baseline.
 *
 * Rule: a type whose retained size (per-type retained, no double counting: type-retained.ts) is
 * larger than in the baseline, matched by type name; and a static field whose bytes (statics.ts: Σ exact retained of what it references)
 * grew, matched by field name. Bytes = current retained; details give the baseline figure
 * and the growth. A type or field absent from the baseline grew from 0.
 */
export function inspectGrowth(ctx: InspectionContext, base: InspectionBaseline): Finding[] {
  const { g, a, token } = ctx;
  const names = g.types.names;
  const cur = baselineOf(g, a, 'current');
  const out: Finding[] = [];
  const grownTypes = new Map<string, number[]>();
  for (const [name, now] of cur.types) {
    const before = base.types.get(name) ?? { retained: 0, count: 0 };
    if (now.retained > before.retained) grownTypes.set(name, []);
  }
  // the largest instances of each grown type, one pass
  for (let n = 0; n < g.nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    if (g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED) || a.treePosition[n] === 0xffffffff) continue;
    const list = grownTypes.get(names[g.nodeType[n]]);
    if (list) keepLargest(list, n, a.retainedSize, ctx.exampleCount);
  }
  const shallowOf = new Map<string, number>();
  for (let t = 0; t < names.length; t++) if (grownTypes.has(names[t])) shallowOf.set(names[t], (shallowOf.get(names[t]) ?? 0) + a.typeReachableShallow[t]);
  for (const [name, list] of grownTypes) {
    const now = cur.types.get(name)!;
    const before = base.types.get(name) ?? { retained: 0, count: 0 };
    out.push({
      kind: 'growth-type',
      title: `${name} retained grew by ${grouped(now.retained - before.retained)} bytes (${grouped(before.count)} → ${grouped(now.count)} objects)`,
      explanation: `The memory held by ${name} objects grew since ${base.label}: if it keeps growing across snapshots, something adds them and never lets go.`,
      fix: 'Compare paths to roots of the new instances with the baseline to find who holds them.',
      objects: now.count,
      bytes: now.retained,
      shallowBytes: shallowOf.get(name) ?? 0,
      examples: list.map((n) => exampleOf(ctx, n)),
      details: { type: name, baselineBytes: before.retained, growthBytes: now.retained - before.retained, baselineObjects: before.count, objectGrowth: now.count - before.count },
    });
  }
  for (const [field, now] of cur.statics) {
    const before = base.statics.get(field) ?? 0;
    if (now <= before) continue;
    out.push({
      kind: 'growth-static',
      title: `static ${field} retains ${grouped(now - before)} bytes more`,
      explanation: `What the static field ${field} alone keeps alive grew since ${base.label}.`,
      fix: 'Check whether entries added to it are ever removed.',
      objects: 0,
      bytes: now,
      shallowBytes: 0,
      examples: [],
      details: { field, baselineBytes: before, growthBytes: now - before },
    });
  }
  return out.sort((x, y) => (y.details.growthBytes as number) - (x.details.growthBytes as number) || (x.title < y.title ? -1 : 1));
}

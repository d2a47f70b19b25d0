import type { HeapGraph } from '../../graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../graph/heap-graph.js';
import type { DominanceAnalysis } from '../analyze.js';
import { staticFieldName } from './delegate-retention.js';
import { exampleOf, grouped, keepLargest, type Finding, type InspectionContext } from './finding.js';

/**
 * What each static field references: field name → the distinct objects its holder
 * ("[static var Type.field]" pseudo-node) points at. Holders are few (one per static field).
 */
export function staticFieldTargets(g: HeapGraph): Map<string, { holder: number; targets: number[] }> {
  const names = g.types.names;
  const isStatic = new Uint8Array(names.length);
  for (let t = 0; t < names.length; t++) isStatic[t] = staticFieldName(names[t]) === null ? 0 : 1;
  const out = new Map<string, { holder: number; targets: number[] }>();
  for (let n = 0; n < g.nodeCount; n++) {
    if (isStatic[g.nodeType[n]] === 0 || (g.nodeFlags[n] & NODE_PSEUDO) === 0) continue;
    const field = staticFieldName(names[g.nodeType[n]])!;
    const entry = out.get(field) ?? { holder: n, targets: [] };
    for (let e = g.firstEdge[n]; e < g.firstEdge[n + 1]; e++) {
      const t = g.edgeTarget[e];
      if ((g.nodeFlags[t] & (NODE_PSEUDO | NODE_UNDEFINED)) === 0 && !entry.targets.includes(t)) entry.targets.push(t);
    }
    out.set(field, entry);
  }
  return out;
}

/** Σ exact retained size of the objects a static field references. */
export function staticFieldBytes(a: DominanceAnalysis, targets: readonly number[]): number {
  let bytes = 0;
  for (const t of targets) bytes += a.retainedSize[t];
  return bytes;
}

/**
 * Statics holding the most memory.
 *
 * Rule: for every static field ("[static var Type.field]" holder), bytes = Σ exact retained size
 * of the objects the field references: what would be freed if those objects went away. (The
 * holder's own retained size is almost always 0: CoreCLR also keeps every static in its static
 * storage arrays, a second path, so the field never dominates its value.) Objects = the heap
 * objects in those objects' dominator subtrees, and shallowBytes their Σ shallow size (= bytes:
 * a retained size is the shallow sizes of a dominator subtree). Fields whose bytes are 0 are left out.
 */
export function inspectStatics(ctx: InspectionContext): Finding[] {
  const { g, a, token, order } = ctx;
  const { idom } = a;
  const subtree = new Uint32Array(g.nodeCount);
  for (let p = order.length - 1; p >= 1; p--) {
    if ((p & 0xffff) === 0) token.throwIfCancelled();
    const n = order[p];
    subtree[n] += (g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) === 0 ? 1 : 0;
    subtree[idom[n]] += subtree[n];
  }
  const out: Finding[] = [];
  for (const [field, { holder, targets }] of staticFieldTargets(g)) {
    const bytes = staticFieldBytes(a, targets);
    if (bytes === 0) continue;
    let objects = 0;
    const examples: number[] = [];
    for (const t of targets) {
      objects += subtree[t];
      keepLargest(examples, t, a.retainedSize, ctx.exampleCount);
    }
    out.push({
      kind: 'static-field',
      title: `static ${field} retains ${grouped(bytes)} bytes`,
      explanation: `The object referenced by the static field ${field} keeps these objects alive for the lifetime of the process.`,
      fix: 'If this is a cache or registry, bound it or remove entries when done; otherwise check that the field should hold them at all.',
      objects,
      bytes,
      shallowBytes: bytes,
      examples: examples.map((n) => exampleOf(ctx, n)),
      details: { field, holderNode: holder },
    });
  }
  return out;
}

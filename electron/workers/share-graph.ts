import type { HeapGraph } from '../../shared/graph/heap-graph.js';

/**
 * Move a graph's columns into SharedArrayBuffers, so the analysis worker reads the very same
 * memory instead of a structured-clone copy (22 bytes per node + 4 per reference saved while the
 * analysis runs; the one-time cost is a memcpy of the same size, done once per snapshot).
 *
 * The graph is never written after `finish()`, so sharing needs no locks: both threads only read.
 */
export function shareGraph(g: HeapGraph): HeapGraph {
  return {
    ...g,
    nodeType: share(g.nodeType),
    selfSize: share(g.selfSize),
    firstEdge: share(g.firstEdge),
    edgeTarget: share(g.edgeTarget),
    address: share(g.address),
    nodeFlags: share(g.nodeFlags),
    generation: share(g.generation),
    // ProblemList is a class; keep only its data so the graph structured-clones cleanly.
    problems: { entries: g.problems.entries.slice(), counts: { ...g.problems.counts }, total: g.problems.total },
  };
}

/**
 * The graph as the analysis children get it: without string contents and array/collection fill
 * (process dumps), which only the session's own views and inspections read, so they are not
 * structured-cloned into every child (fill: 9 bytes per node).
 */
export function analysisGraph(g: HeapGraph): HeapGraph {
  if (!g.stringValues && !g.nodeStringValue && !g.fillFacts) return g;
  const { stringValues: _values, nodeStringValue: _column, fillFacts: _fill, ...rest } = g;
  return rest;
}

type TypedArray = Uint8Array | Uint32Array | Float64Array | BigUint64Array;

/** `a` in a SharedArrayBuffer: itself when it already is, else a copy. */
export function share<T extends TypedArray>(a: T): T {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const ctor = a.constructor as new (b: SharedArrayBuffer) => T;
  const copy = new ctor(new SharedArrayBuffer(a.byteLength));
  (copy as unknown as { set(x: T): void }).set(a);
  return copy;
}

/** Every ArrayBuffer among a result's typed arrays (one level deep), for a zero-copy transfer back to the session worker. */
export function resultBuffers(result: object): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const x of Object.values(result)) {
    if (ArrayBuffer.isView(x) && x.buffer instanceof ArrayBuffer) out.add(x.buffer);
  }
  return [...out];
}

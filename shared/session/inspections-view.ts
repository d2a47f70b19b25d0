import type { HeapAnalysis } from '../analysis/analyze.js';
import { runInspections } from '../analysis/inspections/index.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import type { Inspections, InspectionsReq } from '../ipc/dtos-inspections.js';
import type { CancellationToken } from '../util/cancellation.js';

/** Default findings per inspection in the Insights view. */
export const INSPECTIONS_TOP = 10;

/**
 * The Insights view's query: the session's inspections, computed once per analysis and `top`
 * (a few O(nodes) passes, see shared/analysis/inspections) and kept, so switching tabs is free.
 */
export class InspectionsView {
  private cache: { analysis: HeapAnalysis; top: number; value: Inspections } | null = null;

  constructor(private readonly graph: HeapGraph) {}

  inspections(a: HeapAnalysis, req: Omit<InspectionsReq, 'sessionId'>, token: CancellationToken): Inspections {
    const top = req.top ?? INSPECTIONS_TOP;
    const c = this.cache;
    if (c && c.analysis === a && c.top === top) return c.value;
    const r = runInspections(this.graph, a, { token, top });
    const value: Inspections = { findings: r.findings, largeHeapShare: r.largeHeapShare, unavailable: r.unavailable };
    this.cache = { analysis: a, top, value };
    return value;
  }
}

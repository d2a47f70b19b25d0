import type { HeapAnalysis } from '../analysis/analyze.js';
import type { DominatorSunburst, DominatorSunburstReq } from '../ipc/dtos-sunburst.js';

/**
 * The last few sunburst answers of a session, so going back along the breadcrumbs or toggling
 * Sunburst / Treemap costs nothing (by type, the whole heap's rings read every child of the
 * root: on a flat heap that is most of the objects). Keyed by the request and the analysis
 * (a new analysis after "Compute again" drops them); each entry is a few thousand items at most.
 */
export class SunburstCache {
  private readonly entries = new Map<string, DominatorSunburst>();
  private analysis: HeapAnalysis | null = null;

  constructor(private readonly capacity = 16) {}

  get(a: HeapAnalysis, req: Omit<DominatorSunburstReq, 'sessionId'>, compute: () => DominatorSunburst): DominatorSunburst {
    if (this.analysis !== a) {
      this.entries.clear();
      this.analysis = a;
    }
    const key = JSON.stringify([req.node, req.mode, req.typePath ?? [], req.depth ?? null, req.top ?? null, req.minShare ?? null]);
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key); // most recent last
      this.entries.set(key, hit);
      return hit;
    }
    const value = compute();
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }
}

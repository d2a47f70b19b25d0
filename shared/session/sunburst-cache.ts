import type { HeapAnalysis } from '../analysis/analyze.js';
import type { DominatorSunburst, DominatorSunburstReq } from '../ipc/dtos-sunburst.js';

type Req = Omit<DominatorSunburstReq, 'sessionId'>;

/**
 * The last few sunburst answers of a session, so going back along the breadcrumbs or toggling
 * Sunburst / Treemap costs nothing (by type, the whole heap's rings read every child of the
 * root: on a flat heap that is most of the objects). Keyed by the request and the analysis
 * (a new analysis after "Compute again" drops them); each entry is a few thousand items at most.
 * The request's `view` (which view asked) is not part of the key.
 */
export class SunburstCache {
  private readonly entries = new Map<string, DominatorSunburst>();
  private analysis: HeapAnalysis | null = null;

  constructor(private readonly capacity = 16) {}

  get(a: HeapAnalysis, req: Req, compute: () => DominatorSunburst): DominatorSunburst {
    const key = this.keyOf(a, req);
    const hit = this.take(key);
    if (hit) return hit;
    const value = compute();
    this.put(a, key, value);
    return value;
  }

  /** As `get`, for a computation that takes turns with other calls (sunburstOfSliced). */
  async getAsync(a: HeapAnalysis, req: Req, compute: () => Promise<DominatorSunburst>): Promise<DominatorSunburst> {
    const key = this.keyOf(a, req);
    const hit = this.take(key);
    if (hit) return hit;
    const value = await compute();
    this.put(a, key, value);
    return value;
  }

  private keyOf(a: HeapAnalysis, req: Req): string {
    if (this.analysis !== a) {
      this.entries.clear();
      this.analysis = a;
    }
    return JSON.stringify([req.node, req.mode, req.typePath ?? [], req.depth ?? null, req.top ?? null, req.minShare ?? null]);
  }

  private take(key: string): DominatorSunburst | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key); // most recent last
      this.entries.set(key, hit);
    }
    return hit;
  }

  private put(a: HeapAnalysis, key: string, value: DominatorSunburst): void {
    if (this.analysis !== a) return; // a new analysis came while this one was computed
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../shared/analysis/analyze.js';
import { dominatorSunburst, dominatorSunburstSliced, type SunburstOptions } from '../../../../shared/analysis/dominator-sunburst.js';
import { CancellationSource, NEVER_CANCELLED } from '../../../../shared/util/cancellation.js';
import { syntheticHeap } from '../../../helpers/random-graph.js';

// Issue 16: the sunburst computed in slices (the worker's path) gives exactly the items of the
// one-go computation, pauses between slices, and stops at the first checkpoint after a cancel.
// Counted, not timed: sliceMs 0 pauses at every checkpoint.

const g = syntheticHeap(50_000, 2, 11);
const a = analyzeDominance(g);
const opts = (mode: 'object' | 'type', typePath: number[] = []): SunburstOptions => ({ mode, depth: 6, top: 50, minShare: 0.001, typePath });

describe('dominator sunburst in slices', () => {
  it('the same items as in one go, with a pause every checkpoint', async () => {
    const whole = dominatorSunburst(g, a, g.rootIndex, opts('type'));
    const firstGroup = whole.items[1].typeIndex;
    for (const o of [opts('object'), opts('type'), opts('type', [firstGroup])]) {
      let pauses = 0;
      const run = { token: NEVER_CANCELLED, pause: async () => void pauses++, sliceMs: 0, checkEvery: 100 };
      const sliced = await dominatorSunburstSliced(g, a, g.rootIndex, o, run);
      expect(sliced).toEqual(dominatorSunburst(g, a, g.rootIndex, o));
      // by type, a checkpoint comes after every 100 children read (a member's children are read
      // as one run, so a checkpoint may come later): many pauses on this heap
      if (o.mode === 'type') expect(pauses, JSON.stringify(o)).toBeGreaterThan(10);
    }
  });

  it('a long slice pauses only when its time is up', async () => {
    let pauses = 0;
    let clock = 0;
    const run = { token: NEVER_CANCELLED, pause: async () => void pauses++, sliceMs: 10, checkEvery: 1000, now: () => clock++ };
    await dominatorSunburstSliced(g, a, g.rootIndex, opts('type'), run);
    const checkpoints = clock; // one clock read per checkpoint (plus the first)
    expect(pauses).toBe(Math.floor((checkpoints - 1) / 11));
  });

  it('a cancel during a pause stops it at once with `cancelled`', async () => {
    const c = new CancellationSource();
    let pauses = 0;
    const run = {
      token: c.token,
      pause: async () => {
        if (++pauses === 3) c.cancel('superseded');
      },
      sliceMs: 0,
      checkEvery: 1000,
    };
    await expect(dominatorSunburstSliced(g, a, g.rootIndex, opts('type'), run)).rejects.toMatchObject({ code: 'cancelled', message: 'superseded' });
    expect(pauses).toBe(3);
    // cancelled before it starts: no work at all
    await expect(dominatorSunburstSliced(g, a, g.rootIndex, opts('object'), { ...run, pause: async () => void pauses++ })).rejects.toMatchObject({ code: 'cancelled' });
    expect(pauses).toBe(3);
  });

  it('by type, a query cancelled while it builds the per-child columns leaves none behind: the next one builds them whole', async () => {
    const fresh = analyzeDominance(g); // no columns yet (they are kept per analysis)
    const c = new CancellationSource();
    let pauses = 0;
    // 50,000 objects, a checkpoint per 1,000 entries: the build alone has 50 checkpoints
    const run = { token: c.token, pause: async () => void (++pauses === 3 && c.cancel('superseded')), sliceMs: 0, checkEvery: 1000 };
    await expect(dominatorSunburstSliced(g, fresh, g.rootIndex, opts('type'), run)).rejects.toMatchObject({ code: 'cancelled' });
    expect(pauses).toBe(3);
    expect(dominatorSunburst(g, fresh, g.rootIndex, opts('type'))).toEqual(dominatorSunburst(g, a, g.rootIndex, opts('type')));
  });
});

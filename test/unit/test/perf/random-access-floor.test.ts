import { describe, expect, it } from 'vitest';
import { chase, randomCycle } from '../../../perf/random-access-floor.js';

// The floor is only a floor if every read lands somewhere new: a walk caught in a short cycle
// would stay in the cache and report a latency the analysis never sees.
describe('random-access floor', () => {
  it('links every node into one cycle, in records of two words', () => {
    for (const nodes of [2, 3, 17, 1000, 65_537]) {
      const rec = randomCycle(nodes, 5);
      expect(rec.length).toBe(2 * nodes);
      const seen = new Uint8Array(nodes);
      let p = 0;
      for (let k = 0; k < nodes; k++) {
        expect(seen[p]).toBe(0);
        seen[p] = 1;
        p = rec[2 * p];
      }
      expect(p).toBe(0); // back at the start after exactly `nodes` reads
      expect(chase(rec, nodes)).toBe(0);
      expect(chase(rec, 1)).toBe(rec[0]);
    }
  });

  it('is random, not the identity shift', () => {
    const rec = randomCycle(10_000, 9);
    let successors = 0;
    for (let v = 0; v < 10_000; v++) if (rec[2 * v] === (v + 1) % 10_000) successors++;
    expect(successors).toBeLessThan(10);
  });
});

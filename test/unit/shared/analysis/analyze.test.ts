import { describe, expect, it } from 'vitest';
import { analyzeDominance, analyzeGraph, analyzeTypeRetention, dominanceCore, prepareDominanceMemory } from '../../../../shared/analysis/analyze.js';
import { CancelledError } from '../../../../shared/errors.js';
import { CancellationSource } from '../../../../shared/util/cancellation.js';
import { randomGraph, syntheticHeap } from '../../../helpers/random-graph.js';

describe('analyzeGraph progress and cancellation', () => {
  it('reports the five phases in order, each from 0 to its total', () => {
    const calls: [string, number, number][] = [];
    analyzeGraph(randomGraph(7, { nodes: 50, types: 3, avgDegree: 2 }), { progress: (p, d, t) => calls.push([p, d, t]) });
    const phases = calls.map((c) => c[0]).filter((p, i, all) => i === 0 || all[i - 1] !== p);
    expect(phases).toEqual(['retainers', 'dominators', 'retained', 'tree', 'types']);
    for (const phase of phases) {
      const mine = calls.filter((c) => c[0] === phase);
      expect(mine[0][1], phase).toBe(0);
      const last = mine[mine.length - 1];
      expect(last[1], phase).toBe(last[2]);
    }
  });

  for (const phase of ['retainers', 'dominators', 'retained', 'tree', 'types']) {
    it(`stops with CancelledError when cancelled as '${phase}' starts`, () => {
      const source = new CancellationSource();
      const seen: string[] = [];
      const run = (): unknown =>
        analyzeGraph(randomGraph(3, { nodes: 40, types: 2, avgDegree: 2 }), {
          token: source.token,
          progress: (p) => {
            seen.push(p);
            if (p === phase) source.cancel('user pressed stop');
          },
        });
      expect(run).toThrow(CancelledError);
      expect(seen[seen.length - 1]).toBe(phase);
    });
  }

  it('stops in the middle of a long phase, not only at phase boundaries', { timeout: 30_000 }, () => {
    const g = syntheticHeap(300_000, 2.5, 5);
    const source = new CancellationSource();
    let lastDone = -1;
    const run = (): unknown =>
      analyzeGraph(g, {
        token: source.token,
        progress: (p, done) => {
          if (p !== 'dominators') return;
          lastDone = done;
          if (done > 0) source.cancel();
        },
      });
    expect(run).toThrow(CancelledError);
    expect(lastDone).toBeGreaterThan(0);
    expect(lastDone).toBeLessThan(2 * g.nodeCount);
  });
});

describe('analyzeTypeRetention (what `heapscope report` runs)', () => {
  it('gives exactly analyzeDominance’s numbers, without the tree phase, on random heaps', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const g = seed % 2 ? randomGraph(seed, { nodes: 300, types: 7, avgDegree: 2.5 }) : syntheticHeap(2000, 2.5, seed);
      const phases: string[] = [];
      const lean = analyzeTypeRetention(g, { progress: (p) => phases.push(p) });
      const full = analyzeDominance(g);
      expect(new Set(phases)).toEqual(new Set(['dominators', 'retained', 'types']));
      const { treePosition, treeChildStart, domChildren, ...rest } = full;
      expect(treePosition.length).toBe(g.nodeCount);
      expect(treeChildStart.length).toBe(full.reachableCount + 1);
      expect(domChildren.length).toBe(g.nodeCount);
      expect(lean).toEqual(rest);
    }
  });
});

describe('dominanceCore with sharedMemory (what the app’s dominance worker runs)', () => {
  it('puts the arrays other threads read in SharedArrayBuffers, with the same numbers', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const g = seed % 2 ? randomGraph(seed, { nodes: 300, types: 7, avgDegree: 2.5 }) : syntheticHeap(2000, 2.5, seed);
      const plain = dominanceCore(g);
      // memory prepared ahead (what the app's worker does from a size hint): roomy, exact or too small
      const hint = [g.nodeCount + 10, g.nodeCount, g.nodeCount - 1][seed % 3];
      const shared = dominanceCore(g, { sharedMemory: true, prepared: prepareDominanceMemory(hint, g.edgeCount, true) });
      const read = (c: typeof plain) => [c.dom.order, c.dom.orderIdom, c.dom.reachable, c.orderRetained, c.orderTree.firstOrderChild, c.orderTree.orderChild];
      for (const a of read(shared)) expect(a.buffer instanceof SharedArrayBuffer).toBe(true);
      for (const a of read(plain)) expect(a.buffer instanceof SharedArrayBuffer).toBe(false);
      expect(Array.from(shared.orderTree.firstOrderChild)).toEqual(Array.from(plain.orderTree.firstOrderChild));
      expect(Array.from(shared.orderTree.orderChild)).toEqual(Array.from(plain.orderTree.orderChild));
      expect(Array.from(shared.dom.order)).toEqual(Array.from(plain.dom.order));
      expect(Array.from(shared.dom.orderIdom)).toEqual(Array.from(plain.dom.orderIdom));
      expect(Array.from(shared.dom.reachable)).toEqual(Array.from(plain.dom.reachable));
      expect(Array.from(shared.dom.idom)).toEqual(Array.from(plain.dom.idom));
      expect(Array.from(shared.orderRetained)).toEqual(Array.from(plain.orderRetained));
      expect(Array.from(shared.retainedSize)).toEqual(Array.from(plain.retainedSize));
      expect(shared.dom.idom.length).toBe(g.nodeCount);
      expect(shared.retainedSize.length).toBe(g.nodeCount);
    }
  });
});

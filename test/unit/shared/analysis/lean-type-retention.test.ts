import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeDominance, analyzeTypeRetention } from '../../../../shared/analysis/analyze.js';
import { buildOrderTree } from '../../../../shared/analysis/dominator-tree.js';
import { computeDominators } from '../../../../shared/analysis/dominators.js';
import { computeRetainedSizes, retainedByNodeInto } from '../../../../shared/analysis/retained-sizes.js';
import { computeTypeRetained } from '../../../../shared/analysis/type-retained.js';
import { CancelledError } from '../../../../shared/errors.js';
import { readGcdump } from '../../../../shared/formats/gcdump/gcdump-reader.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { fixturePath, NO_FIXTURES } from '../../../helpers/fixtures.js';
import { CancellationSource } from '../../../../shared/util/cancellation.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { mulberry32, randomGraph, syntheticHeap } from '../../../helpers/random-graph.js';

// heapscope report's analysis (lean-retention.ts) puts every array after the dominators in
// buffers the dominators left dead; these check it gives analyzeDominance's numbers bit for bit.
describe('analyzeTypeRetention in the dominators’ dead scratch', () => {
  // [root] → S → A(10) → B(20) → C(30); A → D(5); S → E(7) → D; Dead(1000) → A; C → A (back)
  const t = tinyGraph((b) => {
    b.root('S').ref('A', 'E');
    b.node('A', 10, 'T1').ref('B', 'D');
    b.node('B', 20, 'T2').ref('C');
    b.node('C', 30, 'T2').ref('A');
    b.node('D', 5, 'T1');
    b.node('E', 7, 'T3').ref('D');
    b.node('Dead', 1000, 'T1').ref('A');
  });

  for (const lowMemory of [true, false]) {
    it(`exact figures on a tiny graph (lowMemory ${lowMemory})`, () => {
      const a = analyzeTypeRetention(t.graph, { lowMemory });
      const id = t.id;
      expect(['A', 'B', 'C', 'D', 'E', 'Dead'].map((n) => a.retainedSize[id(n)])).toEqual([60, 50, 30, 5, 7, 1000]);
      expect(['A', 'B', 'C', 'D', 'E'].map((n) => a.idom[id(n)])).toEqual([id('S'), id('A'), id('B'), id('S'), id('S')]);
      expect(a.idom[id('S')]).toBe(t.graph.rootIndex);
      expect(a.idom[id('Dead')]).toBe(0xffffffff);
      expect(a.reachable[id('Dead')]).toBe(0);
      expect(a.reachableSize).toBe(72);
      expect(a.reachableCount).toBe(t.graph.nodeCount - 1);
      const type = (name: string) => t.graph.types.names.indexOf(name);
      // T1: A (60) and D (5, held by A and E, so not under A); T2: B (50) holds C; T3: E (7); Dead is no live instance
      expect([a.typeRetained[type('T1')], a.typeRetained[type('T2')], a.typeRetained[type('T3')]]).toEqual([65, 50, 7]);
    });
  }

  it('matches analyzeDominance in every field on random heaps, with and without lowMemory', () => {
    const rnd = mulberry32(606);
    for (let c = 0; c < 120; c++) {
      const seed = Math.floor(rnd() * 2 ** 31);
      const g = c % 6 === 5 ? syntheticHeap(2000 + Math.floor(rnd() * 20000), 0.5 + rnd() * 3, seed) : randomGraph(seed, { nodes: 1 + Math.floor(rnd() * 400), types: 1 + Math.floor(rnd() * 6), avgDegree: rnd() * 4 });
      const full = analyzeDominance(g);
      for (const lowMemory of [true, false]) {
        const lean = analyzeTypeRetention(g, { lowMemory });
        const why = `seed ${seed} lowMemory ${lowMemory}`;
        expect(Array.from(lean.retainedSize), why).toEqual(Array.from(full.retainedSize));
        expect(Array.from(lean.idom), why).toEqual(Array.from(full.idom));
        expect(Array.from(lean.reachable), why).toEqual(Array.from(full.reachable));
        for (const k of ['typeRetained', 'typeReachableCount', 'typeReachableShallow', 'typeUnreachableCount', 'typeUnreachableShallow'] as const) {
          expect(Array.from(lean[k]), `${why} ${k}`).toEqual(Array.from(full[k]));
        }
        for (const k of ['reachableCount', 'reachableSize', 'unreachableCount', 'unreachableSize', 'reachableObjectCount', 'unreachableObjectCount', 'unreachableObjectSize', 'unreachableFrozenCount', 'unreachableFrozenSize'] as const) {
          expect(lean[k], `${why} ${k}`).toBe(full[k]);
        }
      }
    }
  });

  it('holds idom, retained sizes and the rest in the dominators’ buffers: n + 1 words for idom, 8(n + 1) bytes for the sizes', () => {
    const g = syntheticHeap(5000, 2.5, 3); // 2.5 references per node: the compact 2-word DFS records
    const a = analyzeTypeRetention(g);
    expect(a.idom.buffer.byteLength).toBe(4 * (g.nodeCount + 1));
    expect(a.retainedSize.buffer.byteLength).toBe(8 * (g.nodeCount + 1));
    expect(a.reachable.buffer.byteLength).toBe(g.nodeCount);
  });
});

// golden: the real .gcdump fixtures (analyze.golden.test.ts has their recorded totals)
for (const file of ['perfview_test1.gcdump', 'perfview_test2.gcdump', 'monovm_ios_sample.gcdump', 'mono_android_20231108_150515_31024.gcdump']) {
  const path = fixturePath(`gcdump/${file}`);
  describe.skipIf(!path)(`analyzeTypeRetention on ${file}${path ? '' : ` (${NO_FIXTURES})`}`, () => {
    it('gives analyzeDominance’s numbers with and without lowMemory', async () => {
      const g = await readGcdump(new MemoryByteSource(readFileSync(path!), path!), {});
      const full = analyzeDominance(g);
      for (const lowMemory of [true, false]) {
        const lean = analyzeTypeRetention(g, { lowMemory });
        expect(Array.from(lean.retainedSize)).toEqual(Array.from(full.retainedSize));
        expect(Array.from(lean.idom)).toEqual(Array.from(full.idom));
        expect(Array.from(lean.typeRetained)).toEqual(Array.from(full.typeRetained));
        expect([lean.reachableCount, lean.reachableSize, lean.unreachableCount]).toEqual([full.reachableCount, full.reachableSize, full.unreachableCount]);
      }
    });
  });
}

describe('analyzeTypeRetention cancellation', () => {
  it('stops with CancelledError when cancelled in any phase, the rescan included', () => {
    const g = syntheticHeap(200_000, 2.5, 11);
    for (const [phase, at] of [['dominators', 1], ['dominators', g.nodeCount], ['retained', 1], ['types', 1]] as const) {
      const source = new CancellationSource();
      let seen = false;
      const run = () =>
        analyzeTypeRetention(g, {
          token: source.token,
          progress: (p, done) => {
            if (p === phase && done >= at && !seen) {
              seen = true;
              source.cancel();
            }
          },
        });
      expect(run, `${phase} ${at}`).toThrow(CancelledError);
      expect(seen).toBe(true);
    }
  });
});

describe('the lean path’s building blocks', () => {
  it('retainedByNodeInto, a position tree split over two buffers and the per-type pass over per-node sizes give the usual arrays', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const g = seed % 3 ? randomGraph(seed, { nodes: 300, types: 4, avgDegree: 2 }) : syntheticHeap(3000, 2.5, seed);
      const dom = computeDominators(g);
      const r = dom.order.length;
      const usual = computeRetainedSizes(g.selfSize, dom);
      const into = retainedByNodeInto(new ArrayBuffer(8 * (g.nodeCount + 1)), g.selfSize, dom);
      expect(Array.from(into)).toEqual(Array.from(usual.retainedSize));

      const own = buildOrderTree(dom);
      const first = new ArrayBuffer(4 * (r + 1));
      const children = new ArrayBuffer(4 * Math.max(r - 1, 0));
      new Uint32Array(first).fill(7); // dead memory: not zero
      const split = buildOrderTree(dom, undefined, false, first, children);
      expect(split.firstOrderChild.buffer).toBe(first);
      expect(split.orderChild.buffer).toBe(children);
      expect(Array.from(split.firstOrderChild)).toEqual(Array.from(own.firstOrderChild));
      expect(Array.from(split.orderChild)).toEqual(Array.from(own.orderChild));
      const tooSmall = buildOrderTree(dom, undefined, false, first, new ArrayBuffer(0));
      if (r > 1) expect(tooSmall.orderChild.buffer).not.toBe(children);
      expect(Array.from(tooSmall.orderChild)).toEqual(Array.from(own.orderChild));

      const byPosition = computeTypeRetained(g, dom, own, usual.orderRetained);
      const orderTypes = new ArrayBuffer(4 * r);
      const byNode = computeTypeRetained(g, dom, own, into, undefined, undefined, orderTypes, true);
      expect(Array.from(byNode.typeRetained)).toEqual(Array.from(byPosition.typeRetained));
      expect(Array.from(byNode.typeReachableCount)).toEqual(Array.from(byPosition.typeReachableCount));
    }
  });
});

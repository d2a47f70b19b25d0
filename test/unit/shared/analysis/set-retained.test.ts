import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { computeSetRetained, prepareSetRetainedScratch, SET_RETAINED_STEP, setRetainedOf, SetRetainedWalk } from '../../../../shared/analysis/set-retained.js';
import { CancelledError } from '../../../../shared/errors.js';
import { CancellationSource } from '../../../../shared/util/cancellation.js';
import type { TinyGraph } from '../../../helpers/graph-builder.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { commonDominator, reachableInstancesOf } from '../../../../shared/analysis/set-retained-scope.js';
import { NONE } from '../../../../shared/graph/heap-graph.js';
import { naiveSetRetained } from '../../../helpers/naive-set-retained.js';
import { syntheticHeap } from '../../../helpers/random-graph.js';

function typeIndex(t: TinyGraph, name: string): number {
  const i = t.graph.types.names.indexOf(name);
  if (i < 0) throw new Error(`no type ${name}`);
  return i;
}

describe('set retained size (bytes freed when every instance goes)', () => {
  // S → L1(List) → N1(Node) → L2(List) → N2(Node) → L3(List); L1 → X(Arr);
  // L4 and L5 (List) share Blob(Arr) → Inner(Leaf), which neither List dominates alone;
  // L4 and K share Shared2(Arr); W is a weak-handle category that also points at Blob;
  // Dead (Ghost) is unreachable and points at Blob too.
  const t = tinyGraph((b) => {
    b.root('S').ref('L1', 'L4', 'L5', 'K');
    b.root('W', { weak: true }).ref('Blob');
    b.node('L1', 10, 'List').ref('N1', 'X');
    b.node('N1', 4, 'Node').ref('L2');
    b.node('L2', 10, 'List').ref('N2');
    b.node('N2', 4, 'Node').ref('L3');
    b.node('L3', 10, 'List');
    b.node('X', 6, 'Arr');
    b.node('L4', 10, 'List').ref('Blob', 'Shared2');
    b.node('L5', 10, 'List').ref('Blob');
    b.node('Blob', 100, 'Arr').ref('Inner');
    b.node('Inner', 20, 'Leaf');
    b.node('K', 7, 'Keep').ref('Shared2');
    b.node('Shared2', 30, 'Arr');
    b.node('Dead', 1000, 'Ghost').ref('Blob');
  });
  const a = analyzeGraph(t.graph);
  const set = (name: string) => setRetainedOf(t.graph, a, typeIndex(t, name), prepareSetRetainedScratch(t.graph.nodeCount));

  it('is larger than the type retained size when instances hold something jointly', () => {
    expect(a.reachableSize).toBe(221);
    // type retained: L1 (44) + L4 (10) + L5 (10); Blob and Inner are held by L4 and L5 jointly
    expect(a.typeRetained[typeIndex(t, 'List')]).toBe(64);
    // removing every List frees L1's chain (44), L4, L5 (20) and Blob + Inner (120); Shared2 stays (K)
    expect(set('List')).toBe(184);
  });

  it('equals the type retained size when no object is held jointly', () => {
    expect(a.typeRetained[typeIndex(t, 'Node')]).toBe(28);
    expect(set('Node')).toBe(28);
    // X (6), Blob with Inner (120), Shared2 (30)
    expect(a.typeRetained[typeIndex(t, 'Arr')]).toBe(156);
    expect(set('Arr')).toBe(156);
    expect(set('Leaf')).toBe(20);
    expect(set('Keep')).toBe(7);
  });

  it('ignores weak references and unreachable instances and referrers', () => {
    // the weak category W still points at Blob and the dead Ghost does too: neither keeps it
    expect(set('Ghost')).toBe(0);
    expect(set('W')).toBe(0); // a weak category keeps nothing alive
    expect(set('S')).toBe(221);
    expect(set('[root]')).toBe(221);
    expect(set('UNDEFINED')).toBe(0);
  });

  it('walks only the subtree of the instances\' common dominator, and not at all when that is an instance', () => {
    const scratch = prepareSetRetainedScratch(t.graph.nodeCount);
    const walkOf = (name: string) => {
      const k = typeIndex(t, name);
      const w = new SetRetainedWalk(t.graph, a, k, scratch, reachableInstancesOf(t.graph, a.reachable, k));
      while (!w.step(SET_RETAINED_STEP));
      return { top: w.top === NONE ? null : t.name(w.top), scanned: w.scanned, result: w.result };
    };
    // N2 lies below N1: the whole of N1's subtree goes, no walk
    expect(walkOf('Node')).toEqual({ top: null, scanned: 0, result: 28 });
    // the Lists' common dominator is S: from S, without entering a List, only K and Shared2 stay
    expect(walkOf('List')).toEqual({ top: 'S', scanned: 3, result: 184 });
    // X (under L1), Blob and Shared2 (under S): from S, without Arr, S, L1, N1, L2, N2, L3, L4, L5, K
    expect(walkOf('Arr')).toEqual({ top: 'S', scanned: 9, result: 156 });
  });

  it('finds the common dominator, or gives up to the root past its budget', () => {
    const marks = new Uint32Array(8);
    const cd = (names: string[], budget = 100) => {
      marks.fill(0);
      return t.name(commonDominator(a.idom, t.graph.rootIndex, Uint32Array.from(names.map((n) => t.id(n))), marks, budget));
    };
    expect(cd(['N2', 'N1'])).toBe('N1');
    expect(cd(['L3', 'X'])).toBe('L1');
    // after moving up from L3 to L1, N2 (on L3's old chain) must not count as marked
    expect(cd(['L3', 'X', 'N2'])).toBe('L1');
    expect(cd(['L3', 'L4'])).toBe('S');
    expect(cd(['Inner'])).toBe('Inner');
    expect(cd(['L3', 'X'], 3)).toBe('[root]');
  });

  it('computes a list of types in order, with progress in scanned nodes', () => {
    const calls: [string, number, number][] = [];
    const types = ['List', 'Node', 'Ghost'].map((n) => typeIndex(t, n));
    const out = computeSetRetained(t.graph, a, types, undefined, (p, d, tot) => calls.push([p, d, tot]));
    expect([...out]).toEqual([184, 28, 0]);
    const r = a.reachableCount;
    expect(calls[0]).toEqual(['set-retained', 0, 3 * r]);
    expect(calls.at(-1)).toEqual(['set-retained', 3 * r, 3 * r]);
    expect(computeSetRetained(t.graph, a, []).length).toBe(0);
  });
});

describe('set retained walk on a large graph', () => {
  const g = syntheticHeap(300_000, 2.5, 7);
  const a = analyzeGraph(g);
  // the most common object type: its instances are spread over the whole heap
  let t = 2;
  for (let k = 2; k < g.types.count; k++) if (a.typeReachableCount[k] > a.typeReachableCount[t]) t = k;

  it('scans in steps that resume where they stopped, and is cancellable between steps', () => {
    const scratch = prepareSetRetainedScratch(g.nodeCount);
    const walk = new SetRetainedWalk(g, a, t, scratch, reachableInstancesOf(g, a.reachable, t));
    expect(walk.top).toBe(g.rootIndex); // instances all over the heap: a full walk
    expect(walk.step(1000)).toBe(false);
    expect(walk.scanned).toBe(1000);
    let steps = 1;
    while (!walk.step(777)) steps++;
    expect(walk.scanned).toBeLessThanOrEqual(a.reachableCount);
    expect(steps).toBe(Math.ceil((walk.scanned - 1000) / 777));
    const stepped = walk.result;
    expect(stepped).toBe(setRetainedOf(g, a, t, scratch));
    expect(stepped).toBeGreaterThan(a.typeRetained[t]);
    const src = new CancellationSource();
    let calls = 0;
    expect(() =>
      computeSetRetained(g, a, [t], src.token, (_p, done) => {
        if (++calls === 2) {
          expect(done).toBe(SET_RETAINED_STEP);
          src.cancel('stop');
        }
      }),
    ).toThrow(CancelledError);
  });

  it('is at least the type retained size for every type, and at most the reachable heap', () => {
    const scratch = prepareSetRetainedScratch(g.nodeCount);
    for (let k = 0; k < g.types.count; k += 97) {
      const walk = new SetRetainedWalk(g, a, k, scratch, reachableInstancesOf(g, a.reachable, k));
      while (!walk.step(SET_RETAINED_STEP));
      expect(walk.scanned).toBeLessThanOrEqual(a.reachableCount);
      expect(walk.result).toBeGreaterThanOrEqual(a.typeRetained[k]);
      expect(walk.result).toBeLessThanOrEqual(a.reachableSize);
    }
  });
});

describe('set retained with a deep dominator chain beside the walk', () => {
  // [root] → S → A(Owner) → I1, I2 (T) → Z (Leaf, held by both); A → D999, the end of a
  // 1,000-long chain S → D0 → … → D999 outside A's subtree: placing D999 climbs the whole chain.
  const t = tinyGraph((b) => {
    b.root('S').ref('A', 'D0');
    b.node('A', 10, 'Owner').ref('I1', 'I2', 'D999');
    b.node('I1', 5, 'T').ref('Z');
    b.node('I2', 5, 'T').ref('Z');
    b.node('Z', 40, 'Leaf');
    for (let i = 0; i < 1000; i++) b.node(`D${i}`, 1, 'Link').ref(...(i < 999 ? [`D${i + 1}`] : []));
  });
  const a = analyzeGraph(t.graph);

  it('places nodes outside the subtree by climbing, and matches the oracle', () => {
    const k = t.graph.types.names.indexOf('T');
    const w = new SetRetainedWalk(t.graph, a, k, prepareSetRetainedScratch(t.graph.nodeCount), reachableInstancesOf(t.graph, a.reachable, k));
    while (!w.step(SET_RETAINED_STEP));
    expect([t.name(w.top), w.scanned, w.result]).toEqual(['A', 1, 50]);
    expect(a.typeRetained[k]).toBe(10);
    expect(w.result).toBe(naiveSetRetained(t.graph, k));
  });
});

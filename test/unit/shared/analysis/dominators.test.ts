import { describe, expect, it } from 'vitest';
import type { HeapAnalysis } from '../../../../shared/analysis/analyze.js';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { NONE } from '../../../../shared/graph/heap-graph.js';
import type { TinyGraph } from '../../../helpers/graph-builder.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';

/** Hand-built graphs with exact immediate dominators and retained sizes (MAT DominatorTreeTest style). */
function analyzed(t: TinyGraph): { a: HeapAnalysis; idom: (name: string) => string; retained: (name: string) => number } {
  const a = analyzeGraph(t.graph);
  return {
    a,
    idom: (name) => {
      const d = a.idom[t.id(name)];
      return d === NONE ? 'NONE' : t.name(d);
    },
    retained: (name) => a.retainedSize[t.id(name)],
  };
}

describe('dominators and retained sizes on hand-built graphs', () => {
  it('diamond: D is reachable via B and via C, so A dominates it', () => {
    const { a, idom, retained } = analyzed(
      tinyGraph((b) => {
        b.root('[static vars]').ref('A');
        b.node('A', 16).ref('B', 'C');
        b.node('B', 8).ref('D');
        b.node('C', 8).ref('D');
        b.node('D', 32);
      }),
    );
    expect(['[root]', '[static vars]', 'A', 'B', 'C', 'D'].map(idom)).toEqual(['NONE', '[root]', '[static vars]', 'A', 'A', 'A']);
    expect(['[root]', '[static vars]', 'A', 'B', 'C', 'D'].map(retained)).toEqual([64, 64, 64, 8, 8, 32]);
    expect([a.reachableCount, a.reachableSize, a.unreachableCount, a.unreachableSize]).toEqual([6, 64, 0, 0]);
  });

  it('cycles, back edges and self-edges do not disturb a chain', () => {
    const { idom, retained } = analyzed(
      tinyGraph((b) => {
        b.root('S').ref('A');
        b.node('A', 10).ref('B');
        b.node('B', 20).ref('B', 'C');
        b.node('C', 30).ref('A', 'C', 'D');
        b.node('D', 5).ref('B', 'D');
      }),
    );
    expect(['A', 'B', 'C', 'D'].map(idom)).toEqual(['S', 'A', 'B', 'C']);
    expect(['[root]', 'S', 'A', 'B', 'C', 'D'].map(retained)).toEqual([65, 65, 65, 55, 35, 5]);
  });

  it('an object held from two root categories is dominated by the root only', () => {
    const { idom, retained } = analyzed(
      tinyGraph((b) => {
        b.root('[static vars]').ref('X');
        b.root('[local vars]').ref('X', 'Y');
        b.node('X', 10).ref('Z');
        b.node('Y', 20).ref('Z');
        b.node('Z', 4);
      }),
    );
    expect(['[static vars]', '[local vars]', 'X', 'Y', 'Z'].map(idom)).toEqual(['[root]', '[root]', '[root]', '[local vars]', '[root]']);
    expect(['[root]', '[static vars]', '[local vars]', 'X', 'Y', 'Z'].map(retained)).toEqual([34, 0, 20, 10, 20, 4]);
  });

  it('duplicate references are one path, and an undeclared target is a size-0 UNDEFINED node', () => {
    const t = tinyGraph((b) => {
      b.root('S').ref('A');
      b.node('A', 1).ref('B', 'B', 'Ghost');
      b.node('B', 2).ref('Ghost');
    });
    const { idom, retained } = analyzed(t);
    expect(t.graph.edgeCount).toBe(6);
    expect(['A', 'B', 'Ghost'].map(idom)).toEqual(['S', 'A', 'A']);
    expect(['S', 'A', 'B', 'Ghost'].map(retained)).toEqual([3, 3, 2, 0]);
  });

  it('a dead clique pointing into the live heap changes no live dominator', () => {
    const t = tinyGraph((b) => {
      b.root('S').ref('A');
      b.node('A', 10).ref('B');
      b.node('B', 20).ref('C');
      b.node('C', 30);
      // X ⇄ Y: nothing live references them, yet they reference B and C
      b.node('X', 100).ref('Y', 'C');
      b.node('Y', 200).ref('X', 'B');
    });
    const { a, idom, retained } = analyzed(t);
    // attaching X and Y under the root would have made both B and C children of the root
    expect(['A', 'B', 'C', 'X', 'Y'].map(idom)).toEqual(['S', 'A', 'B', 'NONE', 'NONE']);
    expect(['[root]', 'A', 'B', 'C', 'X', 'Y'].map(retained)).toEqual([60, 60, 50, 30, 100, 200]);
    expect([a.reachableCount, a.reachableSize, a.unreachableCount, a.unreachableSize]).toEqual([5, 60, 2, 300]);
    expect(Array.from(a.reachable)).toEqual([1, 1, 1, 1, 1, 0, 0]);
  });

  it('weak handles keep nothing alive: weakly held objects are unreachable, weak edges are no second path', () => {
    const t = tinyGraph((b) => {
      b.root('[strong]').ref('A');
      b.root('[weak]', { weak: true }).ref('W', 'A');
      b.node('A', 10).ref('A2');
      b.node('A2', 7);
      b.node('W', 50).ref('A', 'W2');
      b.node('W2', 3);
    });
    const { a, idom, retained } = analyzed(t);
    expect(['[strong]', '[weak]', 'A', 'A2', 'W', 'W2'].map(idom)).toEqual(['[root]', '[root]', '[strong]', 'A', 'NONE', 'NONE']);
    expect(['[root]', '[strong]', '[weak]', 'A', 'A2', 'W', 'W2'].map(retained)).toEqual([17, 17, 0, 17, 7, 50, 3]);
    expect([a.reachableCount, a.reachableSize, a.unreachableCount, a.unreachableSize]).toEqual([5, 17, 2, 53]);
  });

  it('a root with no counted edges dominates nothing', () => {
    const t = tinyGraph((b) => {
      b.node('A', 5).ref('B');
      b.node('B', 6);
    });
    const { a, idom, retained } = analyzed(t);
    expect(['[root]', 'A', 'B'].map(idom)).toEqual(['NONE', 'NONE', 'NONE']);
    expect(['[root]', 'A', 'B'].map(retained)).toEqual([0, 5, 6]);
    expect([a.reachableCount, a.reachableSize, a.unreachableCount, a.unreachableSize]).toEqual([1, 0, 2, 11]);
  });

  it('textbook flowgraph (Lengauer–Tarjan 1979, Fig. 1) gives the published dominator tree', () => {
    // R→A,B,C; A→D; B→A,D,E; C→F,G; D→L; E→H; F→I; G→I,J; H→E,K; I→K; J→I; K→I,R; L→H
    const t = tinyGraph((b) => {
      b.root('R').ref('A', 'B', 'C');
      b.node('A', 1).ref('D');
      b.node('B', 1).ref('A', 'D', 'E');
      b.node('C', 1).ref('F', 'G');
      b.node('D', 1).ref('L');
      b.node('E', 1).ref('H');
      b.node('F', 1).ref('I');
      b.node('G', 1).ref('I', 'J');
      b.node('H', 1).ref('E', 'K');
      b.node('I', 1).ref('K');
      b.node('J', 1).ref('I');
      b.node('K', 1).ref('I', 'R');
      b.node('L', 1).ref('H');
    });
    const { idom, retained } = analyzed(t);
    const names = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L'];
    expect(names.map(idom)).toEqual(['R', 'R', 'R', 'R', 'R', 'C', 'C', 'R', 'R', 'G', 'R', 'D']);
    expect(names.map(retained)).toEqual([1, 1, 4, 2, 1, 1, 2, 1, 1, 1, 1, 1]);
  });
});

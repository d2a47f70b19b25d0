import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import type { TinyGraph } from '../../../helpers/graph-builder.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';

function typeIndex(t: TinyGraph, name: string): number {
  const i = t.graph.types.names.indexOf(name);
  if (i < 0) throw new Error(`no type ${name}`);
  return i;
}

describe('per-type retained size (no double counting)', () => {
  // S → L1(List) → N1(Node) → L2(List) → N2(Node) → L3(List); L1 → X(Arr); S → L4(List);
  // L4 and L5 share Blob, which neither List dominates alone; Dead(List) is unreachable.
  const t = tinyGraph((b) => {
    b.root('S').ref('L1', 'L4', 'L5');
    b.node('L1', 10, 'List').ref('N1', 'X');
    b.node('N1', 4, 'Node').ref('L2');
    b.node('L2', 10, 'List').ref('N2');
    b.node('N2', 4, 'Node').ref('L3');
    b.node('L3', 10, 'List');
    b.node('X', 6, 'Arr');
    b.node('L4', 10, 'List').ref('Blob');
    b.node('L5', 10, 'List').ref('Blob');
    b.node('Blob', 100, 'Arr');
    b.node('Dead', 1000, 'List').ref('L1');
  });
  const a = analyzeGraph(t.graph);

  it('counts a nested same-type chain once', () => {
    expect(['L1', 'N1', 'L2', 'N2', 'L3'].map((n) => a.retainedSize[t.id(n)])).toEqual([44, 28, 24, 14, 10]);
    // L1 (44) + L4 (10) + L5 (10); not + L2 (24) + L3 (10), which L1 already holds
    expect(a.typeRetained[typeIndex(t, 'List')]).toBe(64);
    // N1 (28) only: N2 lies inside N1's subtree
    expect(a.typeRetained[typeIndex(t, 'Node')]).toBe(28);
  });

  it('leaves out what instances only hold jointly, and ignores unreachable instances', () => {
    expect(a.idom[t.id('Blob')]).toBe(t.id('S'));
    // X (6) is held by L1 alone, Blob (100) by L4 and L5 jointly: it is in no List's subtree
    expect(a.typeRetained[typeIndex(t, 'Arr')]).toBe(106);
    expect(a.retainedSize[t.id('Dead')]).toBe(1000);
    expect(a.typeReachableCount[typeIndex(t, 'List')]).toBe(5);
    expect(a.typeReachableShallow[typeIndex(t, 'List')]).toBe(50);
    expect(a.typeReachableCount[typeIndex(t, 'Arr')]).toBe(2);
    expect(a.typeReachableShallow[typeIndex(t, 'Arr')]).toBe(106);
  });

  it('pseudo types retain what their nodes dominate', () => {
    expect(a.typeRetained[typeIndex(t, '[root]')]).toBe(164);
    expect(a.typeRetained[typeIndex(t, 'S')]).toBe(164);
    expect(a.reachableSize).toBe(164);
    expect(a.unreachableSize).toBe(1000);
    expect(a.typeRetained[0]).toBe(0); // UNDEFINED: no instances
  });
});

import { describe, expect, it } from 'vitest';
import { SnapshotSession } from '../../../../shared/session/snapshot-session.js';
import type { FileEntry, FileToken, SessionId } from '../../../../shared/ipc/contract.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { NONE } from '../../../../shared/graph/heap-graph.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { naiveAnalysis } from '../../../helpers/naive-dominators.js';
import { mulberry32, randomGraph } from '../../../helpers/random-graph.js';

// Issue 14: the dominator tree grouped by type, and "Retained by" (grouped-dominator-view.ts,
// retained-by-view.ts), on a hand-built graph with exact numbers and against the naive oracle.

const FILE: FileEntry = { token: 'tok' as FileToken, name: 'g.gcdump', displayPath: '/x/g.gcdump', size: 1, modifiedMs: 0, source: 'path', formatHint: 'gcdump', exists: true };

function session(g: HeapGraph): SnapshotSession {
  const s = new SnapshotSession(g, { sessionId: 's1' as SessionId, file: FILE, parseMs: 1 });
  s.runAnalysis();
  return s;
}

// [static vars] → L1 → L2 → L3 → S      (a linked list of Node: L2, L3 nest under L1)
// [local vars]  → H → L4 → A;  H → W;  L1 → W (W is held by both: its dominator is the root)
// G (a Node) is garbage.
//   retained: S 5, L3 15, L2 25, L1 35, [static vars] 35; A 40, L4 50, H 70, [local vars] 70; W 6; total 118
const tiny = () =>
  tinyGraph((b) => {
    b.root('[static vars]').ref('L1');
    b.root('[local vars]').ref('H');
    b.node('L1', 10, 'Node').ref('L2', 'W');
    b.node('L2', 10, 'Node').ref('L3');
    b.node('L3', 10, 'Node').ref('S');
    b.node('S', 5, 'Str');
    b.node('H', 20, 'Holder').ref('L4', 'W');
    b.node('L4', 10, 'Node').ref('A');
    b.node('A', 40, 'Arr');
    b.node('W', 6, 'Str');
    b.node('G', 7, 'Node');
  });

describe('dominator tree grouped by type (hand-built graph)', () => {
  it('one row per type: outermost instances, their count and Σ retained (= the type retained size)', () => {
    const t = tiny();
    const s = session(t.graph);
    const ti = (name: string) => t.graph.types.names.indexOf(name);
    const w = s.dominatorTypeGroups({ start: 0, end: 100 });
    const seventy = [ti('Holder'), ti('[local vars]')].sort((x, y) => x - y).map((i) => t.graph.types.names[i]);
    expect(w.total).toBe(6);
    expect(w.rows.map((r) => [r.type, r.count, r.reachableCount, r.retainedSize, r.pseudo])).toEqual([
      ['Node', 2, 4, 85, false],
      [seventy[0], 1, 1, 70, seventy[0] !== 'Holder'],
      [seventy[1], 1, 1, 70, seventy[1] !== 'Holder'],
      ['Arr', 1, 1, 40, false],
      ['[static vars]', 1, 1, 35, true],
      ['Str', 2, 2, 11, false],
    ]);
    expect(w.rows[0].retainedPercent).toBeCloseTo((85 / 118) * 100, 10);
    // the same figure as the Types view's retained size
    const types = s.typeRows({ sort: { key: 'type', dir: 'asc' }, start: 0, end: 100 }).rows;
    for (const r of w.rows) {
      const row = types.find((x) => x.typeIndex === r.typeIndex);
      if (row) expect(row.retainedSize).toBe(r.retainedSize);
    }
    // windows
    const w2 = s.dominatorTypeGroups({ start: 4, end: 10 });
    expect([w2.start, w2.end, w2.total, w2.rows.map((r) => r.type)]).toEqual([4, 6, 6, ['[static vars]', 'Str']]);
  });

  it('expanding a type lists its outermost instances, largest retained first', () => {
    const t = tiny();
    const s = session(t.graph);
    const node = t.graph.types.names.indexOf('Node');
    const str = t.graph.types.names.indexOf('Str');
    const n = s.dominatorTypeInstances({ typeIndex: node, start: 0, end: 10 });
    expect(n.total).toBe(2);
    expect(n.rows.map((r) => [t.name(r.node), r.retainedSize, r.childCount])).toEqual([
      ['L4', 50, 1],
      ['L1', 35, 1],
    ]);
    expect(s.dominatorTypeInstances({ typeIndex: str, start: 1, end: 10 }).rows.map((r) => t.name(r.node))).toEqual(['S']);
    // nested instances are under their outer one in the ordinary tree
    expect(s.dominatorChildren({ node: t.id('L1'), start: 0, end: 10 }).rows.map((r) => t.name(r.node))).toEqual(['L2']);
    expect(() => s.dominatorTypeInstances({ typeIndex: 999, start: 0, end: 1 })).toThrow(/no type with index 999/);
  });

  it('"Retained by": instances grouped by their immediate dominator\'s type', () => {
    const t = tiny();
    const s = session(t.graph);
    const rb = s.retainedBy({ typeIndex: t.graph.types.names.indexOf('Node') });
    expect([rb.type, rb.reachableCount, rb.unreachableCount, rb.typeRetainedSize]).toEqual(['Node', 4, 1, 85]);
    expect(rb.rows.map((r) => [r.type, r.count, r.retainedSize, r.self, r.pseudo])).toEqual([
      ['Holder', 1, 50, false, false], // L4
      ['Node', 2, 40, true, false], // L2 (25) and L3 (15): nested in the list
      ['[static vars]', 1, 35, false, true], // L1
    ]);
    expect(rb.rows[0].retainedPercent).toBeCloseTo((50 / 118) * 100, 10);
    const str = s.retainedBy({ typeIndex: t.graph.types.names.indexOf('Str') });
    expect(str.rows.map((r) => [r.type, r.count, r.retainedSize, r.pseudo])).toEqual([
      ['[root]', 1, 6, true], // W: held by two roots, dominated by the root node only
      ['Node', 1, 5, false], // S under L3
    ]);
    expect(() => s.retainedBy({ typeIndex: -1 })).toThrow(/no type with index -1/);
    // expanding a row: the dominator objects, with their instance count and Σ retained
    const node = t.graph.types.names.indexOf('Node');
    const objs = s.retainedByObjects({ typeIndex: node, dominatorTypeIndex: node, start: 0, end: 10 });
    expect(objs.total).toBe(2);
    expect(objs.rows.map((r) => [t.name(r.node), r.type, r.count, r.retainedSize])).toEqual([
      ['L1', 'Node', 1, 25], // dominates L2
      ['L2', 'Node', 1, 15], // dominates L3
    ]);
    const holder = s.retainedByObjects({ typeIndex: node, dominatorTypeIndex: t.graph.types.names.indexOf('Holder'), start: 0, end: 10 });
    expect(holder.rows.map((r) => [t.name(r.node), r.count, r.retainedSize, r.pseudo])).toEqual([['H', 1, 50, false]]);
    expect(s.retainedByObjects({ typeIndex: node, dominatorTypeIndex: node, start: 1, end: 10 }).rows.map((r) => t.name(r.node))).toEqual(['L2']);
  });

  it('waits for the analysis: before it, a coded error', () => {
    const t = tiny();
    const s = new SnapshotSession(t.graph, { sessionId: 's1' as SessionId, file: FILE, parseMs: 1 });
    expect(SnapshotSession.needsAnalysis('dominatorTypeGroups', {})).toBe(true);
    expect(SnapshotSession.needsAnalysis('retainedBy', {})).toBe(true);
    expect(() => s.dominatorTypeGroups({ start: 0, end: 1 })).toThrow(/has not finished/);
  });
});

describe('grouped dominator tree and "Retained by" against the naive oracle (random graphs)', () => {
  it('matches dominators computed from the definition on 150 random graphs', () => {
    const rnd = mulberry32(1414);
    for (let seed = 1; seed <= 150; seed++) {
      const g = randomGraph(seed, { nodes: 1 + Math.floor(rnd() * 40), types: 1 + Math.floor(rnd() * 4), avgDegree: 0.5 + rnd() * 2.5 });
      const o = naiveAnalysis(g);
      const s = session(g);
      const tc = g.types.count;
      // outermost: reachable, not the root, no proper (naive) dominator of the same type
      const count = new Array<number>(tc).fill(0);
      const bytes = new Array<number>(tc).fill(0);
      const members: number[][] = Array.from({ length: tc }, () => []);
      for (let v = 0; v < g.nodeCount; v++) {
        if (!o.reachable[v] || v === g.rootIndex) continue;
        let outer = true;
        for (let d = o.idom[v]; d !== NONE; d = o.idom[d]) if (d !== g.rootIndex && g.nodeType[d] === g.nodeType[v]) outer = false;
        if (!outer) continue;
        count[g.nodeType[v]]++;
        bytes[g.nodeType[v]] += o.retained[v];
        members[g.nodeType[v]].push(v);
      }
      const expected = [...Array(tc).keys()].filter((t) => count[t] > 0).sort((x, y) => bytes[y] - bytes[x] || x - y);
      const w = s.dominatorTypeGroups({ start: 0, end: 1000 });
      expect(w.rows.map((r) => [r.typeIndex, r.count, r.retainedSize]), `seed ${seed}`).toEqual(expected.map((t) => [t, count[t], bytes[t]]));
      for (const t of expected) {
        if (t !== g.nodeType[g.rootIndex]) expect(bytes[t], `seed ${seed} type ${t}`).toBe(o.typeRetained[t]);
        const inst = s.dominatorTypeInstances({ typeIndex: t, start: 0, end: 1000 }).rows.map((r) => r.node);
        const want = members[t].slice().sort((x, y) => o.retained[y] - o.retained[x] || x - y);
        expect(inst, `seed ${seed} type ${t}`).toEqual(want);
      }
      // retained by: the Instances view's objects (no pseudo/undefined nodes) by idom type
      const inst = s.objectRows.bind(s);
      for (let t = 0; t < tc; t++) {
        const objs = inst({ typeIndex: t, sort: { key: 'address', dir: 'asc' }, start: 0, end: 10_000 }).rows.map((r) => r.node);
        const byType = new Map<number, { count: number; bytes: number }>();
        let unreachable = 0;
        for (const x of objs) {
          if (!o.reachable[x]) {
            unreachable++;
            continue;
          }
          if (o.idom[x] === NONE) continue;
          const dt = g.nodeType[o.idom[x]];
          const e = byType.get(dt) ?? { count: 0, bytes: 0 };
          e.count++;
          e.bytes += o.retained[x];
          byType.set(dt, e);
        }
        const want = [...byType].sort((x, y) => y[1].bytes - x[1].bytes || y[1].count - x[1].count || x[0] - y[0]).map(([dt, e]) => [dt, e.count, e.bytes]);
        const rb = s.retainedBy({ typeIndex: t });
        expect(rb.rows.map((r) => [r.typeIndex, r.count, r.retainedSize]), `seed ${seed} type ${t}`).toEqual(want);
        expect(rb.unreachableCount).toBe(unreachable);
        // the dominator objects of each row: per dominator, instances and Σ retained
        for (const [dt] of byType) {
          const per = new Map<number, [number, number]>();
          for (const x of objs) {
            if (!o.reachable[x] || o.idom[x] === NONE || g.nodeType[o.idom[x]] !== dt) continue;
            const e = per.get(o.idom[x]) ?? [0, 0];
            e[0]++;
            e[1] += o.retained[x];
            per.set(o.idom[x], e);
          }
          const wantObjs = [...per].sort((x, y) => y[1][1] - x[1][1] || y[1][0] - x[1][0] || x[0] - y[0]).map(([d, [c, b]]) => [d, c, b]);
          const got = s.retainedByObjects({ typeIndex: t, dominatorTypeIndex: dt, start: 0, end: 10_000 });
          expect(got.rows.map((r) => [r.node, r.count, r.retainedSize]), `seed ${seed} type ${t} by ${dt}`).toEqual(wantObjs);
        }
      }
    }
  });
});

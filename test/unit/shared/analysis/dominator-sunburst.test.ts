import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../shared/analysis/analyze.js';
import { dominatorSunburst, type SunburstItem, type SunburstOptions } from '../../../../shared/analysis/dominator-sunburst.js';
import { NONE } from '../../../../shared/graph/heap-graph.js';
import type { FileEntry, FileToken, SessionId } from '../../../../shared/ipc/contract.js';
import { SnapshotSession } from '../../../../shared/session/snapshot-session.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';

// Issue 16: the aggregated rings of the dominator tree for the sunburst (dominator-sunburst.ts),
// on a hand-built graph with exact numbers.

// [static vars] → Cache → E1 → V1;  Cache → E2 → V2;  Cache → E3 → B;  Cache → Arr
// [local vars]  → T
//   retained: E1 12, E2 12, E3 108, Arr 50, Cache 192, [static vars] 192, T 30, [local vars] 30; root 222
const tiny = () =>
  tinyGraph((b) => {
    b.root('[static vars]').ref('Cache');
    b.root('[local vars]').ref('T');
    b.node('Cache', 10, 'Cache').ref('E1', 'E2', 'E3', 'Arr');
    b.node('E1', 8, 'Entry').ref('V1');
    b.node('E2', 8, 'Entry').ref('V2');
    b.node('E3', 8, 'Entry').ref('B');
    b.node('V1', 4, 'Str');
    b.node('V2', 4, 'Str');
    b.node('B', 100, 'Buf');
    b.node('Arr', 50, 'Arr');
    b.node('T', 30, 'Task');
    b.node('G', 7, 'Entry'); // garbage: in no ring
  });

const opts = (o: Partial<SunburstOptions>): SunburstOptions => ({ mode: 'object', depth: 4, top: 30, minShare: 0.005, typePath: [], ...o });

describe('dominator sunburst (hand-built graph)', () => {
  const t = tiny();
  const g = t.graph;
  const a = analyzeDominance(g);
  const ti = (name: string) => g.types.names.indexOf(name);
  const label = (it: SunburstItem) => (it.kind === 'others' ? `${it.folded} others` : it.kind === 'object' ? t.name(it.node) : g.types.names[it.typeIndex]);
  const rows = (items: SunburstItem[]) => items.map((it) => [it.depth, it.parent, it.kind, label(it), it.retained, it.count, it.childCount]);

  it('by object: the center is the root with the reachable size, rings largest first', () => {
    const r = dominatorSunburst(g, a, g.rootIndex, opts({ depth: 3 }));
    expect(rows(r.items)).toEqual([
      [0, -1, 'object', '[root]', 222, 1, 2],
      [1, 0, 'object', '[static vars]', 192, 1, 1],
      [1, 0, 'object', '[local vars]', 30, 1, 1],
      [2, 1, 'object', 'Cache', 192, 1, 4],
      [2, 2, 'object', 'T', 30, 1, 0],
      [3, 3, 'object', 'E3', 108, 1, 1],
      [3, 3, 'object', 'Arr', 50, 1, 0],
      [3, 3, 'object', 'E1', 12, 1, 1],
      [3, 3, 'object', 'E2', 12, 1, 1],
    ]);
    expect(r.items[0].retained).toBe(a.reachableSize);
  });

  it('by object: children past top fold into one "others" item with their exact sum', () => {
    const r = dominatorSunburst(g, a, t.id('Cache'), opts({ depth: 2, top: 2 }));
    expect(rows(r.items)).toEqual([
      [0, -1, 'object', 'Cache', 192, 1, 4],
      [1, 0, 'object', 'E3', 108, 1, 1],
      [1, 0, 'object', 'Arr', 50, 1, 0],
      [1, 0, 'others', '2 others', 24, 2, 0], // E1 + E2
      [2, 1, 'object', 'B', 100, 1, 0],
    ]);
    expect(r.items[3].folded).toBe(2);
  });

  it('by object: children under minShare of the center fold too (ties by ordinal)', () => {
    // threshold 0.06 × 192 = 11.52: E1 and E2 (12) stay, V1 (4) under E1 folds
    const r = dominatorSunburst(g, a, t.id('Cache'), opts({ depth: 2, minShare: 0.06 }));
    expect(rows(r.items).slice(5)).toEqual([
      [2, 1, 'object', 'B', 100, 1, 0],
      [2, 3, 'others', '1 others', 4, 1, 0],
      [2, 4, 'others', '1 others', 4, 1, 0],
    ]);
    // threshold 0.07 × 192 = 13.44: E1 and E2 fold
    const r2 = dominatorSunburst(g, a, t.id('Cache'), opts({ depth: 1, minShare: 0.07 }));
    expect(rows(r2.items)).toEqual([
      [0, -1, 'object', 'Cache', 192, 1, 4],
      [1, 0, 'object', 'E3', 108, 1, 1],
      [1, 0, 'object', 'Arr', 50, 1, 0],
      [1, 0, 'others', '2 others', 24, 2, 0],
    ]);
  });

  it('by type: children grouped by type with counts; a group of one names its object', () => {
    const r = dominatorSunburst(g, a, g.rootIndex, opts({ mode: 'type', minShare: 0.02 }));
    expect(rows(r.items)).toEqual([
      [0, -1, 'object', '[root]', 222, 1, 2],
      [1, 0, 'group', '[static vars]', 192, 1, 1],
      [1, 0, 'group', '[local vars]', 30, 1, 1],
      [2, 1, 'group', 'Cache', 192, 1, 4],
      [2, 2, 'group', 'Task', 30, 1, 0],
      [3, 3, 'group', 'Entry', 132, 3, 3],
      [3, 3, 'group', 'Arr', 50, 1, 0],
      [4, 5, 'group', 'Buf', 100, 1, 0],
      [4, 5, 'group', 'Str', 8, 2, 0],
    ]);
    expect(r.items[3].node).toBe(t.id('Cache'));
    expect(r.items[5].node).toBe(NONE); // three Entry objects
    // minShare 0.04 × 222 = 8.88: the two strings (8) fold into one item of two objects
    const r2 = dominatorSunburst(g, a, g.rootIndex, opts({ mode: 'type', minShare: 0.04 }));
    expect(rows(r2.items).slice(7)).toEqual([
      [4, 5, 'group', 'Buf', 100, 1, 0],
      [4, 5, 'others', '1 others', 8, 2, 0],
    ]);
    expect(r2.items[8].folded).toBe(1);
  });

  it('by type: a type path makes a group the center', () => {
    const path = [ti('[static vars]'), ti('Cache'), ti('Entry')];
    const r = dominatorSunburst(g, a, g.rootIndex, opts({ mode: 'type', typePath: path }));
    expect(rows(r.items)).toEqual([
      [0, -1, 'group', 'Entry', 132, 3, 3],
      [1, 0, 'group', 'Buf', 100, 1, 0],
      [1, 0, 'group', 'Str', 8, 2, 0],
    ]);
    expect(() => dominatorSunburst(g, a, g.rootIndex, opts({ mode: 'type', typePath: [ti('Cache')] }))).toThrow(/no dominated objects of type Cache/);
  });

  it('every ring adds up: Σ children = parent retained − the parent objects\' own sizes', () => {
    for (const mode of ['object', 'type'] as const) {
      for (const top of [1, 2, 30]) {
        const { items } = dominatorSunburst(g, a, g.rootIndex, opts({ mode, top, depth: 8 }));
        for (let p = 0; p < items.length; p++) {
          const kids = items.filter((x) => x.parent === p);
          if (kids.length === 0) continue;
          const sum = kids.reduce((s, x) => s + x.retained, 0);
          expect(sum).toBeLessThanOrEqual(items[p].retained);
          expect(kids.reduce((s, x) => s + x.count, 0)).toBe(items[p].childCount);
        }
      }
    }
  });

  it('refuses bad options with a coded error', () => {
    expect(() => dominatorSunburst(g, a, 0, opts({ depth: 0 }))).toThrow(/depth must be 1..8/);
    expect(() => dominatorSunburst(g, a, 0, opts({ top: 201 }))).toThrow(/top must be 1..200/);
    expect(() => dominatorSunburst(g, a, 0, opts({ minShare: 0 }))).toThrow(/minShare/);
    expect(() => dominatorSunburst(g, a, 0, opts({ typePath: [1] }))).toThrow(/needs mode type/);
    expect(() => dominatorSunburst(g, a, 0, opts({ mode: 'type', typePath: [999] }))).toThrow(/no type with index 999/);
  });

  it('through the session: DTOs with names, addresses, and a wait for the analysis', () => {
    const FILE: FileEntry = { token: 'tok' as FileToken, name: 'g.gcdump', displayPath: '/x/g.gcdump', size: 1, modifiedMs: 0, source: 'path', formatHint: 'gcdump', exists: true };
    const s = new SnapshotSession(g, { sessionId: 's1' as SessionId, file: FILE, parseMs: 1 });
    expect(SnapshotSession.needsAnalysis('dominatorSunburst', {})).toBe(true);
    expect(() => s.dominatorSunburst({ node: null, mode: 'object' })).toThrow(/has not finished/);
    s.runAnalysis();
    const r = s.dominatorSunburst({ node: t.id('Cache'), mode: 'object', depth: 1, top: 2 });
    expect([r.node, r.mode, r.depth, r.top, r.minShare, r.reachableSize]).toEqual([t.id('Cache'), 'object', 1, 2, 0.005, 222]);
    expect(r.items.map((x) => [x.name, x.node, x.typeIndex, x.retainedSize, x.count, x.folded])).toEqual([
      ['Cache', t.id('Cache'), ti('Cache'), 192, 1, 0],
      ['Entry', t.id('E3'), ti('Entry'), 108, 1, 0],
      ['Arr', t.id('Arr'), ti('Arr'), 50, 1, 0],
      ['2 others', null, null, 24, 2, 2],
    ]);
    expect(r.items[1].address).toBe(s.objectInfo({ node: t.id('E3') }).address);
    expect(r.items[3].address).toBeNull();
    const root = s.dominatorSunburst({ node: null, mode: 'type', depth: 1 });
    expect(root.items.map((x) => [x.name, x.pseudo])).toEqual([['[root]', true], ['[static vars]', true], ['[local vars]', true]]);
    expect(() => s.dominatorSunburst({ node: 999, mode: 'object' })).toThrow(/no node with ordinal 999/);
    // answers are kept per request (breadcrumbs back, chart toggles) until the analysis changes
    const req = { node: null, mode: 'type' as const, typePath: [ti('[static vars]')] };
    const first = s.dominatorSunburst(req);
    expect(s.dominatorSunburst({ ...req })).toBe(first);
    expect(s.dominatorSunburst({ ...req, depth: 2 })).not.toBe(first);
    s.runAnalysis();
    const again = s.dominatorSunburst(req);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});

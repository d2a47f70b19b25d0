import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import '../../../../shared/formats/all-readers.js';
import { readSnapshot } from '../../../../shared/formats/read-snapshot.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { fixturePath, NO_FIXTURES } from '../../../helpers/fixtures.js';
import { SnapshotSession } from '../../../../shared/session/snapshot-session.js';
import type { SessionId } from '../../../../shared/ipc/contract.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { holderLeafSession } from '../../../helpers/tiny-session.js';

// root → [static vars] → A(Holder 16) → B, C (Leaf 8 each) → D (Big 32, via both)
// root → [local vars] → E(Holder 24) → F(Leaf 8);   G (Garbage 100) is referenced by nothing.
const fixture = holderLeafSession;

const names = (rows: { type: string }[]) => rows.map((r) => r.type);

describe('SnapshotSession type rows', () => {
  it('serves counts and shallow sizes before the analysis, retained null', () => {
    const { s } = fixture();
    const w = s.typeRows({ sort: { key: 'shallowSize', dir: 'desc' }, start: 0, end: 10 });
    expect(w.total).toBe(4);
    expect(w.rows.map((r) => [r.type, r.count, r.shallowSize, r.retainedSize])).toEqual([
      ['Garbage', 1, 100, null],
      ['Holder', 2, 40, null],
      ['Big', 1, 32, null],
      ['Leaf', 3, 24, null],
    ]);
    expect(w.rows[0].shallowPercent).toBeCloseTo((100 / 196) * 100, 10);
    // retained sort before the analysis: name order (all unknown)
    expect(names(s.typeRows({ sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 10 }).rows)).toEqual(['Big', 'Garbage', 'Holder', 'Leaf']);
  });

  it('fills retained sizes after the analysis and re-sorts (no stale cache)', () => {
    const { s } = fixture();
    s.typeRows({ sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 10 });
    s.runAnalysis();
    const w = s.typeRows({ sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 10 });
    expect(w.rows.map((r) => [r.type, r.retainedSize])).toEqual([
      ['Holder', 96],
      ['Big', 32],
      ['Leaf', 24],
      ['Garbage', 0],
    ]);
    expect(w.rows[0].retainedPercent).toBeCloseTo((96 / 196) * 100, 10);
  });

  it('breaks ties by name, windows and filters', () => {
    const { s } = fixture();
    expect(names(s.typeRows({ sort: { key: 'count', dir: 'desc' }, start: 0, end: 10 }).rows)).toEqual(['Leaf', 'Holder', 'Big', 'Garbage']);
    expect(names(s.typeRows({ sort: { key: 'count', dir: 'asc' }, start: 0, end: 10 }).rows)).toEqual(['Big', 'Garbage', 'Holder', 'Leaf']);
    const w = s.typeRows({ sort: { key: 'type', dir: 'desc' }, start: 1, end: 3 });
    expect([w.start, w.end, w.total]).toEqual([1, 3, 4]);
    expect(names(w.rows)).toEqual(['Holder', 'Garbage']);
    const f = s.typeRows({ sort: { key: 'type', dir: 'asc' }, filter: ' E ', start: 0, end: 10 });
    expect(f.total).toBe(3);
    expect(names(f.rows)).toEqual(['Garbage', 'Holder', 'Leaf']);
    // the module path matches too (every type here lives in tiny.dll)
    expect(s.typeRows({ sort: { key: 'type', dir: 'asc' }, filter: 'TINY', start: 0, end: 10 }).total).toBe(4);
    expect(s.typeRows({ sort: { key: 'type', dir: 'asc' }, start: 7, end: 9 })).toEqual({ start: 4, end: 4, total: 4, rows: [] });
  });

  it('rejects bad windows', () => {
    const { s } = fixture();
    expect(() => s.typeRows({ sort: { key: 'type', dir: 'asc' }, start: 3, end: 1 })).toThrow(/bad window/);
    expect(() => s.typeRows({ sort: { key: 'type', dir: 'asc' }, start: 0, end: 20_001 })).toThrow(/too large/);
  });
});

describe('SnapshotSession objects, dominators, references, paths', () => {
  it('lists the instances of a type sorted by size / retained / address with a hex filter', () => {
    const { t, s } = fixture();
    const leaf = s.typeRows({ sort: { key: 'type', dir: 'asc' }, filter: 'leaf', start: 0, end: 1 }).rows[0].typeIndex;
    const bySize = s.objectRows({ typeIndex: leaf, sort: { key: 'address', dir: 'desc' }, start: 0, end: 10 });
    expect(bySize.rows.map((r) => t.name(r.node))).toEqual(['F', 'C', 'B']);
    expect(bySize.rows[0].address).toBe('0x' + (0x1000 + t.id('F') * 0x10).toString(16));
    expect(bySize.rows[0].retainedSize).toBeNull();
    const hex = (0x1000 + t.id('C') * 0x10).toString(16);
    expect(s.objectRows({ typeIndex: leaf, sort: { key: 'size', dir: 'asc' }, filter: '0X' + hex.toUpperCase(), start: 0, end: 10 }).rows.map((r) => t.name(r.node))).toEqual(['C']);
    s.runAnalysis();
    const holder = s.typeRows({ sort: { key: 'type', dir: 'asc' }, filter: 'holder', start: 0, end: 1 }).rows[0].typeIndex;
    const h = s.objectRows({ typeIndex: holder, sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 10 });
    expect(h.rows.map((r) => [t.name(r.node), r.size, r.retainedSize, r.reachable])).toEqual([
      ['A', 16, 64, true],
      ['E', 24, 32, true],
    ]);
  });

  it('windows the dominator tree and the dominator path', () => {
    const { t, s } = fixture();
    expect(SnapshotSession.needsAnalysis('dominatorChildren', {})).toBe(true);
    expect(() => s.dominatorChildren({ node: null, start: 0, end: 10 })).toThrow(/not finished/);
    s.runAnalysis();
    const top = s.dominatorChildren({ node: null, start: 0, end: 10 });
    expect(top.rows.map((r) => [r.type, r.retainedSize, r.childCount, r.pseudo])).toEqual([
      ['[static vars]', 64, 1, true],
      ['[local vars]', 32, 1, true],
    ]);
    const a = s.dominatorChildren({ node: t.id('A'), start: 0, end: 10 });
    expect(a.rows.map((r) => [t.name(r.node), r.retainedSize])).toEqual([
      ['D', 32],
      ['B', 8],
      ['C', 8],
    ]);
    expect(s.dominatorPath({ node: t.id('D') }).path.map((r) => t.name(r.node))).toEqual(['[root]', '[static vars]', 'A', 'D']);
    expect(s.summary().reachable).toEqual({ count: 6, size: 96 }); // objects: the root and 2 categories are not
    expect(s.summary().unreachable).toEqual({ count: 1, size: 100 });
  });

  it('lists outgoing and incoming references', () => {
    const { t, s } = fixture();
    expect(s.references({ node: t.id('A'), direction: 'outgoing', start: 0, end: 5 }).rows.map((r) => t.name(r.node))).toEqual(['B', 'C']);
    s.runAnalysis();
    const inc = s.references({ node: t.id('D'), direction: 'incoming', start: 0, end: 5 });
    expect(inc.rows.map((r) => t.name(r.node)).sort()).toEqual(['B', 'C']);
    expect(s.objectInfo({ node: t.id('D') })).toMatchObject({ type: 'Big', size: 32, retainedSize: 32, dominator: t.id('A'), outgoing: 0, incoming: 2 });
  });

  it('finds paths to roots for an object and merges them for a type', () => {
    const { t, s } = fixture();
    s.runAnalysis();
    const p = s.pathsToRoots({ target: { kind: 'object', node: t.id('D') }, maxPaths: 5 });
    if (p.kind !== 'object') throw new Error('expected object paths');
    expect(p.reachable).toBe(true);
    expect(p.paths.map((x) => x.steps.map((st) => t.name(st.node)))).toEqual([
      ['[root]', '[static vars]', 'A', 'B', 'D'],
      ['[root]', '[static vars]', 'A', 'C', 'D'],
    ]);
    const leaf = s.typeRows({ sort: { key: 'type', dir: 'asc' }, filter: 'leaf', start: 0, end: 1 }).rows[0].typeIndex;
    const tp = s.pathsToRoots({ target: { kind: 'type', typeIndex: leaf } });
    if (tp.kind !== 'type') throw new Error('expected a type tree');
    expect(tp.instances).toBe(3);
    expect(tp.nodes.map((n) => [n.depth, n.type, n.count])).toEqual([
      [0, 'Leaf', 3],
      [1, 'Holder', 3],
      [2, '[static vars]', 2],
      [3, '[root]', 2],
      [2, '[local vars]', 1],
      [3, '[root]', 1],
    ]);
    expect(tp.nodes[1].parent).toBe(0);
  });
});

describe('SnapshotSession diff and CSV export', () => {
  it('diffs by type name against another session summary', () => {
    const { s } = fixture();
    const base = tinyGraph((b) => {
      b.root('[static vars]').ref('A');
      b.node('A', 16, 'Holder').ref('B');
      b.node('B', 8, 'Leaf');
      b.node('X', 4, 'OnlyBase');
    });
    const bs = new SnapshotSession(base.graph, { ...s.info, sessionId: 's0' as SessionId });
    bs.runAnalysis();
    s.runAnalysis();
    const d = s.diff({ sort: { key: 'countDelta', dir: 'desc' }, start: 0, end: 10 }, 's0', bs.typeSummary());
    expect(d.rows.map((r) => [r.type, r.status, r.baselineCount, r.count, r.countDelta])).toEqual([
      ['Leaf', 'both', 1, 3, 2],
      ['Big', 'added', 0, 1, 1],
      ['Garbage', 'added', 0, 1, 1],
      ['Holder', 'both', 1, 2, 1],
      ['OnlyBase', 'removed', 1, 0, -1],
    ]);
    expect(d.totals).toMatchObject({ count: 7, baselineCount: 3, shallowSize: 196, baselineShallowSize: 28 });
    expect([d.added, d.removed]).toEqual([2, 1]);
  });

  it('exports all rows of the current view, not only a window', () => {
    const { s } = fixture();
    s.runAnalysis();
    const out = s.exportCsv({ sessionId: 's1' as SessionId, view: 'types', sort: { key: 'retainedSize', dir: 'desc' } });
    expect(out.fileName).toBe('tiny-types.csv');
    const text = [...out.chunks].join('');
    expect(text).toBe(
      'type,count,shallowSize,retainedSize,scaledCount,scaledShallowSize,unreachableCount,unreachableSize,module\r\n' +
        'Holder,2,40,96,,,0,0,tiny.dll\r\nBig,1,32,32,,,0,0,tiny.dll\r\nLeaf,3,24,24,,,0,0,tiny.dll\r\nGarbage,1,100,0,,,1,100,tiny.dll\r\n',
    );
  });
});

const PERFVIEW1 = fixturePath('gcdump/perfview_test1.gcdump');
describe.skipIf(!PERFVIEW1)(`golden: perfview_test1.gcdump through the session${PERFVIEW1 ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('shows the oracle numbers (expected-values.md §1.1) in its summary and first type row', async () => {
    const g = await readSnapshot(new MemoryByteSource(new Uint8Array(readFileSync(PERFVIEW1!)), 'perfview_test1.gcdump'));
    const { s } = fixture();
    const session = new SnapshotSession(g, { ...s.info, sessionId: 'p1' as SessionId });
    const sum = session.summary();
    expect([sum.nodeCount, sum.edgeCount]).toEqual([6482, 15020]);
    const top = session.typeRows({ sort: { key: 'shallowSize', dir: 'desc' }, start: 0, end: 1 }).rows[0];
    expect([top.type, top.count, top.shallowSize]).toEqual(['(Type  HTMLStyleElement <|tagName:STYLE|>)', 13, 167_540]);
    session.runAnalysis();
    const after = session.summary();
    expect(after.reachable!.size + after.unreachable!.size).toBe(1_009_270);
  });
});

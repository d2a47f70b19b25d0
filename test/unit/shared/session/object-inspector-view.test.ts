import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { HeapGraphBuilder } from '../../../../shared/graph/heap-graph-builder.js';
import { emptyMetadata } from '../../../../shared/graph/metadata.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { ObjectInspectorView } from '../../../../shared/session/object-inspector-view.js';
import { ObjectView } from '../../../../shared/session/object-view.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';

// root → [static vars] → A (Holder 16) → B, C, B, D;  B, C (Leaf 8) → D (Big 32);  G (Garbage 100,
// unreachable) → D. Ordinals: [root] 0, [static vars] 1, A 2, B 3, C 4, D 5, G 6; tinyGraph puts
// object n at 0x1000 + 0x10·n: A 0x1020, B 0x1030, C 0x1040, D 0x1050, G 0x1060.
function tiny() {
  const t = tinyGraph((b) => {
    b.root('[static vars]').ref('A');
    b.node('A', 16, 'Holder').ref('B', 'C', 'B', 'D');
    b.node('B', 8, 'Leaf').ref('D');
    b.node('C', 8, 'Leaf').ref('D');
    b.node('D', 32, 'Big');
    b.node('G', 100, 'Garbage').ref('D');
  });
  const view = (g: HeapGraph = t.graph) => {
    const objects = new ObjectView(g);
    return new ObjectInspectorView(g, (n) => objects.hex(n));
  };
  return { t, view, a: analyzeGraph(t.graph) };
}

const names = (t: { name(n: number): string }, rows: { node: number }[]) => rows.map((r) => t.name(r.node));

describe('object inspector on a tiny graph (exact numbers)', () => {
  it('details before and after the analysis', () => {
    const { t, view, a } = tiny();
    expect(['A', 'B', 'C', 'D', 'G'].map((n) => t.id(n))).toEqual([2, 3, 4, 5, 6]);
    const v = view();
    expect(v.info(null, 2)).toEqual({
      node: 2, typeIndex: t.graph.nodeType[2], type: 'Holder', module: 'tiny.dll', address: '0x1020', size: 16, retainedSize: null,
      generation: null, pseudo: false, reachable: null, dominator: null, outgoing: 4, incoming: 0, addressKind: 'address',
    });
    expect(v.info(a, 2)).toMatchObject({ retainedSize: 64, reachable: true, dominator: 1, outgoing: 4, incoming: 1 });
    expect(v.info(a, 5)).toMatchObject({ type: 'Big', size: 32, retainedSize: 32, reachable: true, dominator: 2, outgoing: 0, incoming: 4 });
    expect(v.info(a, 6)).toMatchObject({ type: 'Garbage', retainedSize: 100, reachable: false, dominator: null, outgoing: 1, incoming: 0 });
    expect(v.info(a, 0)).toMatchObject({ type: '[root]', pseudo: true, address: '0x0', addressKind: 'none', dominator: null });
    expect(() => v.info(a, 7)).toThrow(/no node with ordinal 7/);
  });

  it('outgoing references in file order with duplicates, windowed, each row with its own counts', () => {
    const { t, view, a } = tiny();
    const v = view();
    const before = v.references(null, 2, 'outgoing', 0, 10);
    expect([before.start, before.end, before.total]).toEqual([0, 4, 4]);
    expect(names(t, before.rows)).toEqual(['B', 'C', 'B', 'D']);
    expect(before.rows[0]).toEqual({
      node: 3, typeIndex: t.graph.nodeType[3], type: 'Leaf', address: '0x1030', size: 8, retainedSize: null, generation: null, pseudo: false, outgoing: 1, incoming: null,
    });
    expect(before.rows[0].field).toBeUndefined(); // .gcdump-like graphs carry no field names
    const after = v.references(a, 2, 'outgoing', 1, 3);
    expect([after.start, after.end, after.total]).toEqual([1, 3, 4]);
    expect(after.rows.map((r) => [t.name(r.node), r.retainedSize, r.outgoing, r.incoming])).toEqual([
      ['C', 8, 1, 1],
      ['B', 8, 1, 2], // A holds B twice
    ]);
    expect(v.references(a, 5, 'outgoing', 0, 10)).toEqual({ start: 0, end: 0, total: 0, rows: [] });
  });

  it('incoming references (retainers) in ascending ordinal order, garbage included; need the analysis', () => {
    const { t, view, a } = tiny();
    const v = view();
    expect(() => v.references(null, 5, 'incoming', 0, 10)).toThrow(/need the analysis/);
    const w = v.references(a, 5, 'incoming', 0, 10);
    expect(w.total).toBe(4);
    expect(w.rows.map((r) => [t.name(r.node), r.size, r.retainedSize, r.incoming])).toEqual([
      ['A', 16, 64, 1],
      ['B', 8, 8, 2],
      ['C', 8, 8, 1],
      ['G', 100, 100, 0],
    ]);
    expect(names(t, v.references(a, 5, 'incoming', 1, 3).rows)).toEqual(['B', 'C']);
    expect(names(t, v.references(a, 3, 'incoming', 0, 10).rows)).toEqual(['A', 'A']);
    expect(() => v.references(a, 5, 'incoming', 3, 1)).toThrow(/bad window/);
    expect(() => v.references(a, 5, 'incoming', 0, 10_001)).toThrow(/too large/);
  });

  it('go to address: exact, interior pointer, outside every object, pseudo-nodes never', () => {
    const { view, a } = tiny();
    const v = view();
    expect(v.atAddress(a, '0x1050')).toEqual({ object: expect.objectContaining({ node: 5, type: 'Big' }), offset: 0 });
    expect(v.atAddress(a, '1050')?.object.node).toBe(5); // 0x optional
    expect(v.atAddress(a, '0x0000_1050')?.object.node).toBe(5);
    // D spans 0x1050..0x106f but G starts at 0x1060: the nearest start below wins
    expect(v.atAddress(a, '0x1058')).toMatchObject({ object: { node: 5 }, offset: 8 });
    expect(v.atAddress(a, '0x1064')).toMatchObject({ object: { node: 6 }, offset: 4 });
    expect(v.atAddress(a, '0x10c3')).toMatchObject({ object: { node: 6 }, offset: 99 }); // G: 100 bytes from 0x1060
    expect(v.atAddress(a, '0x10c4')).toBeNull();
    expect(v.atAddress(a, '0x101f')).toBeNull(); // below the lowest object (pseudo-nodes have address 0)
    expect(v.atAddress(a, '0x0')).toBeNull();
    expect(v.atAddress(null, '0x1020')?.object).toMatchObject({ node: 2, retainedSize: null });
    expect(() => v.atAddress(a, 'System.String')).toThrow(/not an address/);
    expect(() => v.atAddress(a, '0x1' + '0'.repeat(16))).toThrow(/more than 64 bits/);
  });

  it("a CF heap log's address column is the log's object id", () => {
    const { t, view, a } = tiny();
    const cf = { ...t.graph, metadata: { ...t.graph.metadata, format: 'cf-heaplog' as const } };
    expect(view(cf).info(a, 2).addressKind).toBe('id');
    expect(view(cf).info(a, 1).addressKind).toBe('none');
  });
});

describe('a hub object with a million references', () => {
  it('sends windows, never the list', () => {
    const refs = 1_000_000;
    const b = new HeapGraphBuilder({ expectedNodes: 3, expectedEdges: refs + 1 });
    const rootT = b.addType('[root]');
    const hubT = b.addType('Hub[]', 'x.dll');
    const leafT = b.addType('Leaf', 'x.dll');
    b.createNodes(3);
    b.setNode(0, rootT, 0, [1]);
    const targets = new Uint32Array(refs).fill(2);
    b.setNode(1, hubT, 8_000_024, targets, 0, refs);
    b.setNode(2, leafT, 24, []);
    b.setAddress(1, 0x7f0000001000);
    b.setAddress(2, 0x7f0000000f00);
    b.setRoot(0);
    const g = b.finish(emptyMetadata('synthetic'));
    const a = analyzeGraph(g);
    const objects = new ObjectView(g);
    const v = new ObjectInspectorView(g, (n) => objects.hex(n));
    expect(v.info(a, 1)).toMatchObject({ outgoing: refs, incoming: 1, address: '0x7f0000001000', retainedSize: 8_000_048 });
    expect(v.info(a, 2)).toMatchObject({ incoming: refs, dominator: 1 });
    const first = v.references(a, 1, 'outgoing', 0, 200);
    expect([first.total, first.rows.length]).toEqual([refs, 200]);
    const last = v.references(a, 1, 'outgoing', refs - 50, refs + 150);
    expect([last.start, last.end, last.rows.length]).toEqual([refs - 50, refs, 50]);
    const inc = v.references(a, 2, 'incoming', 500_000, 500_200);
    expect([inc.total, inc.rows.length, inc.rows[0].node, inc.rows[0].outgoing]).toEqual([refs, 200, 1, refs]);
    // an interior pointer into the 8 MB array, with a 64-bit address
    expect(v.atAddress(a, '0x7f0000001000')).toMatchObject({ object: { node: 1 }, offset: 0 });
    expect(v.atAddress(a, '0x7F00007A1000')).toMatchObject({ object: { node: 1 }, offset: 0x7a0000 });
    expect(v.atAddress(a, '0x7f00007a2217')).toMatchObject({ object: { node: 1 }, offset: 8_000_023 });
    expect(v.atAddress(a, '0x7f00007a2218')).toBeNull(); // 0x7f0000001000 + 8,000,024 (0x7a1218)
    expect(v.atAddress(a, '0x7f0000000f17')).toMatchObject({ object: { node: 2 }, offset: 23 });
  });
});

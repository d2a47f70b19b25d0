import { describe, expect, it } from 'vitest';
import { computeTypeStats, moduleFileName, typeRows } from '../../../../shared/analysis/type-stats.js';
import { snapshotWarnings } from '../../../../shared/analysis/snapshot-warnings.js';
import { rootCategories } from '../../../../shared/analysis/root-categories.js';
import { HeapGraphBuilder } from '../../../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { NODE_PSEUDO } from '../../../../shared/graph/heap-graph.js';
import { emptyMetadata, type SnapshotMetadata } from '../../../../shared/graph/metadata.js';
import { CancellationSource } from '../../../../shared/util/cancellation.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';

/** [root] → [static vars] → A(Foo 16) → B(Foo 8), C(Bar 24), Ghost (undefined). */
function small() {
  return tinyGraph((b) => {
    b.root('[static vars]').ref('A');
    b.node('A', 16, 'Foo').ref('B', 'C', 'Ghost');
    b.node('B', 8, 'Foo');
    b.node('C', 24, 'Bar');
  });
}

function withMeta(g: HeapGraph, patch: Partial<SnapshotMetadata>): HeapGraph {
  return { ...g, metadata: { ...g.metadata, ...patch } };
}

describe('computeTypeStats', () => {
  it('counts heap objects per type and leaves pseudo and undefined nodes out', () => {
    const t = small();
    const g = t.graph;
    const s = computeTypeStats(g);
    const foo = g.types.names.indexOf('Foo');
    const bar = g.types.names.indexOf('Bar');
    expect(s.count[foo]).toBe(2);
    expect(s.shallowSize[foo]).toBe(24);
    expect(s.count[bar]).toBe(1);
    expect(s.shallowSize[bar]).toBe(24);
    expect(s.count[0]).toBe(0); // UNDEFINED type: the ghost is not an object
    expect(s.count[g.types.names.indexOf('[static vars]')]).toBe(0);
    expect(s.objectCount).toBe(3);
    expect(s.objectSize).toBe(48);
    expect(s.pseudoNodeCount).toBe(2);
    expect(s.undefinedNodeCount).toBe(1);
    expect(s.sampled).toBe(false);
    expect(s.scaledCount).toBeNull();
    expect(s.scaledObjectCount).toBe(3);
    expect(s.scaledObjectSize).toBe(48);
  });

  it('gives rows only for types with objects, with modules', () => {
    const g = small().graph;
    const rows = typeRows(g, computeTypeStats(g));
    expect(rows.map((r) => [r.name, r.count, r.shallowSize, r.module, r.scaledCount])).toEqual([
      ['Foo', 2, 24, 'tiny.dll', null],
      ['Bar', 1, 24, 'tiny.dll', null],
    ]);
  });

  it('scales by per-type multipliers the way PerfView does (count and size by m[type])', () => {
    const g0 = small().graph;
    const foo = g0.types.names.indexOf('Foo');
    const bar = g0.types.names.indexOf('Bar');
    const m = new Float32Array(g0.types.count).fill(1);
    m[foo] = 2.5;
    m[bar] = 4;
    const g = withMeta(g0, { countMultipliersByType: m, averageCountMultiplier: 3, averageSizeMultiplier: 3.25 });
    const s = computeTypeStats(g);
    expect(s.sampled).toBe(true);
    expect(s.count[foo]).toBe(2); // raw stays raw
    expect(s.scaledCount![foo]).toBe(5);
    expect(s.scaledShallowSize![foo]).toBe(60);
    expect(s.scaledCount![bar]).toBe(4);
    expect(s.scaledShallowSize![bar]).toBe(96);
    expect(s.scaledObjectCount).toBe(9);
    expect(s.scaledObjectSize).toBe(156);
    const rows = typeRows(g, s);
    expect(rows[0].scaledCount).toBe(5);
    expect(rows[1].scaledShallowSize).toBe(96);
  });

  it('leaves types past the end of a short multiplier array unscaled', () => {
    const g0 = small().graph;
    const bar = g0.types.names.indexOf('Bar');
    const g = withMeta(g0, { countMultipliersByType: new Float32Array(bar).fill(2) });
    const s = computeTypeStats(g);
    expect(s.scaledCount![bar]).toBe(1);
    expect(s.scaledCount![g0.types.names.indexOf('Foo')]).toBe(4);
  });

  it('falls back to the average multipliers when there is no per-type array', () => {
    const g = withMeta(small().graph, { averageCountMultiplier: 2, averageSizeMultiplier: 1.5 });
    const s = computeTypeStats(g);
    const foo = g.types.names.indexOf('Foo');
    expect(s.sampled).toBe(true);
    expect(s.scaledCount![foo]).toBe(4);
    expect(s.scaledShallowSize![foo]).toBe(36);
    expect(s.scaledObjectCount).toBe(6);
    expect(s.scaledObjectSize).toBe(72);
  });

  it('stops when cancelled', () => {
    const c = new CancellationSource();
    c.cancel('stop');
    expect(() => computeTypeStats(small().graph, c.token)).toThrow(/stop/);
  });
});

describe('moduleFileName', () => {
  it('keeps the file name of either path style', () => {
    expect(moduleFileName('C:\\Windows\\mscorlib.dll')).toBe('mscorlib.dll');
    expect(moduleFileName('/usr/share/dotnet/System.Private.CoreLib.dll')).toBe('System.Private.CoreLib.dll');
    expect(moduleFileName('plain.dll')).toBe('plain.dll');
    expect(moduleFileName(null)).toBeNull();
  });
});

describe('snapshotWarnings', () => {
  it('is empty for a clean snapshot', () => {
    const g = tinyGraph((b) => b.root('[static vars]').ref('A')).graph;
    // 'A' is referenced but not declared → undefined; declare it instead
    const clean = tinyGraph((b) => {
      b.root('[static vars]').ref('A');
      b.node('A', 8);
    }).graph;
    expect(snapshotWarnings(clean)).toEqual([]);
    expect(snapshotWarnings(g).map((w) => w.code)).toEqual(['undefined-nodes', 'problems']);
  });

  it('words a count of one in the singular (issue 14 item 8)', () => {
    const one = tinyGraph((b) => b.root('[static vars]').ref('A')).graph;
    expect(snapshotWarnings(one)).toEqual([
      { code: 'undefined-nodes', message: '1 node is referenced but never described (shown as UNDEFINED, size 0, not counted as objects)' },
      { code: 'problems', message: '1 data problem was found while reading (see problems)' },
    ]);
    expect(one.problems.entries.map((p) => p.message)).toEqual(['1 node is referenced but never described (shown as UNDEFINED, size 0)']);
    const two = tinyGraph((b) => b.root('[static vars]').ref('A', 'B')).graph;
    expect(snapshotWarnings(two).map((w) => w.message)).toEqual([
      '2 nodes are referenced but never described (shown as UNDEFINED, size 0, not counted as objects)',
      '2 data problems were found while reading (see problems)',
    ]);
  });

  it('reports sampling, the dotnet-gcdump node cap and a size mismatch', () => {
    const clean = tinyGraph((b) => {
      b.root('[static vars]').ref('A');
      b.node('A', 8);
    }).graph;
    const sampled = withMeta(clean, { averageCountMultiplier: 2.5, averageSizeMultiplier: 2 });
    expect(snapshotWarnings(sampled)).toEqual([
      { code: 'sampled', message: expect.stringContaining('mean count multiplier 2.5, mean size multiplier 2') },
    ]);
    const capped = { ...withMeta(clean, { creationTool: 'dotnet-gcdump' }), nodeCount: 10_000_000, nodeFlags: new Uint8Array(10_000_000) };
    expect(snapshotWarnings(capped)).toEqual([{ code: 'node-cap', message: expect.stringContaining('truncated: dotnet-gcdump stops at 10M nodes') }]);
    const notCapped = { ...capped, nodeCount: 9_999_999 };
    expect(snapshotWarnings(notCapped)).toEqual([]);
    const otherTool = withMeta(capped, { creationTool: 'heapscope' });
    expect(snapshotWarnings(otherTool)).toEqual([]);
    const mismatch = withMeta(clean, { declaredTotalSize: 9 });
    expect(snapshotWarnings(mismatch)).toEqual([
      { code: 'size-mismatch', message: 'the file declares a total size of 9 bytes but its nodes add up to 8' },
    ]);
    expect(snapshotWarnings(withMeta(clean, { declaredTotalSize: 8 }))).toEqual([]);
  });
});

/**
 * 0 [.NET Roots] → 1 [static vars] → 2 [static var X.f] → 8
 *                → 3 [other roots] → 4 [strong Handles] → 8, 9 ; 5 [pinning Handles] → 9
 *                → 6 [local vars] → 8, 8, 9
 *                → 7 [COM/WinRT Objects] (empty)
 * 8, 9: objects.
 */
function dotnetRoots(): HeapGraph {
  const b = new HeapGraphBuilder();
  const names = ['[.NET Roots]', '[static vars]', '[static var X.f]', '[other roots]', '[strong Handles]', '[pinning Handles]', '[local vars]', '[COM/WinRT Objects]'];
  const types = names.map((n) => b.addType(n, null, 0));
  const obj = b.addType('System.Object', 'corelib.dll', 24);
  b.createNodes(10);
  const kids = [[1, 3, 6, 7], [2], [8], [4, 5], [8, 9], [9], [8, 8, 9], []];
  kids.forEach((k, i) => {
    b.setNode(i, types[i], 0, k);
    b.addFlags(i, NODE_PSEUDO);
  });
  b.setNode(8, obj, 24, [9]);
  b.setNode(9, obj, 24, []);
  b.setRoot(0);
  return b.finish(emptyMetadata('synthetic'));
}

describe('rootCategories', () => {
  it('lists root children and expands pure category groups one level', () => {
    const r = rootCategories(dotnetRoots());
    expect(r.rootName).toBe('[.NET Roots]');
    expect(r.categories.map((c) => [c.name, c.node, c.childCount, c.pseudo, c.children?.length ?? null])).toEqual([
      ['[static vars]', 1, 1, true, null],
      ['[other roots]', 3, 2, true, 2],
      ['[local vars]', 6, 3, true, null],
      ['[COM/WinRT Objects]', 7, 0, true, null],
    ]);
    expect(r.categories[1].children!.map((c) => [c.name, c.childCount])).toEqual([
      ['[strong Handles]', 2],
      ['[pinning Handles]', 1],
    ]);
    expect(r.byCategory).toEqual([
      { category: '[static vars]', count: 1 },
      { category: '[other roots]/[strong Handles]', count: 2 },
      { category: '[other roots]/[pinning Handles]', count: 1 },
      { category: '[local vars]', count: 3 },
      { category: '[COM/WinRT Objects]', count: 0 },
    ]);
  });

  it('counts objects directly below the root under the root name (JS heaps)', () => {
    const b = new HeapGraphBuilder();
    const rootType = b.addType('[JS Roots]', null, 0);
    const global = b.addType('JSGlobal', null, 256);
    b.createNodes(3);
    b.setNode(0, rootType, 0, [1, 2]);
    b.addFlags(0, NODE_PSEUDO);
    b.setNode(1, global, 256, [2]);
    b.setNode(2, global, 256, []);
    b.setRoot(0);
    const r = rootCategories(b.finish(emptyMetadata('synthetic')));
    expect(r.categories.map((c) => [c.name, c.node, c.childCount, c.pseudo])).toEqual([
      ['JSGlobal', 1, 1, false],
      ['JSGlobal', 2, 0, false],
    ]);
    expect(r.byCategory).toEqual([{ category: '[JS Roots]', count: 2 }]);
  });
});

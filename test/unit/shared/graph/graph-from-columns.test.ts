import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../../shared/errors.js';
import type { GraphColumns } from '../../../../shared/graph/graph-from-columns.js';
import { graphFromBuilderColumns, graphFromColumns } from '../../../../shared/graph/graph-from-columns.js';
import { GEN_FROZEN, GEN_UNKNOWN, NODE_PSEUDO, NODE_UNDEFINED } from '../../../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../../../shared/graph/metadata.js';
import { ProblemList } from '../../../../shared/graph/problems.js';

// node 0 → 1, 2; node 1 → 2; node 2 undefined; root is node 3 (last) → 0
function columns(): GraphColumns {
  return {
    nodeType: Uint32Array.of(1, 1, 0, 2),
    selfSize: Uint32Array.of(24, 16, 0, 0),
    firstEdge: Uint32Array.of(0, 2, 3, 3, 4),
    edgeTarget: Uint32Array.of(1, 2, 2, 0),
    addressWords: Uint32Array.of(0x1000, 0, 0x1018, 1, 0x2000, 0, 0, 0),
    nodeFlags: Uint8Array.of(0, 0, NODE_UNDEFINED, NODE_PSEUDO),
    generation: null,
    rootIndex: 3,
    types: { names: ['UNDEFINED', 'T', '[root]'], modules: [null, null, null], sizes: [0, 24, 0] },
    metadata: emptyMetadata('cf-heaplog'),
    problems: new ProblemList(),
  };
}

describe('graphFromColumns', () => {
  it('adopts the columns, sums sizes, counts undefined nodes, and reads addresses as 64-bit', () => {
    const g = graphFromColumns(columns());
    expect([g.nodeCount, g.edgeCount, g.totalSize, g.rootIndex, g.hasGenerationData]).toEqual([4, 4, 40, 3, false]);
    expect(Array.from(g.address)).toEqual([0x1000n, 0x1_0000_1018n, 0x2000n, 0n]);
    expect(Array.from(g.generation)).toEqual([GEN_UNKNOWN, GEN_UNKNOWN, GEN_UNKNOWN, GEN_UNKNOWN]);
    expect(g.problems.counts).toEqual({ 'undefined-node': 1 });
    expect(Array.from(g.types.sizes)).toEqual([0, 24, 0]);
  });

  it('throws on a layout bug instead of returning a graph that lies', () => {
    const bad: [string, (c: GraphColumns) => void][] = [
      ['edge target out of range', (c) => (c.edgeTarget[1] = 4)],
      ['offsets decrease', (c) => (c.firstEdge[2] = 1)],
      ['offsets do not span the edges', (c) => (c.firstEdge[4] = 3)],
      ['type out of range', (c) => (c.nodeType[0] = 3)],
      ['root out of range', (c) => (c.rootIndex = 4)],
      ['column lengths', (c) => (c.selfSize = Uint32Array.of(1, 2, 3))],
    ];
    for (const [what, spoil] of bad) {
      const c = columns();
      spoil(c);
      expect(() => graphFromColumns(c), what).toThrow(FormatError);
    }
  });
});

describe('graphFromBuilderColumns', () => {
  it('gives the same graph as graphFromColumns for columns the builder vouches for', () => {
    const a = graphFromColumns(columns());
    const b = graphFromBuilderColumns(columns());
    expect([b.nodeCount, b.edgeCount, b.totalSize, b.rootIndex]).toEqual([a.nodeCount, a.edgeCount, a.totalSize, a.rootIndex]);
    expect(b.problems.counts).toEqual({ 'undefined-node': 1 });
  });

  it('skips only the per-node and per-edge re-checks: lengths and the offsets\' ends are still checked', () => {
    const spoiled = columns();
    spoiled.edgeTarget[1] = 4; // a range the builder checked as it stored the reference
    expect(() => graphFromBuilderColumns(spoiled)).not.toThrow();
    const bad: [string, (c: GraphColumns) => void][] = [
      ['offsets do not span the edges', (c) => (c.firstEdge[4] = 3)],
      ['root out of range', (c) => (c.rootIndex = 4)],
      ['column lengths', (c) => (c.selfSize = Uint32Array.of(1, 2, 3))],
    ];
    for (const [what, spoil] of bad) {
      const c = columns();
      spoil(c);
      expect(() => graphFromBuilderColumns(c), what).toThrow(FormatError);
    }
  });
});

describe('graphFromColumns generations', () => {
  it('come from the metadata segments when the reader has none of its own', () => {
    const c = columns();
    // gen2 below 0x1010, gen1 below 0x1020, gen0 below 0x3000 (no POH/LOH part)
    c.metadata.segments = [{ start: 0x1000n, end: 0x3000n, gen4End: 0x1000n, gen3End: 0x1000n, gen2End: 0x1010n, gen1End: 0x1020n, gen0End: 0x3000n }];
    const g = graphFromColumns(c);
    expect(g.hasGenerationData).toBe(true);
    // node 1 is past 4 GB, outside the GC segments: a frozen (non-GC heap) object; node 3 a pseudo-node
    expect(Array.from(g.generation)).toEqual([2, GEN_FROZEN, 0, GEN_UNKNOWN]);
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { computeDominators, inlineFits } from '../../../../shared/analysis/dominators.js';
import { computeTypeStats } from '../../../../shared/analysis/type-stats.js';
import { AppError } from '../../../../shared/errors.js';
import { readGcdump } from '../../../../shared/formats/gcdump/gcdump-reader.js';
import { writeGcdump } from '../../../../shared/formats/gcdump/gcdump-writer.js';
import { checkGraphSize, MAX_GRAPH_EDGES, MAX_GRAPH_NODES } from '../../../../shared/graph/graph-limits.js';
import { HeapGraphBuilder } from '../../../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../../../shared/graph/metadata.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { concat } from '../formats/gcdump/gcdump-test-utils.js';

// The 2^31 / 2^32 limits of the graph's columns (graph-limits.ts), simulated with small graphs:
// counts are claimed (checked before anything that size is allocated), sizes are real.

function coded(f: () => unknown): AppError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('no error');
}

/** root → a → b, root → c; every object `size` bytes, all of one type. */
function threeObjects(size: number): HeapGraph {
  const b = new HeapGraphBuilder();
  const t = b.addType('Big', 'big.dll', size);
  const root = b.addType('[root]');
  b.createNodes(4);
  b.setNode(0, t, size, [1]);
  b.setNode(1, t, size, []);
  b.setNode(2, t, size, []);
  b.setNode(3, root, 0, [0, 2]);
  b.setRoot(3);
  return b.finish(emptyMetadata('synthetic'));
}

describe('graph size limits', () => {
  it('checkGraphSize: exactly at the limits passes, one past is format/too-large with the counts', () => {
    expect(MAX_GRAPH_NODES).toBe(2147483647);
    expect(MAX_GRAPH_EDGES).toBe(4294967295);
    checkGraphSize(2147483647, 4294967295);
    const nodes = coded(() => checkGraphSize(2147483648, 0));
    expect(nodes.code).toBe('format/too-large');
    expect(nodes.detail).toEqual({ nodes: 2147483648, edges: 0 });
    const edges = coded(() => checkGraphSize(1, 4294967296));
    expect(edges.code).toBe('format/too-large');
    expect(edges.message).toBe('the snapshot has 4294967296 references; a graph holds at most 4294967295 (2^32 − 1)');
  });

  it('the builder refuses 2^31 nodes before allocating their columns', () => {
    const b = new HeapGraphBuilder({ expectedNodes: 16 });
    b.createNodes(10);
    expect(coded(() => b.createNodes(2 ** 31 - 10)).code).toBe('format/too-large');
    expect(b.nodeCount).toBe(10); // nothing changed
    b.createNodes(5);
    expect(b.nodeCount).toBe(15);
  });

  it('the builder refuses a node whose references would pass 2^32 − 1 in all, before copying them', () => {
    const b = new HeapGraphBuilder({ expectedNodes: 16, expectedEdges: 16 });
    b.createNodes(2);
    b.setNode(0, 0, 8, [1, 1, 1]);
    // a claimed child list: 3 + (2^32 − 3) = 2^32 − 1 still fits the count, one more does not
    const claim = (length: number) => ({ length }) as ArrayLike<number>;
    const err = coded(() => b.setNode(1, 0, 8, claim(2 ** 32 - 2), 0, 2 ** 32 - 2));
    expect(err.code).toBe('format/too-large');
    expect(err.detail).toEqual({ nodes: 2, edges: 2 ** 32 + 1 });
  });

  it('the dominator DFS refuses references its pair buckets cannot hold (coded, not a RangeError)', () => {
    const g = threeObjects(8);
    for (const edgeCount of [2 ** 31 - 1, 2 ** 31 + 5]) {
      for (const layout of ['inline', 'compact'] as const) {
        const err = coded(() => computeDominators({ ...g, edgeCount }, undefined, undefined, 'auto', layout));
        expect(err.code).toBe('format/too-large');
      }
    }
  });

  it('the dominators use 4-word inline DFS records only while 4 × (nodes + 1) words fit one typed array', () => {
    expect(inlineFits(2 ** 30 - 1, 2 ** 30)).toBe(true); // exactly 2^32 words
    expect(inlineFits(2 ** 30, 2 ** 30)).toBe(false); // 2^32 + 4: the 2-word records instead
    expect(inlineFits(1000, 2001)).toBe(false); // dense: as before
  });

  it('sizes summing past 2^32 bytes: totalSize, retained and per-type sizes are exact doubles', () => {
    const size = 0xffffffff;
    const g = threeObjects(size);
    expect(g.totalSize).toBe(3 * size); // 12884901885
    const a = analyzeGraph(g);
    expect(a.retainedSize[3]).toBe(12884901885);
    expect(a.retainedSize[0]).toBe(8589934590);
    expect(a.retainedSize[2]).toBe(4294967295);
    expect(a.typeRetained[1]).toBe(12884901885);
    expect(computeTypeStats(g).shallowSize[1]).toBe(12884901885);
  });

  it('a .gcdump whose sizes sum past 2^32: the total and its TotalSize agree (no size-mismatch)', async () => {
    const g = threeObjects(0x7fffffff); // a .gcdump size is an i32
    const back = await readGcdump(new MemoryByteSource(concat(writeGcdump(g)), 'big.gcdump'));
    expect(back.totalSize).toBe(6442450941);
    expect(back.metadata.declaredTotalSize).toBe(6442450941);
    expect(back.problems.counts['size-mismatch']).toBeUndefined();
    expect(analyzeGraph(back).retainedSize[back.rootIndex]).toBe(6442450941);
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import {
  PERFVIEW_DEFAULT_PRIORITIES,
  PERFVIEW_UNREACHABLE,
  computePerfViewInclusive,
  perfViewPatternToRegExp,
  perfViewTypePriorities,
} from '../../../../shared/analysis/perfview-inclusive.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { NONE } from '../../../../shared/graph/heap-graph.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { mulberry32, randomGraph } from '../../../helpers/random-graph.js';

describe('PerfView-style inclusive size (heuristic)', () => {
  it('charges a shared object to the owner met first, unlike retained size', () => {
    const t = tinyGraph((b) => {
      b.root('S').ref('A');
      b.node('A', 16).ref('B', 'C');
      b.node('B', 8).ref('D');
      b.node('C', 8).ref('D');
      b.node('D', 32);
    });
    const p = computePerfViewInclusive(t.graph);
    const a = analyzeGraph(t.graph);
    expect(t.name(p.parent[t.id('D')])).toBe('B');
    expect(['A', 'B', 'C', 'D'].map((n) => p.inclusiveSize[t.id(n)])).toEqual([64, 40, 8, 32]);
    expect(a.retainedSize[t.id('B')]).toBe(8);
    expect(p.parent[t.id('[root]')]).toBe(NONE);
    expect([p.orphanRootCount, p.unreachableInclusive]).toEqual([0, 0]);
  });

  it('prefers static roots over local variables and handles, whatever the order', () => {
    const define = (b: Parameters<Parameters<typeof tinyGraph>[0]>[0]): void => {
      b.root('[strong Handles]').ref('H');
      b.root('[local vars]').ref('X', 'H');
      b.root('[static vars]').ref('X', 'H');
      b.node('X', 10).ref('Y');
      b.node('Y', 5);
      b.node('H', 7);
    };
    const t = tinyGraph(define);
    const p = computePerfViewInclusive(t.graph);
    expect(t.name(p.parent[t.id('X')])).toBe('[static vars]');
    expect(t.name(p.parent[t.id('H')])).toBe('[static vars]');
    expect(['[strong Handles]', '[local vars]', '[static vars]'].map((n) => p.inclusiveSize[t.id(n)])).toEqual([0, 0, 22]);
    // without priorities the traversal is plain FIFO: the first category listed wins
    const fifo = computePerfViewInclusive(t.graph, { priorities: '' });
    expect(t.name(fifo.parent[t.id('H')])).toBe('[strong Handles]');
    expect(t.name(fifo.parent[t.id('X')])).toBe('[local vars]');
  });

  it('hangs unreachable objects under orphan roots that no other orphan reaches', () => {
    const t = tinyGraph((b) => {
      b.root('S').ref('A');
      b.node('A', 1);
      b.node('X', 10).ref('Y', 'A');
      b.node('Y', 20).ref('X');
      b.node('Z', 40).ref('X');
      b.node('Q', 80).ref('Q');
    });
    const p = computePerfViewInclusive(t.graph);
    expect(p.parent[t.id('Z')]).toBe(PERFVIEW_UNREACHABLE);
    expect(p.parent[t.id('Q')]).toBe(PERFVIEW_UNREACHABLE);
    expect(t.name(p.parent[t.id('X')])).toBe('Z');
    expect(t.name(p.parent[t.id('Y')])).toBe('X');
    expect(t.name(p.parent[t.id('A')])).toBe('S'); // a dead referrer never steals a live object
    expect([p.orphanRootCount, p.unreachableInclusive]).toEqual([2, 150]);
    expect(p.inclusiveSize[t.id('Z')]).toBe(70);
  });

  it('translates PerfView patterns and matches type names case-insensitively', () => {
    expect(perfViewPatternToRegExp('[*local vars]')).toBe('\\[.*local\\ vars]');
    expect(perfViewPatternToRegExp('v4.0.30319\\%!')).toBe('v4\\.0\\.30319\\\\[.\\w\\d?]*!');
    expect(perfViewPatternToRegExp('{a|b}x')).toBe('(a|b)x');
    const pri = perfViewTypePriorities(['[local vars]', '[Pinned local vars]', '[other Handles]', '[other roots]', 'System.String', '[COM/WinRT Objects]'], PERFVIEW_DEFAULT_PRIORITIES);
    expect(Array.from(pri)).toEqual([-1000, -1000, -2000000, -2000000, 0, -1000000]);
    expect(() => perfViewTypePriorities(['x'], 'nonsense')).toThrow(/Pat->Num/);
  });

  it('on random graphs: a valid spanning tree, sizes add up, and "By Name" matches a path walk', () => {
    const rnd = mulberry32(99);
    for (let c = 0; c < 300; c++) {
      const seed = Math.floor(rnd() * 2 ** 31);
      const g = randomGraph(seed, { nodes: 1 + Math.floor(rnd() * 80), types: 1 + Math.floor(rnd() * 4), avgDegree: 0.5 + rnd() * 2 });
      const p = computePerfViewInclusive(g);
      const where = `seed ${seed}`;
      expect(spanningProblem(g, p.parent), where).toBe('');
      const tops = p.inclusiveSize[g.rootIndex] + p.unreachableInclusive;
      expect(tops, where).toBe(g.totalSize);
      expect(Array.from(p.typeInclusive), where).toEqual(naiveByName(g, p.parent));
    }
  });

  it('equals retained size when every object has a single referrer', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const g = randomTree(seed, 2 + (seed % 60));
      const p = computePerfViewInclusive(g);
      const a = analyzeGraph(g);
      expect(Array.from(p.inclusiveSize), `seed ${seed}`).toEqual(Array.from(a.retainedSize));
    }
  });
});

function spanningProblem(g: HeapGraph, parent: Uint32Array): string {
  for (let v = 0; v < g.nodeCount; v++) {
    const p = parent[v];
    if (v === g.rootIndex) {
      if (p !== NONE) return 'root has a parent';
      continue;
    }
    if (p === PERFVIEW_UNREACHABLE) continue;
    if (p === NONE) return `node ${v} has no parent`;
    let refers = false;
    for (let e = g.firstEdge[p]; e < g.firstEdge[p + 1]; e++) if (g.edgeTarget[e] === v) refers = true;
    if (!refers) return `parent ${p} of ${v} does not reference it`;
    let x = v;
    for (let steps = 0; parent[x] !== NONE && parent[x] !== PERFVIEW_UNREACHABLE; steps++) {
      if (steps > g.nodeCount) return `cycle above ${v}`;
      x = parent[x];
    }
  }
  return '';
}

/** Per type: Σ size of nodes with an instance of the type on their parent chain (self included). */
function naiveByName(g: HeapGraph, parent: Uint32Array): number[] {
  const out = new Array<number>(g.types.count).fill(0);
  for (let v = 0; v < g.nodeCount; v++) {
    const seen = new Set<number>();
    for (let x = v; ; x = parent[x]) {
      seen.add(g.nodeType[x]);
      if (parent[x] === NONE || parent[x] === PERFVIEW_UNREACHABLE) break;
    }
    for (const t of seen) out[t] += g.selfSize[v];
  }
  return out;
}

/** A random tree below the root: each node has exactly one referrer, an earlier node. */
function randomTree(seed: number, n: number): HeapGraph {
  const rnd = mulberry32(seed);
  const kids: number[][] = Array.from({ length: n }, () => []);
  for (let v = 1; v < n; v++) kids[Math.floor(rnd() * v)].push(v);
  return tinyGraph((b) => {
    const name = (v: number): string => (v === 0 ? 'S' : `N${v}`);
    b.root('S').ref(...kids[0].map(name));
    for (let v = 1; v < n; v++) b.node(name(v), 1 + Math.floor(rnd() * 50), `T${v % 3}`).ref(...kids[v].map(name));
  }).graph;
}

import { describe, expect, it } from 'vitest';
import { describePath, findRetentionPaths, shortestPathTree } from '../../../../shared/analysis/paths-to-roots.js';
import { buildRetainers } from '../../../../shared/analysis/retainers.js';
import { HeapGraphBuilder } from '../../../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NODE_WEAK_EDGES, NONE } from '../../../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../../../shared/graph/metadata.js';
import { CancelledError } from '../../../../shared/errors.js';
import { CancellationSource } from '../../../../shared/util/cancellation.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { mulberry32, randomGraph } from '../../../helpers/random-graph.js';

/*
 * root ─ [static vars] ─ A ─ B ─ T          (length 4)
 *                         └ D ─ T          (length 4)
 *      ─ [local vars]  ─ C ═ T   (two edges C→T: one path)   (length 3, the shortest)
 *                       └ E ─ F ─ T        (length 4)
 *      ─ [weak] (weak) ─ T, W               (never a path)
 * T ─ A (cycle back: no path may use it, they would not be simple)
 * G (garbage, unreachable) ─ T, U
 */
function sample() {
  return tinyGraph((b) => {
    b.root('[static vars]').ref('A');
    b.root('[local vars]').ref('C', 'E');
    b.root('[weak]', { weak: true }).ref('T', 'W');
    b.node('A', 16).ref('B', 'D');
    b.node('B', 8).ref('T');
    b.node('D', 8).ref('T');
    b.node('C', 8).ref('T', 'T');
    b.node('E', 4).ref('F');
    b.node('F', 4).ref('T');
    b.node('T', 32).ref('A');
    b.node('W', 8);
    b.node('G', 8).ref('T', 'U');
    b.node('U', 8);
  });
}

function names(t: ReturnType<typeof sample>, path: Uint32Array): string {
  return Array.from(path, (n) => t.name(n)).join(' > ');
}

describe('shortestPathTree', () => {
  it('gives BFS distances and predecessors over strong edges only', () => {
    const t = sample();
    const spt = shortestPathTree(t.graph);
    const d = (n: string) => spt.dist[t.id(n)];
    expect([d('[root]'), d('[static vars]'), d('A'), d('C'), d('B'), d('F'), d('T')]).toEqual([0, 1, 2, 2, 3, 3, 3]);
    expect(spt.pred[t.id('T')]).toBe(t.id('C'));
    expect(spt.pred[t.id('[root]')]).toBe(NONE);
    // W is held only by a weak handle, U only by garbage: both unreachable
    expect(d('W')).toBe(NONE);
    expect(d('U')).toBe(NONE);
    expect(d('G')).toBe(NONE);
    expect(spt.reachedCount).toBe(t.graph.nodeCount - 3);
  });

  it('reports progress and stops when cancelled', () => {
    const t = sample();
    const calls: string[] = [];
    shortestPathTree(t.graph, { progress: (phase, done, total) => calls.push(`${phase} ${done}/${total}`) });
    const n = t.graph.nodeCount;
    expect(calls[0]).toBe(`paths 0/${n}`);
    expect(calls[calls.length - 1]).toBe(`paths ${n}/${n}`);
    const c = new CancellationSource();
    c.cancel();
    expect(() => shortestPathTree(t.graph, { token: c.token })).toThrow(CancelledError);
  });
});

describe('findRetentionPaths', () => {
  const t = sample();
  const g = t.graph;
  const spt = shortestPathTree(g);
  const ret = buildRetainers(g);

  it('returns the shortest path first, then every other distinct simple strong path by length', () => {
    const r = findRetentionPaths(g, t.id('T'), spt, ret, { maxPaths: 10 });
    expect(r.reachable).toBe(true);
    expect(r.truncated).toBe(false);
    expect(r.paths.map((p) => p.length - 1)).toEqual([3, 4, 4, 4]);
    expect(names(t, r.paths[0])).toBe('[root] > [local vars] > C > T');
    expect(r.paths.slice(1).map((p) => names(t, p)).sort()).toEqual([
      '[root] > [local vars] > E > F > T',
      '[root] > [static vars] > A > B > T',
      '[root] > [static vars] > A > D > T',
    ]);
  });

  it('stops at maxPaths', () => {
    const r = findRetentionPaths(g, t.id('T'), spt, ret, { maxPaths: 2 });
    expect(r.paths.length).toBe(2);
    expect(r.paths[1].length - 1).toBe(4);
  });

  it('finds no path to an object held only weakly or by garbage', () => {
    expect(findRetentionPaths(g, t.id('W'), spt, ret)).toEqual({ reachable: false, paths: [], truncated: false, work: 0 });
    expect(findRetentionPaths(g, t.id('U'), spt, ret).paths).toEqual([]);
  });

  it('reports truncation when the budget runs out', () => {
    const r = findRetentionPaths(g, t.id('T'), spt, ret, { maxPaths: 10, budget: 3 });
    expect(r.truncated).toBe(true);
    expect(r.work).toBe(3);
    expect(r.paths.length).toBeGreaterThanOrEqual(1);
  });

  it('describes steps and root categories', () => {
    const d = describePath(g, findRetentionPaths(g, t.id('T'), spt, ret).paths[0]);
    expect(d.length).toBe(3);
    expect(d.rootCategory).toBe('[local vars]');
    expect(d.rootDetail).toBe('[local vars]');
    expect(d.steps.map((s) => [s.typeName, s.address, s.selfSize, s.pseudo])).toEqual([
      ['[root]', '0x0', 0, true],
      ['[local vars]', '0x0', 0, true],
      ['C', '0x' + (0x1000 + t.id('C') * 0x10).toString(16), 8, false],
      ['T', '0x' + (0x1000 + t.id('T') * 0x10).toString(16), 32, false],
    ]);
  });

  it('names the static variable holder as the root detail', () => {
    // root → [static vars] → [static var Foo.bar] → X, built by hand to nest two pseudo-nodes
    const b = new HeapGraphBuilder();
    const tr = b.addType('[.NET Roots]');
    const ts = b.addType('[static vars]');
    const th = b.addType('[static var Foo.bar]');
    const tx = b.addType('Foo.Bar', 'app.dll');
    b.createNodes(4);
    b.setNode(0, tr, 0, [1]);
    b.setNode(1, ts, 0, [2]);
    b.setNode(2, th, 0, [3]);
    b.setNode(3, tx, 24, []);
    b.setAddress(3, 0x7f00);
    for (const n of [0, 1, 2]) b.addFlags(n, NODE_PSEUDO);
    b.setRoot(0);
    const g2 = b.finish(emptyMetadata('synthetic'));
    const s2 = shortestPathTree(g2);
    const d = describePath(g2, findRetentionPaths(g2, 3, s2, buildRetainers(g2)).paths[0]);
    expect([d.rootCategory, d.rootDetail, d.steps[3].address]).toEqual(['[static vars]', '[static var Foo.bar]', '0x7f00']);
  });

  it('gives the root itself as a one-step path', () => {
    const r = findRetentionPaths(g, g.rootIndex, spt, ret);
    expect(r.paths.map((p) => Array.from(p))).toEqual([[g.rootIndex]]);
    expect(describePath(g, r.paths[0]).rootCategory).toBeNull();
  });
});

/** Bellman–Ford style relaxation: shortest strong distances without a BFS queue. */
function naiveDistances(g: HeapGraph): number[] {
  const dist = new Array<number>(g.nodeCount).fill(Infinity);
  dist[g.rootIndex] = 0;
  for (let changed = true; changed; ) {
    changed = false;
    for (let u = 0; u < g.nodeCount; u++) {
      if (g.nodeFlags[u] & NODE_WEAK_EDGES || dist[u] === Infinity) continue;
      for (let e = g.firstEdge[u]; e < g.firstEdge[u + 1]; e++) {
        const v = g.edgeTarget[e];
        if (dist[u] + 1 < dist[v]) {
          dist[v] = dist[u] + 1;
          changed = true;
        }
      }
    }
  }
  return dist;
}

/** Every simple strong path root → target (distinct node sequences), lengths sorted; exponential, tiny graphs only. */
function allSimplePathLengths(g: HeapGraph, target: number, cap = 20000): number[] | null {
  const lengths: number[] = [];
  const seen = new Set<string>();
  const onPath = new Uint8Array(g.nodeCount);
  const path: number[] = [g.rootIndex];
  onPath[g.rootIndex] = 1;
  let overflow = false;
  const walk = (u: number): void => {
    if (overflow) return;
    if (u === target) {
      const key = path.join(',');
      if (!seen.has(key)) {
        seen.add(key);
        lengths.push(path.length - 1);
        if (lengths.length > cap) overflow = true;
      }
      return;
    }
    if (g.nodeFlags[u] & NODE_WEAK_EDGES) return;
    for (let e = g.firstEdge[u]; e < g.firstEdge[u + 1]; e++) {
      const v = g.edgeTarget[e];
      if (onPath[v]) continue;
      onPath[v] = 1;
      path.push(v);
      walk(v);
      path.pop();
      onPath[v] = 0;
    }
  };
  walk(g.rootIndex);
  return overflow ? null : lengths.sort((a, b) => a - b);
}

function isStrongEdge(g: HeapGraph, u: number, v: number): boolean {
  if (g.nodeFlags[u] & NODE_WEAK_EDGES) return false;
  for (let e = g.firstEdge[u]; e < g.firstEdge[u + 1]; e++) if (g.edgeTarget[e] === v) return true;
  return false;
}

describe('paths: randomized against naive oracles', () => {
  it('BFS distances, valid distinct simple chains, and the K shortest lengths (200 seeds)', () => {
    let compared = 0;
    let multi = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const g = randomGraph(seed, { nodes: 6 + (seed % 10), types: 3, avgDegree: 1.6 });
      const spt = shortestPathTree(g);
      const ret = buildRetainers(g);
      const naive = naiveDistances(g);
      const rnd = mulberry32(seed * 7);
      for (let v = 0; v < g.nodeCount; v++) expect(spt.dist[v] === NONE ? Infinity : spt.dist[v]).toBe(naive[v]);
      for (let q = 0; q < 4; q++) {
        const target = Math.floor(rnd() * g.nodeCount);
        const k = 1 + Math.floor(rnd() * 6);
        // fanout ≥ any in-degree: the search is then exact, so lengths must match the enumeration
        const r = findRetentionPaths(g, target, spt, ret, { maxPaths: k, fanout: g.edgeCount + 1 });
        expect(r.reachable).toBe(naive[target] !== Infinity);
        const keys = new Set<string>();
        for (const p of r.paths) {
          expect(p[0]).toBe(g.rootIndex);
          expect(p[p.length - 1]).toBe(target);
          expect(new Set(p).size).toBe(p.length);
          for (let i = 1; i < p.length; i++) expect(isStrongEdge(g, p[i - 1], p[i])).toBe(true);
          keys.add(Array.from(p).join(','));
        }
        expect(keys.size).toBe(r.paths.length);
        if (!r.reachable) continue;
        expect(r.paths[0].length - 1).toBe(naive[target]);
        const all = allSimplePathLengths(g, target);
        if (!all || r.truncated) continue;
        expect(r.paths.map((p) => p.length - 1)).toEqual(all.slice(0, k));
        compared++;
        if (r.paths.length > 1) multi++;
      }
    }
    expect(compared).toBeGreaterThan(200);
    expect(multi).toBeGreaterThan(50);
  });

  it('stays bounded on a hub retained by 50,000 objects', () => {
    const b = new HeapGraphBuilder({ expectedNodes: 50_004 });
    const tr = b.addType('[root]');
    const to = b.addType('Obj');
    const n = 50_003;
    b.createNodes(n);
    const holders = Array.from({ length: n - 3 }, (_, i) => 3 + i);
    b.setNode(0, tr, 0, [1]);
    b.addFlags(0, NODE_PSEUDO);
    b.setNode(1, tr, 0, holders);
    b.addFlags(1, NODE_PSEUDO);
    b.setNode(2, to, 8, []);
    for (const h of holders) b.setNode(h, to, 8, [2]);
    b.setRoot(0);
    const g = b.finish(emptyMetadata('synthetic'));
    const r = findRetentionPaths(g, 2, shortestPathTree(g), buildRetainers(g), { maxPaths: 5 });
    expect(r.paths.length).toBe(5);
    expect(r.paths.every((p) => p.length === 4)).toBe(true);
    // fanout max(16, 4·5) = 20: the target, 20 holders, their category, the root, once per holder
    expect(r.work).toBe(1 + 3 * 20);
  });
});

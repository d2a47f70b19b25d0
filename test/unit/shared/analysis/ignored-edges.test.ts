import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../../../shared/formats/all-readers.js';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { graphIgnoring, ignoredEdgeMask, pseudoNodesNamed, withoutEdges, type IgnoreRule } from '../../../../shared/analysis/ignored-edges.js';
import { computeSetRetained } from '../../../../shared/analysis/set-retained.js';
import { readSnapshot } from '../../../../shared/formats/read-snapshot.js';
import { HeapGraphBuilder } from '../../../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../../../shared/graph/metadata.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { CancellationSource } from '../../../../shared/util/cancellation.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { naiveAnalysis } from '../../../helpers/naive-dominators.js';
import { mulberry32, randomGraph } from '../../../helpers/random-graph.js';

// "What if" (issue 16): the analysis recomputed with references ignored.
//
//   [static vars] → Feed(24) ⇉ Del(64, Handler) → View1(100) → Buf(50)
//                 ↘                            ↘ View2(100)
//                   Cache(16) → View2, Buf2(30)
//   [finalizer Handles] → Res(40) → Buf3(10)
// Feed lists Del twice (a .gcdump keeps duplicate references). Reachable: 434 bytes.
const t = tinyGraph((b) => {
  b.root('[static vars]').ref('Feed', 'Cache');
  b.root('[finalizer Handles]').ref('Res');
  b.node('Feed', 24, 'Feed').ref('Del', 'Del');
  b.node('Del', 64, 'Handler').ref('View1', 'View2');
  b.node('View1', 100, 'View').ref('Buf');
  b.node('View2', 100, 'View');
  b.node('Buf', 50, 'Arr');
  b.node('Cache', 16, 'Cache').ref('View2', 'Buf2');
  b.node('Buf2', 30, 'Arr');
  b.node('Res', 40, 'Res').ref('Buf3');
  b.node('Buf3', 10, 'Arr');
});
const g = t.graph;
const type = (name: string) => g.types.names.indexOf(name);
const whatIf = (rules: IgnoreRule[]) => {
  const r = graphIgnoring(g, rules);
  return { ...r, a: analyzeGraph(r.graph) };
};

describe('ignored references: hand-built graph', () => {
  const before = analyzeGraph(g);

  it('starts from the full analysis', () => {
    expect(before.reachableSize).toBe(434);
    expect(before.retainedSize[t.id('Feed')]).toBe(238);
    expect(before.retainedSize[t.id('Cache')]).toBe(46);
    expect(before.typeRetained[type('View')]).toBe(250);
  });

  it('one reference (both copies of a duplicate): Del and what only it held go', () => {
    const { a, mask, graph } = whatIf([{ kind: 'reference', from: t.id('Feed'), to: t.id('Del') }]);
    expect(mask.count).toBe(2);
    expect(mask.perRule).toEqual([2]);
    expect(graph.edgeCount).toBe(g.edgeCount - 2);
    expect(a.reachableSize).toBe(220); // 434 − Del 64 − View1 100 − Buf 50
    expect(a.retainedSize[t.id('Feed')]).toBe(24);
    expect(a.retainedSize[t.id('Cache')]).toBe(146); // View2 now only through Cache
    expect(a.idom[t.id('View2')]).toBe(t.id('Cache'));
    expect(a.typeRetained[type('View')]).toBe(100);
    expect(a.reachable[t.id('Del')]).toBe(0);
  });

  it('references from a type: the Handler keeps nothing alive, but stays itself', () => {
    const { a, mask } = whatIf([{ kind: 'type', typeIndex: type('Handler') }]);
    expect(mask.count).toBe(2);
    expect(a.reachableSize).toBe(284); // 434 − View1 100 − Buf 50
    expect(a.retainedSize[t.id('Del')]).toBe(64);
    expect(a.retainedSize[t.id('Feed')]).toBe(88);
    expect(a.retainedSize[t.id('Cache')]).toBe(146);
    expect(a.typeRetained[type('View')]).toBe(100);
  });

  it('a root category: what only the finalizer queue held becomes unreachable', () => {
    const { a, mask } = whatIf([{ kind: 'root', node: t.id('[finalizer Handles]') }]);
    expect(mask.count).toBe(1);
    expect(a.reachableSize).toBe(384);
    expect(a.typeRetained[type('Res')]).toBe(0);
    expect(a.typeRetained[type('Arr')]).toBe(80); // Buf 50 + Buf2 30; Buf3 is unreachable now
  });

  it('rules combine; edges matched by two rules count once', () => {
    const { a, mask } = whatIf([
      { kind: 'reference', from: t.id('Del'), to: t.id('View1') },
      { kind: 'type', typeIndex: type('Handler') },
      { kind: 'root', node: t.id('[finalizer Handles]') },
    ]);
    expect(mask.perRule).toEqual([1, 2, 1]);
    expect(mask.count).toBe(3);
    expect(a.reachableSize).toBe(234); // 434 − 150 − 50
  });

  it('leaves the original graph and its analysis untouched (restore is the old result)', () => {
    const edges = Uint32Array.from(g.edgeTarget);
    whatIf([{ kind: 'type', typeIndex: type('View') }]);
    expect(Uint32Array.from(g.edgeTarget)).toEqual(edges);
    const again = analyzeGraph(g);
    expect(Array.from(again.retainedSize)).toEqual(Array.from(before.retainedSize));
  });

  it('refuses rules that name nothing in this graph', () => {
    const code = (rules: IgnoreRule[]) => {
      try {
        ignoredEdgeMask(g, rules);
        return 'none';
      } catch (e) {
        return (e as { code: string }).code;
      }
    };
    expect(code([{ kind: 'reference', from: t.id('Feed'), to: t.id('Cache') }])).toBe('usage/bad-argument');
    expect(code([{ kind: 'reference', from: g.nodeCount, to: 0 }])).toBe('usage/bad-argument');
    expect(code([{ kind: 'type', typeIndex: g.types.count }])).toBe('usage/bad-argument');
    expect(code([{ kind: 'root', node: t.id('Feed') }])).toBe('usage/bad-argument');
    expect(code([{ kind: 'root', node: g.rootIndex }])).toBe('usage/bad-argument');
    expect(code([])).toBe('none');
  });

  it('keeps field names with their references (process dumps)', () => {
    const named: HeapGraph = { ...g, edgeFieldName: Uint32Array.from({ length: g.edgeCount }, (_, e) => e), fieldNames: Array.from({ length: g.edgeCount }, (_, e) => `f${e}`) };
    const mask = ignoredEdgeMask(named, [{ kind: 'reference', from: t.id('Feed'), to: t.id('Del') }]);
    const out = withoutEdges(named, mask);
    const kept = Array.from({ length: g.edgeCount }, (_, e) => e).filter((e) => !(e >= g.firstEdge[t.id('Feed')] && e < g.firstEdge[t.id('Feed') + 1]));
    expect(Array.from(out.edgeFieldName!)).toEqual(kept);
    expect(Array.from(out.edgeTarget)).toEqual(kept.map((e) => g.edgeTarget[e]));
  });

  it('finds root categories by name or by path', () => {
    expect(pseudoNodesNamed(g, '[finalizer Handles]')).toEqual([t.id('[finalizer Handles]')]);
    expect(pseudoNodesNamed(g, '[other roots]/[finalizer Handles]')).toEqual([t.id('[finalizer Handles]')]);
    expect(pseudoNodesNamed(g, 'Feed')).toEqual([]); // an object type, not a category
  });

  it('is cancellable', () => {
    const c = new CancellationSource();
    c.cancel('stop');
    expect(() => graphIgnoring(g, [{ kind: 'type', typeIndex: type('View') }], c.token)).toThrow(/stop/);
  });
});

/** The graph rebuilt from scratch without the edges the rules name, decided per edge by their definition. */
function naiveWithout(h: HeapGraph, rules: IgnoreRule[]): HeapGraph {
  const drop = (from: number, to: number) =>
    rules.some((r) => (r.kind === 'reference' && r.from === from && r.to === to) || (r.kind === 'type' && h.nodeType[from] === r.typeIndex) || (r.kind === 'root' && r.node === from));
  const b = new HeapGraphBuilder();
  for (let i = 1; i < h.types.count; i++) b.addType(h.types.names[i], h.types.modules[i]);
  b.createNodes(h.nodeCount);
  for (let v = 0; v < h.nodeCount; v++) {
    if (h.nodeFlags[v] & NODE_UNDEFINED) continue;
    const refs: number[] = [];
    for (let e = h.firstEdge[v]; e < h.firstEdge[v + 1]; e++) if (!drop(v, h.edgeTarget[e])) refs.push(h.edgeTarget[e]);
    b.setNode(v, h.nodeType[v], h.selfSize[v], refs);
    b.addFlags(v, h.nodeFlags[v]);
  }
  b.setRoot(h.rootIndex);
  return b.finish(emptyMetadata('synthetic'));
}

describe('ignored references: randomized against a naive oracle', () => {
  it('dominators, retained sizes and per-type figures match on 400 random graphs', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const h = randomGraph(seed, { nodes: 6 + (seed % 30), types: 1 + (seed % 4), avgDegree: 1 + (seed % 3) });
      const rnd = mulberry32(seed * 7919);
      const rules: IgnoreRule[] = [];
      const k = 1 + Math.floor(rnd() * 3);
      for (let i = 0; i < k; i++) {
        const roll = rnd();
        if (roll < 0.5 && h.edgeCount > 0) {
          const e = Math.floor(rnd() * h.edgeCount);
          let from = 0;
          while (h.firstEdge[from + 1] <= e) from++;
          rules.push({ kind: 'reference', from, to: h.edgeTarget[e] });
        } else if (roll < 0.8) {
          rules.push({ kind: 'type', typeIndex: h.nodeType[Math.floor(rnd() * h.nodeCount)] });
        } else {
          const pseudo = Array.from({ length: h.nodeCount }, (_, v) => v).filter((v) => v !== h.rootIndex && h.nodeFlags[v] & NODE_PSEUDO);
          if (pseudo.length > 0) rules.push({ kind: 'root', node: pseudo[Math.floor(rnd() * pseudo.length)] });
        }
      }
      const fast = analyzeGraph(graphIgnoring(h, rules).graph);
      const oracle = naiveAnalysis(naiveWithout(h, rules));
      const ctx = `seed ${seed} rules ${JSON.stringify(rules)}`;
      expect(Array.from(fast.idom), ctx).toEqual(Array.from(oracle.idom));
      expect(Array.from(fast.retainedSize), ctx).toEqual(oracle.retained);
      expect(Array.from(fast.reachable, (x) => x === 1), ctx).toEqual(oracle.reachable);
      expect(Array.from(fast.typeRetained), ctx).toEqual(oracle.typeRetained);
    }
  });
});

describe('ignored references: golden, on the bundled sample', async () => {
  const path = join(__dirname, '../../../../electron/resources/sample.gcdump');
  const sample = await readSnapshot(new MemoryByteSource(new Uint8Array(readFileSync(path))));
  const a = analyzeGraph(sample);
  const names = sample.types.names;
  const reportView = names.indexOf('SampleShop.ReportView');
  const action = names.indexOf('System.Action<SampleShop.Product>');
  const feed = sample.nodeType.indexOf(names.indexOf('SampleShop.PriceFeed'));
  const delegate = sample.edgeTarget[sample.firstEdge[feed]];

  it('is the sample we think it is', () => {
    expect(sample.firstEdge[feed + 1] - sample.firstEdge[feed]).toBe(1);
    expect(names[sample.nodeType[delegate]]).toBe('System.Action<SampleShop.Product>');
    expect(a.reachableSize).toBe(6_018_638);
    expect(a.typeRetained[reportView]).toBe(166_800);
    expect(a.idom[delegate]).toBe(feed);
  });

  it('ignoring PriceFeed → its PriceChanged delegate frees exactly what that delegate retained', () => {
    const r = graphIgnoring(sample, [{ kind: 'reference', from: feed, to: delegate }]);
    const b = analyzeGraph(r.graph);
    expect(r.mask.count).toBe(1);
    // the delegate's only reference goes: everything it dominated goes with it
    expect(a.retainedSize[delegate]).toBe(178_536);
    expect(b.reachableSize).toBe(6_018_638 - 178_536);
    expect(b.typeRetained[reportView]).toBe(0);
    expect(b.retainedSize[feed]).toBe(sample.selfSize[feed]);
  });

  it('ignoring references from every Action<Product> frees all the multicast delegate retained but itself', () => {
    const r = graphIgnoring(sample, [{ kind: 'type', typeIndex: action }]);
    const b = analyzeGraph(r.graph);
    // the multicast delegate → its invocation list, and each of the 150 subscriber delegates → its ReportView;
    // one more Action<Product> elsewhere with one reference
    expect(r.mask.count).toBe(152);
    expect(a.reachableSize - b.reachableSize).toBe(178_472);
    expect(a.retainedSize[delegate] - sample.selfSize[delegate]).toBe(178_472);
    expect(b.typeRetained[reportView]).toBe(0);
    // the set retained size of the ReportViews (bytes freed when all of them go) is what their type loses
    expect(computeSetRetained(sample, a, [reportView])[0]).toBe(166_800);
  });

  it('ignoring [finalizer Handles] frees exactly what that category dominated', () => {
    const [fin] = pseudoNodesNamed(sample, '[other roots]/[finalizer Handles]');
    const b = analyzeGraph(graphIgnoring(sample, [{ kind: 'root', node: fin }]).graph);
    expect(a.reachableSize - b.reachableSize).toBe(a.retainedSize[fin]);
  });
});

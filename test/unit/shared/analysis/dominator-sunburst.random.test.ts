import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../shared/analysis/analyze.js';
import { dominatorSunburst, type SunburstItem, type SunburstOptions } from '../../../../shared/analysis/dominator-sunburst.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { NONE } from '../../../../shared/graph/heap-graph.js';
import { CancellationSource } from '../../../../shared/util/cancellation.js';
import { naiveAnalysis, type NaiveAnalysis } from '../../../helpers/naive-dominators.js';
import { mulberry32, randomGraph, syntheticHeap } from '../../../helpers/random-graph.js';

// Issue 16: the sunburst's rings against a naive oracle written from the definition (children =
// nodes whose naive immediate dominator is the parent; groups = Maps by type; folding as
// documented), on random graphs with many ties.

type Row = [depth: number, parent: number, kind: string, node: number, type: number, retained: number, count: number, folded: number, childCount: number];

function naiveSunburst(g: HeapGraph, o: NaiveAnalysis, center: number, opt: SunburstOptions): Row[] {
  const kids: number[][] = Array.from({ length: g.nodeCount }, () => []);
  for (let v = 0; v < g.nodeCount; v++) if (o.idom[v] !== NONE) kids[o.idom[v]].push(v);
  const childrenOf = (members: number[]) => members.flatMap((m) => kids[m]);
  let members = [center];
  for (const t of opt.typePath) members = childrenOf(members).filter((v) => g.nodeType[v] === t);
  const sum = (xs: number[]) => xs.reduce((s, v) => s + o.retained[v], 0);
  const centerRetained = sum(members);
  const threshold = opt.minShare * centerRetained;
  const grouped = opt.typePath.length > 0;
  const rows: Row[] = [[0, -1, grouped ? 'group' : 'object', members.length === 1 ? members[0] : NONE, grouped ? opt.typePath.at(-1)! : g.nodeType[center], centerRetained, members.length, 0, childrenOf(members).length]];
  let level: { item: number; members: number[] }[] = [{ item: 0, members }];
  for (let d = 1; d <= opt.depth; d++) {
    const next: typeof level = [];
    for (const { item, members: ms } of level) {
      const children = childrenOf(ms);
      // candidates: one per child object, or one per type
      let cands: { members: number[]; bytes: number; key: number }[];
      if (opt.mode === 'object') cands = children.map((v) => ({ members: [v], bytes: o.retained[v], key: v }));
      else {
        const byType = new Map<number, number[]>();
        for (const v of children) byType.set(g.nodeType[v], [...(byType.get(g.nodeType[v]) ?? []), v]);
        cands = [...byType].map(([t, vs]) => ({ members: vs, bytes: sum(vs), key: t }));
      }
      cands.sort((x, y) => y.bytes - x.bytes || x.key - y.key);
      let kept = 0;
      while (kept < cands.length && kept < opt.top && cands[kept].bytes >= threshold) kept++;
      for (const c of cands.slice(0, kept)) {
        const cc = childrenOf(c.members).length;
        const kind = opt.mode === 'object' ? 'object' : 'group';
        const node = c.members.length === 1 ? c.members[0] : NONE;
        rows.push([d, item, kind, node, g.nodeType[c.members[0]], c.bytes, c.members.length, 0, cc]);
        if (cc > 0 && (opt.mode === 'object' || d < opt.depth)) next.push({ item: rows.length - 1, members: c.members });
      }
      const rest = cands.slice(kept);
      if (rest.length > 0) rows.push([d, item, 'others', NONE, -1, rest.reduce((s, c) => s + c.bytes, 0), rest.reduce((s, c) => s + c.members.length, 0), rest.length, 0]);
    }
    level = next;
  }
  return rows;
}

const asRows = (items: SunburstItem[]): Row[] => items.map((i) => [i.depth, i.parent, i.kind, i.node, i.typeIndex, i.retained, i.count, i.folded, i.childCount]);

describe('dominator sunburst against the naive oracle (random graphs)', () => {
  it('the same rings, folding and sums on 200 random graphs', () => {
    const rnd = mulberry32(1616);
    let items = 0;
    let folded = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const g = randomGraph(seed, { nodes: 2 + Math.floor(rnd() * 60), types: 1 + Math.floor(rnd() * 5), avgDegree: 0.5 + rnd() * 2.5 });
      const o = naiveAnalysis(g);
      const a = analyzeDominance(g);
      for (let q = 0; q < 4; q++) {
        const mode = rnd() < 0.5 ? 'object' : 'type';
        const center = rnd() < 0.4 ? g.rootIndex : Math.floor(rnd() * g.nodeCount);
        const opt: SunburstOptions & { typePath: number[] } = { mode, depth: 1 + Math.floor(rnd() * 5), top: 1 + Math.floor(rnd() * 5), minShare: 0.001 + rnd() * rnd() * 0.3, typePath: [] };
        if (mode === 'type' && rnd() < 0.5) {
          // a type path along existing groups: step into a random child's type
          let ms = [center];
          for (let s = 0; s < 3; s++) {
            const ch = ms.flatMap((m) => [...Array(g.nodeCount).keys()].filter((v) => o.idom[v] === m));
            if (ch.length === 0) break;
            const t = g.nodeType[ch[Math.floor(rnd() * ch.length)]];
            opt.typePath.push(t);
            ms = ch.filter((v) => g.nodeType[v] === t);
          }
        }
        const got = asRows(dominatorSunburst(g, a, center, { ...opt, typePath: [...opt.typePath] }).items);
        const want = naiveSunburst(g, o, center, opt);
        expect(got, `seed ${seed} query ${q} ${JSON.stringify({ ...opt, center })}`).toEqual(want);
        items += got.length;
        folded += got.filter((r) => r[2] === 'others').length;
        // rings add up: children of an item never exceed it; Σ count = its childCount
        for (let p = 0; p < got.length; p++) {
          const ks = got.filter((r) => r[1] === p);
          if (ks.length === 0) continue;
          expect(ks.reduce((s, r) => s + r[5], 0)).toBeLessThanOrEqual(got[p][5]);
          expect(ks.reduce((s, r) => s + r[6], 0)).toBe(got[p][8]);
        }
      }
    }
    // the comparison exercised folding, not only trivial trees
    expect(items).toBeGreaterThan(1000);
    expect(folded).toBeGreaterThan(100);
  });

  it('bounded payload on a 200,000-object heap, and cancellable', () => {
    const g = syntheticHeap(200_000, 2, 7);
    const a = analyzeDominance(g);
    for (const mode of ['object', 'type'] as const) {
      const r = dominatorSunburst(g, a, g.rootIndex, { mode, depth: 8, top: 200, minShare: 0.001, typePath: [] });
      // kept items are disjoint and each ≥ 0.1% of the center: ≤ 1000 per ring, plus one "others" per parent
      for (let d = 1; d <= 8; d++) expect(r.items.filter((i) => i.depth === d && i.kind !== 'others').length).toBeLessThanOrEqual(1000);
      expect(r.items.length).toBeLessThan(16_000);
      const ring1 = r.items.filter((i) => i.depth === 1).reduce((s, i) => s + i.retained, 0);
      expect(ring1).toBe(a.reachableSize - g.selfSize[g.rootIndex]);
      const c = new CancellationSource();
      c.cancel();
      expect(() => dominatorSunburst(g, a, g.rootIndex, { mode, depth: 8, top: 200, minShare: 0.001, typePath: [] }, c.token)).toThrow(/cancel/i);
    }
  });
});

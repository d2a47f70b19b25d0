import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../../shared/analysis/analyze.js';
import { runInspections } from '../../../../../shared/analysis/inspections/index.js';
import { accumulationPoint } from '../../../../../shared/analysis/suspects/accumulation-point.js';
import { renderSuspectsHtml } from '../../../../../shared/analysis/suspects/render-html.js';
import { renderSuspectsMarkdown } from '../../../../../shared/analysis/suspects/render-markdown.js';
import { buildSuspectsReport, suspectsBaselineOf } from '../../../../../shared/analysis/suspects/suspects-report.js';
import { tinyGraph, type TinyGraph } from '../../../../helpers/graph-builder.js';

/**
 * The report model on one hand-built heap, every figure worked out by hand:
 *
 *   [static vars] → [static var A.Cache] → Cache(40) → Arr(Item[], 100) → I1..I5 (Item, 20); I1 → Blob(Byte[], 10)
 *   [static vars] → [static var A.Small] → Small(10)
 *   [local vars] → Chain1(Node, 16) → Chain2(Node, 16) → Chain3(Node, 16) → Leaf(Byte[], 1000)
 *   [other roots] → P(Holder, 30) → C(Payload, 70)
 *
 * Retained: Cache 250 (Arr 210, I1 30), Small 10, Chain1 1048 (Chain2 1032, Chain3 1016, Leaf 1000),
 * P 100 (C 70). Reachable bytes 1408.
 */
function heap(): TinyGraph {
  return tinyGraph((b) => {
    b.root('[static vars]').ref('[static var A.Cache]', '[static var A.Small]');
    b.root('[static var A.Cache]').ref('Cache');
    b.root('[static var A.Small]').ref('Small');
    b.root('[local vars]').ref('Chain1');
    b.root('[other roots]').ref('P');
    b.node('Cache', 40).ref('Arr');
    b.node('Arr', 100, 'Item[]').ref('I1', 'I2', 'I3', 'I4', 'I5');
    for (const i of ['I2', 'I3', 'I4', 'I5']) b.node(i, 20, 'Item');
    b.node('I1', 20, 'Item').ref('Blob');
    b.node('Blob', 10, 'System.Byte[]');
    b.node('Small', 10);
    b.node('Chain1', 16, 'Node').ref('Chain2');
    b.node('Chain2', 16, 'Node').ref('Chain3');
    b.node('Chain3', 16, 'Node').ref('Leaf');
    b.node('Leaf', 1000, 'System.Byte[]');
    b.node('P', 30, 'Holder').ref('C');
    b.node('C', 70, 'Payload');
  });
}

const hex = (t: TinyGraph, name: string) => '0x' + (0x1000 + t.id(name) * 0x10).toString(16);

describe('accumulation point (walk down while the largest child holds ≥ 70%)', () => {
  const t = heap();
  const a = analyzeDominance(t.graph);
  const item = t.graph.types.names.indexOf('Item');

  it('a cache stops at its array: 210 ≥ 0.7 × 250, then 30 < 0.7 × 210', () => {
    expect(accumulationPoint(t.graph, a, t.id('Cache'))).toEqual({ node: t.id('Arr'), depth: 1, childCount: 5, elementType: item, elementCount: 5, elementRetained: 110 });
  });

  it('a chain walks to its end: 1032/1048, 1016/1032, 1000/1016 are all ≥ 70%', () => {
    expect(accumulationPoint(t.graph, a, t.id('Chain1'))).toEqual({ node: t.id('Leaf'), depth: 3, childCount: 0, elementType: -1, elementCount: 0, elementRetained: 0 });
  });

  it('exactly 70% steps down (70 of 100), 69% would not', () => {
    expect(accumulationPoint(t.graph, a, t.id('P')).node).toBe(t.id('C'));
    expect(accumulationPoint(t.graph, a, t.id('P'), 71).node).toBe(t.id('P'));
  });

  it('a tie on count goes to the type whose children retain more, then to the lower type index', () => {
    const d = tinyGraph((b) => {
      b.root('[static vars]').ref('Map');
      b.node('Map', 10, 'Entry[]').ref('k1', 'v1', 'k2', 'v2', 'x1', 'y1');
      for (const k of ['k1', 'k2']) b.node(k, 20, 'Key');
      for (const v of ['v1', 'v2']) b.node(v, 30, 'Value');
      b.node('x1', 5, 'X');
      b.node('y1', 5, 'Y');
    });
    const names = d.graph.types.names;
    expect(accumulationPoint(d.graph, analyzeDominance(d.graph), d.id('Map'))).toEqual({ node: d.id('Map'), depth: 0, childCount: 6, elementType: names.indexOf('Value'), elementCount: 2, elementRetained: 60 });
    // X and Y: same count, same bytes: the lower type index (X was declared first)
    const xy = tinyGraph((b) => {
      b.root('[static vars]').ref('M');
      b.node('M', 10, 'M').ref('x1', 'y1');
      b.node('x1', 5, 'X');
      b.node('y1', 5, 'Y');
    });
    expect(accumulationPoint(xy.graph, analyzeDominance(xy.graph), xy.id('M')).elementType).toBe(xy.graph.types.names.indexOf('X'));
  });

  it('a leaf is its own accumulation point', () => {
    expect(accumulationPoint(t.graph, a, t.id('Small'))).toEqual({ node: t.id('Small'), depth: 0, childCount: 0, elementType: -1, elementCount: 0, elementRetained: 0 });
  });
});

describe('buildSuspectsReport on the hand-built heap', () => {
  const t = heap();
  const a = analyzeDominance(t.graph);

  it('summary', () => {
    const r = buildSuspectsReport(t.graph, a, { fileName: 'tiny.gcdump' });
    expect(r.reportVersion).toBe(1);
    expect(r.file).toBe('tiny.gcdump');
    expect(r.summary).toEqual({
      format: 'synthetic',
      formatVersion: null,
      creationTool: null,
      processName: null,
      timeCollected: null,
      objects: 15,
      objectBytes: 1408,
      reachableObjects: 15,
      reachableBytes: 1408,
      unreachableObjects: 0,
      unreachableBytes: 0,
      types: 8,
      references: t.graph.edgeCount,
    });
  });

  it('10%: threshold ceil(140.8) = 141 bytes; the chain (1048) and the cache (250), never their insides', () => {
    const r = buildSuspectsReport(t.graph, a, { fileName: 'tiny.gcdump' });
    expect([r.thresholdPercent, r.thresholdBytes, r.bigDropPercent, r.suspectCount, r.suspectBytes]).toEqual([10, 141, 70, 2, 1298]);
    expect(r.suspects.map((s) => [s.rank, s.type, s.address, s.shallowSize, s.retainedSize, s.percentOfReachable])).toEqual([
      [1, 'Node', hex(t, 'Chain1'), 16, 1048, 74.43],
      [2, 'Cache', hex(t, 'Cache'), 40, 250, 17.76],
    ]);
    const [chain, cache] = r.suspects;
    expect(chain.accumulationPoint).toEqual({
      node: t.id('Leaf'),
      type: 'System.Byte[]',
      address: hex(t, 'Leaf'),
      shallowSize: 1000,
      retainedSize: 1000,
      percentOfReachable: 71.02,
      depth: 3,
      childCount: 0,
      elementType: null,
      elementCount: 0,
      elementRetained: 0,
    });
    expect(cache.accumulationPoint).toMatchObject({ node: t.id('Arr'), type: 'Item[]', retainedSize: 210, percentOfReachable: 14.91, depth: 1, childCount: 5, elementType: 'Item', elementCount: 5, elementRetained: 110 });
    expect(chain.path).toMatchObject({ length: 2, rootCategory: '[local vars]', rootDetail: '[local vars]', elidedSteps: 0 });
    expect(chain.path.steps.map((s) => [s.typeName, s.pseudo])).toEqual([
      ['[root]', true],
      ['[local vars]', true],
      ['Node', false],
    ]);
    // tinyGraph also hangs every b.root() category under [root]: the static holder is one step away
    expect(cache.path).toMatchObject({ length: 2, rootCategory: '[static var A.Cache]', rootDetail: '[static var A.Cache]' });
    expect(cache.path.steps.map((s) => s.typeName)).toEqual(['[root]', '[static var A.Cache]', 'Cache']);
  });

  it('5% (71 bytes) adds the holder (100); maxSuspects keeps the largest but counts all', () => {
    const r = buildSuspectsReport(t.graph, a, { fileName: 'x', thresholdPercent: 5, maxSuspects: 2 });
    expect([r.thresholdBytes, r.suspectCount, r.suspects.length, r.suspectBytes]).toEqual([71, 3, 2, 1298]);
    const all = buildSuspectsReport(t.graph, a, { fileName: 'x', thresholdPercent: 5 });
    expect(all.suspects.map((s) => [s.type, s.retainedSize])).toEqual([
      ['Node', 1048],
      ['Cache', 250],
      ['Holder', 100],
    ]);
    expect(all.suspects[2].accumulationPoint.type).toBe('Payload');
  });

  it('100%: nothing retains all of the heap alone', () => {
    const r = buildSuspectsReport(t.graph, a, { fileName: 'x', thresholdPercent: 100 });
    expect([r.thresholdBytes, r.suspectCount, r.suspects]).toEqual([1408, 0, []]);
  });

  it('inspections, generations, no growth without a baseline', () => {
    const r = buildSuspectsReport(t.graph, a, { fileName: 'x' });
    const direct = runInspections(t.graph, a, { top: 5 });
    expect(r.findings).toEqual(direct.findings);
    expect(r.findings.map((f) => [f.kind, f.bytes])).toEqual([
      ['static-field', 250],
      ['static-field', 10],
    ]);
    expect(r.unavailable.map((u) => u.kind)).toEqual(['duplicate-strings', 'sparse-arrays', 'empty-collections']);
    expect(r.generations).toEqual({
      hasGenerationData: false,
      message: 'this snapshot carries no generation data',
      rows: null,
      largeBySize: { count: 0, bytes: 0, threshold: 85_000 },
    });
    expect(r.growth).toBeNull();
  });

  it('growth against a smaller baseline: totals and the grown types', () => {
    const before = tinyGraph((b) => {
      b.root('[static vars]').ref('[static var A.Cache]');
      b.root('[static var A.Cache]').ref('Cache');
      b.node('Cache', 40).ref('Arr');
      b.node('Arr', 100, 'Item[]').ref('I1');
      b.node('I1', 20, 'Item');
    });
    const base = suspectsBaselineOf(before.graph, analyzeDominance(before.graph), 'before.gcdump');
    expect([base.objects, base.reachableObjects, base.reachableBytes]).toEqual([3, 3, 160]);
    const r = buildSuspectsReport(t.graph, a, { fileName: 'x', baseline: base });
    expect(r.growth).toMatchObject({ baseline: 'before.gcdump', baselineObjects: 3, baselineReachableBytes: 160, objectsDelta: 12, reachableBytesDelta: 1248 });
    // growth findings sit in growth, not in findings
    expect(r.findings.some((f) => f.kind.startsWith('growth'))).toBe(false);
    const grown = r.growth!.findings.filter((f) => f.kind === 'growth-type').map((f) => [f.details.type, f.details.growthBytes]);
    // type retained now vs before: Node 1048 (new), Byte[] 1010 (new), Holder 100 (new), Cache 250 vs 160,
    // Item 110 vs 20, Item[] 210 vs 120 (ties by title), Payload 70, Small 10; the 5 largest are kept
    expect(grown).toEqual([
      ['Node', 1048],
      ['System.Byte[]', 1010],
      ['Holder', 100],
      ['Cache', 90],
      ['Item', 90],
    ]);
  });
});

describe('a long shortest path keeps its ends', () => {
  // [local vars] → A0 → … → A49 → X and [other roots] → B0 → … → B49 → X: X (1000 bytes) is held by
  // two chains, so only the root dominates it; its shortest path has 53 steps (root, category, 50 links, X)
  const t = tinyGraph((b) => {
    b.root('[local vars]').ref('A0');
    b.root('[other roots]').ref('B0');
    for (const c of ['A', 'B']) for (let i = 0; i < 50; i++) b.node(`${c}${i}`, 8, 'Link').ref(i < 49 ? `${c}${i + 1}` : 'X');
    b.node('X', 1000, 'Payload');
  });
  // each chain head retains 400 of 1800 bytes: 50% (900) leaves X alone
  const r = buildSuspectsReport(t.graph, analyzeDominance(t.graph), { fileName: 'x', thresholdPercent: 50 });

  it('first 4 and last 36 of 53 steps, 13 elided', () => {
    expect(r.suspects.map((s) => [s.type, s.retainedSize])).toEqual([['Payload', 1000]]);
    const p = r.suspects[0].path;
    expect([p.length, p.steps.length, p.elidedSteps, p.rootCategory]).toEqual([52, 40, 13, '[local vars]']);
    expect(p.steps.slice(0, 4).map((s) => s.typeName)).toEqual(['[root]', '[local vars]', 'Link', 'Link']);
    expect(p.steps[4].address).toBe(hex(t, 'A15')); // step 18 of 53: A0 is step 3
    expect(p.steps[39].typeName).toBe('Payload');
  });

  it('the renderings number the steps as on the full path and say what was left out', () => {
    const html = renderSuspectsHtml(r);
    expect(html).toContain('<li class="pseudo" value="5">… 13 steps left out …</li>');
    expect(html).toContain(`<li value="18"><span class="name">Link</span> <span class="muted">${hex(t, 'A15')}, 8 bytes</span></li>`);
    const md = renderSuspectsMarkdown(r);
    expect(md).toContain('  … 13 steps left out …');
    expect(md).toContain(`  18. Link ${hex(t, 'A15')}, 8 bytes`);
    expect(md).toContain('  53. Payload ');
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { HeapGraphBuilder } from '../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../shared/graph/metadata.js';
import { captureIo } from '../helpers/capture-io.js';
import { fixturePath, NO_FIXTURES } from '../helpers/fixtures.js';
import { tinyGraph, type TinyBuilder } from '../helpers/graph-builder.js';
import { generateCfHeapLogText } from '../tools/gen-cf-heaplog.js';

/*
 * Tiny snapshots written as real .gcdump files, so every command runs end to end with numbers
 * worked out by hand:
 *   base: root → [static vars] → Cache(24) → List(32) → P1, P2, P3 (LeakyPage, 40 each), P1 → P2
 *         root → [local vars]  → Handler(16) → P4;   garbage G(8) → P5
 *   new:  base + List → P6, Handler → Buf (System.Byte[], 90,000 bytes)
 *   new2: new + List → P7
 */
function leaky(extra: (b: TinyBuilder) => void = () => {}) {
  return tinyGraph((b) => {
    b.root('[static vars]').ref('Cache');
    b.root('[local vars]').ref('Handler');
    b.node('Cache', 24).ref('List');
    b.node('List', 32).ref('P1', 'P2', 'P3');
    b.node('Handler', 16).ref('P4');
    for (const p of ['P1', 'P2', 'P3', 'P4', 'P5']) b.node(p, 40, 'LeakyPage');
    b.node('P1', 40, 'LeakyPage').ref('P2');
    b.node('G', 8).ref('P5');
    extra(b);
  });
}
const grown = (b: TinyBuilder) => {
  b.node('List', 32).ref('P6');
  b.node('P6', 40, 'LeakyPage');
  b.node('Handler', 16).ref('Buf');
  b.node('Buf', 90_000, 'System.Byte[]');
};

let dir: string;
const file = (name: string) => join(dir, name);
function save(name: string, g: HeapGraph): void {
  writeFileSync(file(name), Buffer.concat(writeGcdump(g)));
}
const base = leaky();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-cli-analysis-'));
  save('base.gcdump', base.graph);
  save('new.gcdump', leaky(grown).graph);
  save(
    'new2.gcdump',
    leaky((b) => {
      grown(b);
      b.node('List', 32).ref('P7');
      b.node('P7', 40, 'LeakyPage');
    }).graph,
  );
  // Generations: one segment [0x10000, 0x20000): gen2 below 0x14000, gen1 below 0x18000, gen0 above.
  const b = new HeapGraphBuilder();
  const tr = b.addType('[.NET Roots]');
  const to = b.addType('Obj', 'app.dll');
  b.createNodes(5);
  b.setNode(0, tr, 0, [1, 2, 3, 4]);
  const objs: [number, number][] = [[0x10000, 100], [0x15000, 200], [0x19000, 300], [0x30000, 400]];
  objs.forEach(([addr, size], i) => {
    b.setNode(i + 1, to, size, []);
    b.setAddress(i + 1, addr);
  });
  b.setRoot(0);
  const segments = [{ start: 0x10000n, end: 0x20000n, gen0End: 0x20000n, gen1End: 0x18000n, gen2End: 0x14000n, gen3End: 0x10000n, gen4End: 0n }];
  save('gens.gcdump', b.finish({ ...emptyMetadata('synthetic'), pointerSize: 8, segments }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  return { code, out: c.out, err: c.err };
}
async function json<T>(...argv: string[]): Promise<T> {
  const r = await run(...argv, '--format', 'json');
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as T;
}
const addr = (name: string) => '0x' + (0x1000 + base.id(name) * 0x10).toString(16);

describe('heapscope dominators', () => {
  it('lists the tree from the root, N per level, D deep, with hidden children and % of reachable', async () => {
    const rows = await json<Record<string, unknown>[]>('dominators', file('base.gcdump'), '--depth', '2');
    expect(rows.map((r) => [r.depth, r.type, r.retainedSize, r.percentOfReachable, r.hiddenChildren, r.hiddenRetained])).toEqual([
      [0, '[root]', 232, 100, 0, 0],
      [1, '[static vars]', 176, 75.86, 0, 0],
      [2, 'Cache', 176, 75.86, 1, 152],
      [1, '[local vars]', 56, 24.14, 0, 0],
      [2, 'Handler', 56, 24.14, 1, 40],
    ]);
    expect(rows[2]).toMatchObject({ node: base.id('Cache'), parent: base.id('[static vars]'), address: addr('Cache'), shallowSize: 24, pseudo: false });
  });

  it('cuts each level at --top, and prints a table and CSV', async () => {
    const rows = await json<{ type: string }[]>('dominators', file('base.gcdump'), '--top', '1', '--depth', '5');
    expect(rows.map((r) => r.type)).toEqual(['[root]', '[static vars]', 'Cache', 'List', 'LeakyPage']);
    const t = await run('dominators', file('base.gcdump'));
    expect(t.code).toBe(0);
    expect(t.out).toContain('232 bytes reachable; 2 unreachable nodes (48 bytes)');
    expect(t.out).toMatch(/\n {4}3 {8}List {7}0x[0-9a-f]+ +32 +152 +65\.52 +3 +120\n/);
    const csv = await run('dominators', file('base.gcdump'), '--format', 'csv');
    expect(csv.out.split('\r\n')[0]).toBe('depth,node,parent,type,address,shallowSize,retainedSize,percentOfReachable,childCount,hiddenChildren,hiddenRetained,pseudo');
    expect((await run('dominators', file('base.gcdump'), '--top', '0')).code).toBe(2);
  });
});

describe('heapscope paths', () => {
  it('--address: the shortest path and the other distinct ones, with root categories', async () => {
    const r = await json<{ target: { typeName: string; selfSize: number }; reachable: boolean; paths: { length: number; rootCategory: string; steps: { typeName: string }[] }[] }>(
      'paths', file('base.gcdump'), '--address', addr('P2'), '--max', '3');
    expect([r.target.typeName, r.target.selfSize, r.reachable]).toEqual(['LeakyPage', 40, true]);
    expect(r.paths.map((p) => [p.length, p.rootCategory, p.steps.map((s) => s.typeName).join('>')])).toEqual([
      [4, '[static vars]', '[root]>[static vars]>Cache>List>LeakyPage'],
      [5, '[static vars]', '[root]>[static vars]>Cache>List>LeakyPage>LeakyPage'],
    ]);
    const t = await run('paths', file('base.gcdump'), '--address', addr('P5').toUpperCase().replace('0X', ''));
    expect(t.code).toBe(0);
    expect(t.out).toContain('not reachable from any root');
    const csv = await run('paths', file('base.gcdump'), '--address', addr('P4'), '--format', 'csv');
    expect(csv.out.split('\r\n').length).toBe(1 + 4 + 1); // header, root → [local vars] → Handler → P4, final CRLF
  });

  it('--type: the merged tree, by exact name or a unique case-insensitive substring', async () => {
    type Tree = { type: string; instances: number; reachable: number; unreachable: number; tree: { typeName: string; count: number; children: unknown[] }[] };
    const exact = await json<Tree>('paths', file('base.gcdump'), '--type', 'LeakyPage');
    const fuzzy = await json<Tree>('paths', file('base.gcdump'), '--type', 'leaky');
    expect(fuzzy).toEqual(exact);
    expect([exact.type, exact.instances, exact.reachable, exact.unreachable]).toEqual(['LeakyPage', 5, 4, 1]);
    const t = await run('paths', file('base.gcdump'), '--type', 'LeakyPage');
    expect(t.out.split('\n').slice(5, 13).map((l) => l.trimEnd())).toEqual([
      '        4  LeakyPage',
      '        3    List',
      '        3      Cache',
      '        3        [static vars]',
      '        3          [root]',
      '        1    Handler',
      '        1      [local vars]',
      '        1        [root]',
    ]);
  });

  it('is a usage error (exit 2) for ambiguous or unknown types, unknown addresses and bad flag combinations', async () => {
    const amb = await run('paths', file('base.gcdump'), '--type', 'e');
    expect(amb.code).toBe(2);
    expect(amb.err).toContain('"e" matches 3 types; use the exact name:\n  Cache\n  Handler\n  LeakyPage');
    expect((await run('paths', file('base.gcdump'), '--type', 'Nope')).code).toBe(2);
    expect((await run('paths', file('base.gcdump'), '--address', '0xdead')).err).toContain('no object at address 0xdead');
    expect((await run('paths', file('base.gcdump'), '--address', 'xyz')).code).toBe(2);
    expect((await run('paths', file('base.gcdump'), '--address', '0x0')).err).toContain('--address 0 is not an object');
    expect((await run('paths', file('base.gcdump'))).code).toBe(2);
    expect((await run('paths', file('base.gcdump'), '--type', 'A', '--address', '0x1')).code).toBe(2);
  });
});

describe('heapscope generations', () => {
  it('gives objects and bytes per generation when the file has segments', async () => {
    const r = await json<{ hasGenerationData: boolean; generations: { name: string; count: number; bytes: number }[] }>('generations', file('gens.gcdump'));
    expect(r.hasGenerationData).toBe(true);
    expect(r.generations.map((g) => [g.name, g.count, g.bytes])).toEqual([
      ['gen0', 1, 300],
      ['gen1', 1, 200],
      ['gen2', 1, 100],
      ['LOH', 0, 0],
      ['POH', 0, 0],
      ['unknown', 0, 0],
      ['frozen (non-GC heap)', 1, 400], // 0x30000 lies outside the one GC segment
    ]);
  });

  it('says when there is no generation data, and still counts objects large enough for the LOH', async () => {
    const t = await run('generations', file('new.gcdump'));
    expect(t.code).toBe(0);
    expect(t.out).toContain('this file carries no generation data (written by heapscope, it lists no GC segments)');
    expect(t.out).toMatch(/LOH by size +1 +90,000/);
    const csv = await run('generations', file('new.gcdump'), '--format', 'csv');
    expect(csv.out).toBe('generation,count,bytes,percentOfBytes\r\nLOH by size,1,90000,' + Math.round((90_000 / (24 + 32 + 16 + 6 * 40 + 8 + 90_000)) * 10000) / 100 + '\r\n');
    expect(csv.err).toContain('no generation data');
  });
});

describe('heapscope diff', () => {
  it('gives per-type deltas sorted by retained growth, and totals', async () => {
    const r = await json<{ total: Record<string, number>; added: number; removed: number; rows: Record<string, unknown>[] }>('diff', file('base.gcdump'), file('new.gcdump'));
    expect(r.rows.map((x) => [x.type, x.status, x.countDelta, x.shallowDelta, x.baseRetained, x.newRetained, x.retainedDelta])).toEqual([
      ['Handler', 'both', 0, 0, 56, 90_056, 90_000],
      ['System.Byte[]', 'added', 1, 90_000, 0, 90_000, 90_000],
      ['Cache', 'both', 0, 0, 176, 216, 40],
      ['LeakyPage', 'both', 1, 40, 160, 200, 40],
      ['List', 'both', 0, 0, 152, 192, 40],
    ]);
    expect(r.total).toMatchObject({ baseRetained: 232, newRetained: 90_272, retainedDelta: 90_040, countDelta: 2 });
    expect([r.added, r.removed]).toEqual([1, 0]);
    const byCount = await json<{ rows: { type: string }[] }>('diff', file('base.gcdump'), file('new.gcdump'), '--sort', 'count', '--top', '2');
    expect(byCount.rows.map((x) => x.type)).toEqual(['LeakyPage', 'System.Byte[]']);
  });

  it('--fail-if-growth exits 4 with a clear message when a type (or * = the whole heap) grew too much', async () => {
    const diff = (...t: string[]) => run('diff', file('base.gcdump'), file('new.gcdump'), ...t.flatMap((x) => ['--fail-if-growth', x]));
    expect((await diff('LeakyPage=40')).code).toBe(0);
    const over = await diff('LeakyPage=39', 'System.Byte[]=100000');
    expect(over.code).toBe(4);
    expect(over.err).toBe('threshold exceeded: LeakyPage retained size grew by 40 bytes, over the limit of 39 bytes (--fail-if-growth LeakyPage=39)\n');
    const heap = await diff('*=64KB');
    expect(heap.code).toBe(4);
    expect(heap.err).toContain('the whole heap retained size grew by 90,040 bytes (87.93 KB), over the limit of 65,536 bytes (64 KB)');
    const missing = await diff('Nope=1');
    expect([missing.code, missing.err]).toEqual([0, 'note: --fail-if-growth Nope=1: no type named "Nope" (exact, case-sensitive name); nothing to check\n']);
    expect((await diff('LeakyPage')).code).toBe(2);
    expect((await diff('LeakyPage=12XB')).code).toBe(2);
  });
});

describe('heapscope trend', () => {
  it('lists types growing at every step, with per-snapshot values', async () => {
    const r = await json<{ snapshots: string[]; rows: { type: string; counts: number[]; retained: number[] }[] }>(
      'trend', file('base.gcdump'), file('new.gcdump'), file('new2.gcdump'));
    expect(r.snapshots).toEqual(['base.gcdump', 'new.gcdump', 'new2.gcdump']);
    expect(r.rows.map((x) => [x.type, x.counts, x.retained])).toEqual([
      ['LeakyPage', [5, 6, 7], [160, 200, 240]],
      ['Cache', [1, 1, 1], [176, 216, 256]],
      ['List', [1, 1, 1], [152, 192, 232]],
    ]);
    const csv = await run('trend', file('base.gcdump'), file('new.gcdump'), '--format', 'csv');
    expect(csv.out.split('\r\n')[0]).toBe('type,grows,count_1,count_2,retained_1,retained_2,countGrowth,retainedGrowth,module');
    expect((await run('trend', file('base.gcdump'))).code).toBe(2);
  });
});

describe('heapscope report --fail-if-retained', () => {
  it('exits 4 when a type retains more than BYTES', async () => {
    const report = (...t: string[]) => run('report', file('base.gcdump'), '--format', 'csv', ...t.flatMap((x) => ['--fail-if-retained', x]));
    expect((await report('LeakyPage=160', '*=1KB')).code).toBe(0);
    const over = await report('LeakyPage=159');
    expect([over.code, over.err]).toEqual([4, 'threshold exceeded: LeakyPage retained size is 160 bytes, over the limit of 159 bytes (--fail-if-retained LeakyPage=159)\n']);
    expect((await report('*=0.2KB')).code).toBe(4);
    expect((await report('LeakyPage=abc')).code).toBe(2);
  });
});

const android1 = fixturePath('gcdump/mono_android_20231108_150515_31024.gcdump');
const android2 = fixturePath('gcdump/mono_android_20231108_150644_31024.gcdump');
describe.skipIf(!android1 || !android2)(`CLI on the Android dumps${android1 && android2 ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('diff gives the System.String deltas of expected-values §1.3 and gates on them', async () => {
    const r = await json<{ rows: Record<string, unknown>[] }>('diff', android1!, android2!, '--top', '0');
    expect(r.rows.find((x) => x.type === 'System.String')).toMatchObject({ baseCount: 4_174, newCount: 4_230, baseShallow: 285_248, newShallow: 292_088, shallowDelta: 6_840 });
    const gate = await run('diff', android1!, android2!, '--format', 'csv', '--fail-if-growth', 'System.String=1KB');
    expect(gate.code).toBe(4);
    expect(gate.err).toMatch(/^threshold exceeded: System\.String retained size grew by /);
  });
});

const pv1 = fixturePath('gcdump/perfview_test1.gcdump');
const pv2 = fixturePath('gcdump/perfview_test2.gcdump');
describe.skipIf(!pv1 || !pv2)(`trend file order${pv1 && pv2 ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('notes when the files are not in capture order (test1 is from 2015, test2 from 2014)', async () => {
    const wrong = await run('trend', pv1!, pv2!, '--format', 'csv');
    expect(wrong.code).toBe(0);
    expect(wrong.err).toBe('note: the files are not in capture order (2015-01-05T10:48:40.375, 2014-05-19T12:36:33.270); a trend reads them in the order given\n');
    expect((await run('trend', pv2!, pv1!, '--format', 'csv')).err).toBe('');
  });
});

describe('--domain: a Compact Framework heap log section, with weak-only and garbage objects known by construction', () => {
  const { text, sections } = generateCfHeapLogText({ objects: 300, seed: 5 });
  const s1 = sections[1];
  const log = () => file('two-domains.gclog');
  beforeAll(() => writeFileSync(log(), text));

  it('paths: strong objects have paths, weak-only and garbage objects have none', async () => {
    type P = { reachable: boolean; paths: { steps: { address: string }[] }[] };
    for (const id of s1.sampleIds.strong) {
      const r = await json<P>('paths', log(), '--domain', '1', '--address', id);
      expect(r.reachable).toBe(true);
      for (const p of r.paths) expect(p.steps[p.steps.length - 1].address).toBe('0x' + id);
    }
    for (const id of [...s1.sampleIds.weakOnly, ...s1.sampleIds.garbage]) {
      expect((await json<P>('paths', log(), '--domain', '1', '--address', id)).paths).toEqual([]);
    }
  });

  it('generations and dominators read the chosen section', async () => {
    const g = await json<{ objectCount: number; objectBytes: number; hasGenerationData: boolean }>('generations', log(), '--domain', s1.name);
    expect([g.objectCount, g.objectBytes]).toEqual([s1.objects, s1.totalSize]);
    const t = await run('dominators', log(), '--domain', '1', '--depth', '1');
    expect(t.out).toMatch(new RegExp(`^two-domains\\.gclog: ${s1.strongObjects + s1.pseudoNodes} reachable nodes, `));
    expect(t.out).toMatch(new RegExp(`; ${s1.weakOnlyObjects + s1.garbageObjects} unreachable nodes`));
  });
});

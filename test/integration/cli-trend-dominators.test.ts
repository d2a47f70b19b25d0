import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { captureIo } from '../helpers/capture-io.js';
import { fixturePath, NO_FIXTURES } from '../helpers/fixtures.js';
import { tinyGraph, type TinyBuilder, type TinyGraph } from '../helpers/graph-builder.js';

/*
 * `heapscope trend --dominators` (issue 16, growth suspects at dominator level) on three tiny
 * .gcdump files with numbers worked out by hand:
 *   s1: root → [static vars] → Cache(24) → List(32) → P1, P2, P3 (LeakyPage, 40 each), P1 → P2
 *       root → [local vars]  → Handler(16) → P4 (LeakyPage, 40)
 *   s2: s1 + List → P6, Handler → Buf (System.Byte[], 90,000 bytes)
 *   s3: s2 + List → P7
 * and golden on the two Android dumps, cross-checked with `heapscope dominators`.
 */
function leaky(extra: (b: TinyBuilder) => void = () => {}): TinyGraph {
  return tinyGraph((b) => {
    b.root('[static vars]').ref('Cache');
    b.root('[local vars]').ref('Handler');
    b.node('Cache', 24).ref('List');
    b.node('List', 32).ref('P1', 'P2', 'P3');
    b.node('Handler', 16).ref('P4');
    for (const p of ['P1', 'P2', 'P3', 'P4']) b.node(p, 40, 'LeakyPage');
    b.node('P1', 40, 'LeakyPage').ref('P2');
    extra(b);
  });
}
const grown = (b: TinyBuilder) => {
  b.node('List', 32).ref('P6');
  b.node('P6', 40, 'LeakyPage');
  b.node('Handler', 16).ref('Buf');
  b.node('Buf', 90_000, 'System.Byte[]');
};
const s3 = leaky((b) => {
  grown(b);
  b.node('List', 32).ref('P7');
  b.node('P7', 40, 'LeakyPage');
});

let dir: string;
const file = (name: string) => join(dir, name);
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-trend-dominators-'));
  writeFileSync(file('s1.gcdump'), Buffer.concat(writeGcdump(leaky().graph)));
  writeFileSync(file('s2.gcdump'), Buffer.concat(writeGcdump(leaky(grown).graph)));
  writeFileSync(file('s3.gcdump'), Buffer.concat(writeGcdump(s3.graph)));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  return { code, out: c.out, err: c.err };
}
interface Row {
  signature: string;
  path: string[];
  type: string;
  depth: number;
  retained: number[];
  present: boolean[];
  growth: number;
  growingSteps: number;
  steadiness: number;
  slope: number;
  growthRank: number;
  steadinessRank: number;
  address: string | null;
}
interface Out {
  snapshots: string[];
  minBytes: number;
  maxDepth: number;
  sort: string;
  retainersSeen: number;
  growing: number;
  rows: Row[];
}
async function json(...argv: string[]): Promise<Out> {
  const r = await run('trend', ...argv, '--dominators', '--format', 'json');
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as Out;
}
const S = ' › ';
const addr = (t: TinyGraph, name: string) => '0x' + (0x1000 + t.id(name) * 0x10).toString(16);

describe('heapscope trend --dominators', () => {
  it('ranks growing retainers by growth, with their per-snapshot retained sizes', async () => {
    const r = await json(file('s1.gcdump'), file('s2.gcdump'), file('s3.gcdump'), '--min-bytes', '40');
    expect([r.snapshots, r.minBytes, r.maxDepth, r.sort, r.retainersSeen, r.growing]).toEqual([['s1.gcdump', 's2.gcdump', 's3.gcdump'], 40, 8, 'growth', 10, 6]);
    expect(r.rows.map((x) => [x.signature, x.retained, x.growth, x.growingSteps, x.steadiness, x.slope, x.growthRank, x.steadinessRank, x.address])).toEqual([
      [`[local vars]${S}Handler`, [56, 90_056, 90_056], 90_000, 1, 0.5, 45_000, 1, 3, addr(s3, 'Handler')],
      [`[local vars]${S}Handler${S}System.Byte[]`, [0, 90_000, 90_000], 90_000, 1, 0.5, 45_000, 2, 4, addr(s3, 'Buf')],
      [`[static vars]${S}Cache`, [176, 216, 256], 80, 2, 1, 40, 3, 1, addr(s3, 'Cache')],
      [`[static vars]${S}Cache${S}List`, [152, 192, 232], 80, 2, 1, 40, 4, 2, addr(s3, 'List')],
      [`[static vars]${S}Cache${S}List${S}LeakyPage #4`, [0, 40, 40], 40, 1, 0.5, 20, 5, 5, addr(s3, 'P6')],
      [`[static vars]${S}Cache${S}List${S}LeakyPage #5`, [0, 0, 40], 40, 1, 0.5, 20, 6, 6, addr(s3, 'P7')],
    ]);
    expect(r.rows[1]).toMatchObject({ path: ['[local vars]', 'Handler', 'System.Byte[]'], type: 'System.Byte[]', depth: 3, present: [false, true, true] });
  });

  it('--sort steadiness, --top, --depth and the default threshold', async () => {
    const r = await json(file('s1.gcdump'), file('s2.gcdump'), file('s3.gcdump'), '--min-bytes', '40', '--sort', 'steadiness', '--top', '2');
    expect([r.sort, r.growing, r.rows.map((x) => x.signature)]).toEqual(['steadiness', 6, [`[static vars]${S}Cache`, `[static vars]${S}Cache${S}List`]]);
    const shallow = await json(file('s1.gcdump'), file('s3.gcdump'), '--min-bytes', '40', '--depth', '2');
    expect(shallow.rows.map((x) => [x.signature, x.retained])).toEqual([
      [`[local vars]${S}Handler`, [56, 90_056]],
      [`[static vars]${S}Cache`, [176, 256]],
    ]);
    // default: 1 KiB (0.01% of 232 reachable bytes is less): only the Byte[] and its Handler qualify, in s2 and s3
    const byDefault = await json(file('s1.gcdump'), file('s3.gcdump'));
    expect([byDefault.minBytes, byDefault.rows.map((x) => [x.signature, x.retained])]).toEqual([
      1024,
      [
        [`[local vars]${S}Handler`, [0, 90_056]],
        [`[local vars]${S}Handler${S}System.Byte[]`, [0, 90_000]],
      ],
    ]);
  });

  it('table and CSV; the new flags need --dominators', async () => {
    const table = await run('trend', file('s1.gcdump'), file('s2.gcdump'), file('s3.gcdump'), '--dominators', '--min-bytes', '40', '--top', '1');
    expect(table.code).toBe(0);
    const lines = table.out.split('\n');
    expect(lines[1]).toBe(
      '6 of 10 retainers grew (last > first), by growth; retainers = dominators retaining ≥ 40 bytes within 8 levels of the root, matched across snapshots by their dominator chain (heuristic)',
    );
    expect(lines[5]).toMatch(/^1 +56 → 90,056 → 90,056 +90,000 +1\/2 +45,000 +0x[0-9a-f]+ +\[local vars\] › Handler$/);
    expect(table.out).toContain('(showing 1 of 6; --top 0 shows all)');
    const csv = await run('trend', file('s1.gcdump'), file('s2.gcdump'), '--dominators', '--min-bytes', '40', '--format', 'csv');
    expect(csv.out.split('\r\n')[0]).toBe('signature,type,depth,retained_1,retained_2,growth,growingSteps,steadiness,slope,growthRank,steadinessRank,address');
    expect((await run('trend', file('s1.gcdump'), file('s2.gcdump'), '--sort', 'steadiness')).code).toBe(2);
    expect((await run('trend', file('s1.gcdump'), file('s2.gcdump'), '--dominators', '--sort', 'count')).code).toBe(2);
    expect((await run('trend', file('s1.gcdump'), '--dominators')).code).toBe(2);
  });
});

const android1 = fixturePath('gcdump/mono_android_20231108_150515_31024.gcdump');
const android2 = fixturePath('gcdump/mono_android_20231108_150644_31024.gcdump');
describe.skipIf(!android1 || !android2)(`trend --dominators on the Android dumps${android1 && android2 ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('finds the growing retainers; their retained sizes are those of `heapscope dominators`', async () => {
    const r = await json(android1!, android2!, '--top', '0');
    expect([r.minBytes, r.retainersSeen, r.growing]).toEqual([1024, 434, 28]);
    expect(r.rows.slice(0, 3).map((x) => [x.signature, x.retained, x.address])).toEqual([
      [
        `[static vars]${S}[static var System.Threading.PortableThreadPool.HillClimbing.ThreadPoolHillClimber]${S}System.Threading.PortableThreadPool.HillClimbing`,
        [0, 6_320],
        '0x7be6e7d130',
      ],
      [
        `[static vars]${S}[static var System.Threading.PortableThreadPool.HillClimbing.ThreadPoolHillClimber]${S}System.Threading.PortableThreadPool.HillClimbing${S}System.Threading.PortableThreadPool.HillClimbing.LogEntry[]`,
        [0, 5_360],
        '0x7be57a8130',
      ],
      [`[other roots]${S}[strong Handles]${S}System.Char[] #2`, [0, 2_296], '0x7be6eb0130'],
    ]);
    const factory = r.rows.find((x) => x.type === 'Microsoft.Extensions.DependencyInjection.ServiceLookup.CallSiteFactory')!;
    expect([factory.signature, factory.retained, factory.growthRank, factory.address]).toEqual([
      `[static vars]${S}Microsoft.Extensions.DependencyInjection.ServiceProvider${S}Microsoft.Extensions.DependencyInjection.ServiceLookup.CallSiteFactory`,
      [15_608, 17_040],
      5,
      '0x7be6e5d208',
    ]);
    // the same object in each file's dominator tree: [static vars] → ServiceProvider → CallSiteFactory
    for (const [i, f] of [android1!, android2!].entries()) {
      const d = await run('dominators', f, '--depth', '3', '--top', '40', '--format', 'json');
      const rows = JSON.parse(d.out) as { node: number; parent: number | null; type: string; retainedSize: number; depth: number }[];
      const byNode = new Map(rows.map((x) => [x.node, x]));
      const hits = rows.filter((x) => x.type === factory.type && byNode.get(x.parent!)?.type === 'Microsoft.Extensions.DependencyInjection.ServiceProvider' && byNode.get(byNode.get(x.parent!)!.parent!)?.type === '[static vars]');
      expect(hits.map((x) => [x.depth, x.retainedSize])).toEqual([[3, factory.retained[i]]]);
    }
  });

  it('inspect --baseline reports them as growth-retainer findings, one per dominator chain', async () => {
    const trend = await json(android1!, android2!, '--top', '0');
    const r = await run('inspect', android2!, '--baseline', android1!, '--format', 'json');
    expect(r.code).toBe(0);
    const found = (JSON.parse(r.out) as { findings: { kind: string; bytes: number; details: Record<string, unknown>; examples: { address: string }[] }[] }).findings.filter((f) => f.kind === 'growth-retainer');
    expect(found.length).toBe(12);
    expect(found.slice(0, 3).map((f) => [f.details.signature, f.details.baselineBytes, f.bytes, f.details.growthBytes, f.examples[0].address])).toEqual([
      [`[static vars]${S}[static var System.Threading.PortableThreadPool.HillClimbing.ThreadPoolHillClimber]${S}System.Threading.PortableThreadPool.HillClimbing`, 0, 6_320, 6_320, '0x7be6e7d130'],
      [`[other roots]${S}[strong Handles]${S}System.Char[] #2`, 0, 2_296, 2_296, '0x7be6eb0130'],
      [`System.Threading.ThreadPoolWorkQueue`, 0, 1_632, 1_632, '0x7be57f8508'],
    ]);
    // every finding is a trend row with the same numbers; the rows left out sit below a finding that grew at least as much
    const bySig = new Map(trend.rows.map((x) => [x.signature, x]));
    for (const f of found) {
      const row = bySig.get(f.details.signature as string)!;
      expect([row.retained, row.address]).toEqual([[f.details.baselineBytes, f.bytes], f.examples[0].address]);
    }
    const shown = new Map(found.map((f) => [f.details.signature as string, f.details.growthBytes as number]));
    for (const row of trend.rows.filter((x) => !shown.has(x.signature))) {
      const covering = row.path.slice(0, -1).map((_, k) => row.path.slice(0, k + 1).join(S)).filter((p) => (shown.get(p) ?? -1) >= row.growth);
      expect(covering.length, row.signature).toBeGreaterThan(0);
    }
  });
});

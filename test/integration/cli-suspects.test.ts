import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Window } from 'happy-dom';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import type { SuspectsReport } from '../../shared/analysis/suspects/index.js';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { captureIo } from '../helpers/capture-io.js';
import { fixturePath } from '../helpers/fixtures.js';
import { tinyGraph } from '../helpers/graph-builder.js';

/**
 * `heapscope suspects` on the bundled sample and the shared fixtures: golden figures, each suspect
 * cross-checked against `heapscope dominators` (retained bytes, percentage) and `heapscope paths
 * --address` (the shortest path), the three formats, -o, --threshold, --baseline, usage errors
 * and hostile names.
 */
const SAMPLE = join(__dirname, '../../electron/resources/sample.gcdump');
const android1 = fixturePath('gcdump/mono_android_20231108_150515_31024.gcdump');
const android2 = fixturePath('gcdump/mono_android_20231108_150644_31024.gcdump');
const ios = fixturePath('gcdump/monovm_ios_sample.gcdump');
const test2 = fixturePath('gcdump/perfview_test2.gcdump');
const dir = mkdtempSync(join(tmpdir(), 'heapscope-suspects-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]) {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  return { code, out: c.out, err: c.err };
}

async function suspectsJson(...argv: string[]): Promise<SuspectsReport> {
  const r = await run('suspects', ...argv, '--format', 'json');
  expect([r.code, r.err]).toEqual([0, '']);
  return JSON.parse(r.out) as SuspectsReport;
}

const rowOf = (s: SuspectsReport['suspects'][number]) => [s.type, s.address, s.retainedSize, s.percentOfReachable];
const pointOf = (s: SuspectsReport['suspects'][number]) => {
  const p = s.accumulationPoint;
  return [p.type, p.retainedSize, p.depth, p.childCount, p.elementType, p.elementCount];
};

/** Every suspect appears in `heapscope dominators` with the same retained bytes and percentage, and its path is `heapscope paths --address`'s first. */
async function crossCheck(file: string, r: SuspectsReport, depth: number): Promise<void> {
  const d = await run('dominators', file, '--format', 'json', '--depth', String(depth), '--top', '50');
  expect(d.code).toBe(0);
  const rows = JSON.parse(d.out) as { address: string; retainedSize: number; percentOfReachable: number; pseudo: boolean }[];
  expect(rows[0].retainedSize).toBe(r.summary.reachableBytes);
  for (const s of r.suspects) {
    const row = rows.find((x) => !x.pseudo && x.address === s.address);
    expect(row, s.address).toBeDefined();
    expect([row!.retainedSize, row!.percentOfReachable]).toEqual([s.retainedSize, s.percentOfReachable]);
    const p = await run('paths', file, '--address', s.address, '--max', '1', '--format', 'json');
    const shortest = (JSON.parse(p.out) as { paths: { length: number; steps: unknown[] }[] }).paths[0];
    expect({ length: s.path.length, steps: s.path.steps }).toEqual({ length: shortest.length, steps: shortest.steps });
  }
}

describe('heapscope suspects on the bundled sample', () => {
  it('the four static caches above 10%, their accumulation points and paths (cross-checked)', async () => {
    const r = await suspectsJson(SAMPLE);
    expect(r.summary).toMatchObject({ format: 'gcdump', objects: 67_014, objectBytes: 6_024_710, reachableObjects: 66_922, reachableBytes: 6_018_638, types: 138, references: 95_369 });
    expect([r.thresholdPercent, r.thresholdBytes, r.suspectCount, r.suspectBytes]).toEqual([10, 601_864, 4, 4_564_122]);
    expect(r.suspects.map(rowOf)).toEqual([
      ['System.Collections.Generic.List<SampleShop.Customer>', '0x7ef86d80a6b0', 1_980_066, 32.9],
      ['System.Collections.Generic.List<System.Byte[]>', '0x7ef86d80a900', 1_048_760, 17.43],
      ['System.Collections.Generic.Dictionary<System.String,System.Byte[]>', '0x7ef86d80a938', 787_808, 13.09],
      ['System.Collections.Concurrent.ConcurrentDictionary<System.String,SampleShop.Session>', '0x7ef86d80a6e8', 747_488, 12.42],
    ]);
    expect(r.suspects.map(pointOf)).toEqual([
      ['SampleShop.Customer[] (Bytes > 10K)', 1_980_034, 1, 1481, 'SampleShop.Customer', 1481],
      ['System.Byte[][]', 1_048_728, 1, 4, 'System.Byte[] (Bytes > 100K)', 4],
      // 12 keys and 12 values: the tie goes to the values, which hold the bytes
      ['Entry<System.String,System.Byte[]>[]', 787_636, 1, 24, 'System.Byte[] (Bytes > 10K)', 12],
      ['VolatileNode<System.String,SampleShop.Session>[] (Bytes > 1K)', 746_176, 2, 434, 'Node<System.String,SampleShop.Session>', 434],
    ]);
    expect(r.suspects.map((s) => s.path.rootDetail)).toEqual([
      '[static var System.Collections.Generic.List<SampleShop.Customer>.Customers]',
      '[static var System.Collections.Generic.List<System.Byte[]>.LargeBuffers]',
      '[static var System.Collections.Generic.Dictionary<System.String,System.Byte[]>.ImageCache]',
      '[static var System.Collections.Concurrent.ConcurrentDictionary<System.String,SampleShop.Session>.SessionCache]',
    ]);
    // the event-handler leak of `heapscope inspect` is in the report
    expect(r.findings.filter((f) => f.kind === 'event-handler-leak').map((f) => [f.objects, f.bytes])).toEqual([[150, 166_800]]);
    expect(r.generations.hasGenerationData).toBe(true);
    expect(r.growth).toBeNull();
    await crossCheck(SAMPLE, r, 3);
  });

  it('the same figures in JSON, Markdown and HTML; -o picks the format from the extension; output is byte-identical run to run', async () => {
    const html = join(dir, 'sample.html');
    const md = join(dir, 'sample.md');
    const w = await run('suspects', SAMPLE, '-o', html);
    expect([w.code, w.err]).toEqual([0, '']);
    const html1 = readFileSync(html, 'utf8');
    expect(w.out).toBe(`${html}: 4 suspects, 11 findings, ${Buffer.byteLength(html1)} bytes\n`);
    await run('suspects', SAMPLE, '-o', html);
    expect(readFileSync(html, 'utf8')).toBe(html1);
    expect((await run('suspects', SAMPLE, '-o', md)).code).toBe(0);
    const mdText = readFileSync(md, 'utf8');
    expect(mdText.startsWith('# Leak suspects: sample.gcdump\n')).toBe(true);
    expect((await run('suspects', SAMPLE, '--format', 'html')).out).toBe(html1);
    const doc = new Window().document;
    doc.write(html1);
    expect([...doc.querySelectorAll('section.suspect h3 .name')].map((e) => e.textContent)).toEqual([
      'System.Collections.Generic.List<SampleShop.Customer>',
      'System.Collections.Generic.List<System.Byte[]>',
      'System.Collections.Generic.Dictionary<System.String,System.Byte[]>',
      'System.Collections.Concurrent.ConcurrentDictionary<System.String,SampleShop.Session>',
    ]);
    expect(doc.querySelectorAll('section.finding').length).toBe(11);
    for (const text of ['1,980,066 bytes', '32.90%', '1,481']) {
      expect(html1).toContain(text);
      expect(mdText).toContain(text);
    }
    expect(html1).not.toMatch(/<script|\bsrc=|\bhref=|https?:/i);
  });
});

describe.skipIf(!android1 || !android2 || !ios || !test2)('heapscope suspects on the shared fixtures', () => {
  it('monovm_ios_sample: the registrar (22.08%) is its own accumulation point', async () => {
    const r = await suspectsJson(ios!);
    expect([r.thresholdBytes, r.suspectCount]).toEqual([130_859, 1]);
    expect(r.suspects.map(rowOf)).toEqual([['Registrar.DynamicRegistrar', '0x17eaf6830', 288_872, 22.08]]);
    expect(r.suspects.map(pointOf)).toEqual([['Registrar.DynamicRegistrar', 288_872, 0, 42, 'Registrar.Registrar.ObjCType', 27]]);
    await crossCheck(ios!, r, 3);
  });

  it('perfview_test2: a shared GlyphTypeface reached through a static hashtable (path of 6)', async () => {
    const r = await suspectsJson(test2!);
    expect(r.summary).toMatchObject({ reachableBytes: 689_116, unreachableObjects: 123_473, unreachableBytes: 3_458_012 });
    expect(r.suspects.map(rowOf)).toEqual([['System.Windows.Media.GlyphTypeface', '0x2cc81d8', 77_654, 11.27]]);
    expect(r.suspects.map(pointOf)).toEqual([['System.Byte[] (Bytes > 10K,NoPtrs,ElemSize=1)', 56_044, 2, 0, null, 0]]);
    expect(r.suspects[0].path.length).toBe(6);
    await crossCheck(test2!, r, 2);
  });

  it('android at 2% with the earlier capture as baseline: two suspects and the growth', async () => {
    const r = await suspectsJson(android2!, '--baseline', android1!, '--threshold', '2');
    expect([r.thresholdPercent, r.thresholdBytes, r.suspectCount, r.suspectBytes]).toEqual([2, 36_089, 2, 181_256]);
    expect(r.suspects.map(rowOf)).toEqual([
      ['MonoGCDumpRepro.MainPage', '0x7be6e08e50', 105_368, 5.84],
      ['__XamlGeneratedCode__.__Type1F65A4985C699334', '0x7be6e22d90', 75_888, 4.21],
    ]);
    expect(r.growth).toMatchObject({
      baseline: 'mono_android_20231108_150515_31024.gcdump',
      baselineObjects: 25_757,
      baselineReachableBytes: 1_771_192,
      objectsDelta: 304,
      reachableBytesDelta: 33_256,
    });
    expect(r.growth!.findings.slice(0, 2).map((f) => [f.kind, f.details.type, f.details.growthBytes])).toEqual([
      ['growth-type', 'System.String', 6840],
      ['growth-type', 'System.Threading.PortableThreadPool.HillClimbing', 6320],
    ]);
    // 1,804,448 − 1,771,192: the reachable bytes of the two files (analyze.golden)
    expect(r.summary.reachableBytes - r.growth!.baselineReachableBytes).toBe(33_256);
    await crossCheck(android2!, r, 6);
  });
});

describe('heapscope suspects: arguments and hostile names', () => {
  it('usage errors exit 2 with one line', async () => {
    for (const argv of [['suspects'], ['suspects', SAMPLE, '--threshold', '0'], ['suspects', SAMPLE, '--threshold', '101'], ['suspects', SAMPLE, '--threshold', '1e3'], ['suspects', SAMPLE, '--format', 'pdf'], ['suspects', SAMPLE, '-o', SAMPLE]]) {
      const r = await run(...argv);
      expect([argv.join(' '), r.code, r.out]).toEqual([argv.join(' '), 2, '']);
      expect(r.err.trim().split('\n').length, r.err).toBeLessThanOrEqual(3);
    }
  });

  it('a missing file is one coded error, exit 3', async () => {
    const r = await run('suspects', join(dir, 'nope.gcdump'));
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/^error io\/not-found: /);
  });

  it('a type named like markup stays text in HTML and Markdown', async () => {
    const evil = '<img src=x onerror=alert(1)>&\u001b[31m|*_';
    const t = tinyGraph((b) => {
      b.root('[static vars]').ref('Big');
      b.node('Big', 1000, evil);
    });
    const file = join(dir, 'evil.gcdump');
    const chunks = writeGcdump(t.graph, { creationTool: 'heapscope' });
    writeFileSync(file, Buffer.concat(chunks.map((c) => Buffer.from(c))));
    const h = await run('suspects', file, '--format', 'html');
    expect(h.code).toBe(0);
    expect(h.out).not.toContain('<img');
    expect(h.out).toContain('&lt;img src=x onerror=alert(1)&gt;&amp;\\x1b[31m|*_');
    const m = await run('suspects', file, '--format', 'md');
    expect(m.out).toContain('\\<img src=x onerror=alert(1)\\>\\&\\\\x1b\\[31m\\|\\*\\_');
    expect(m.out).not.toContain('\u001b');
  });
});

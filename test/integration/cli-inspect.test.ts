import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import type { Finding } from '../../shared/analysis/inspections/index.js';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { captureIo } from '../helpers/capture-io.js';
import { fixturePath, NO_FIXTURES } from '../helpers/fixtures.js';
import { tinyGraph } from '../helpers/graph-builder.js';

/**
 * `heapscope inspect` on the bundled sample and the shared fixtures (golden figures, each checked
 * against `heapscope report` / the dominator tree when first recorded), its formats, --baseline,
 * --top, exit codes and escaping.
 */
const SAMPLE = join(__dirname, '../../electron/resources/sample.gcdump');
const android1 = fixturePath('gcdump/mono_android_20231108_150515_31024.gcdump');
const android2 = fixturePath('gcdump/mono_android_20231108_150644_31024.gcdump');
const test2 = fixturePath('gcdump/perfview_test2.gcdump');
const dir = mkdtempSync(join(tmpdir(), 'heapscope-inspect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]) {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  return { code, out: c.out, err: c.err };
}

interface InspectJson {
  file: string;
  baseline: string | null;
  findings: Finding[];
  largeHeapShare: { heapBytes: number; lohObjects: number; lohBytes: number; pohObjects: number; pohBytes: number } | null;
  unavailable: { kind: string }[];
}

async function inspectJson(...argv: string[]): Promise<InspectJson> {
  const r = await run('inspect', ...argv, '--format', 'json');
  expect([r.code, r.err]).toEqual([0, '']);
  return JSON.parse(r.out) as InspectJson;
}

const ofKind = (j: InspectJson, kind: string) => j.findings.filter((f) => f.kind === kind);

describe('heapscope inspect on the bundled sample', () => {
  it('finds the 150 ReportView subscribers of PriceFeed and nothing timer- or finalizer-held', async () => {
    const j = await inspectJson(SAMPLE);
    const leaks = ofKind(j, 'event-handler-leak');
    // 150 × 32-byte ReportView; 166,800 = the ReportView type's retained size in `heapscope report`
    expect(leaks.map((f) => [f.objects, f.bytes, f.shallowBytes, f.details.subscriberType, f.details.publisherType])).toEqual([
      [150, 166_800, 4_800, 'SampleShop.ReportView', 'SampleShop.PriceFeed'],
    ]);
    expect(leaks[0].examples).toHaveLength(3);
    expect(leaks[0].examples.every((e) => e.type === 'SampleShop.ReportView' && /^0x[0-9a-f]+$/.test(e.address))).toBe(true);
    expect(ofKind(j, 'timer-held')).toEqual([]);
    expect(ofKind(j, 'finalization')).toEqual([]);
  });

  it('accumulation points, statics, large objects and the LOH/POH share', async () => {
    const j = await inspectJson(SAMPLE);
    expect(ofKind(j, 'accumulation-point').map((f) => [f.details.type, f.objects, f.bytes, f.details.elementType])).toEqual([
      ['SampleShop.Customer[] (Bytes > 10K)', 1_481, 1_980_034, 'SampleShop.Customer'],
      ['VolatileNode<System.String,SampleShop.Session>[] (Bytes > 1K)', 434, 746_176, 'Node<System.String,SampleShop.Session>'],
      ['System.Object[] (Bytes > 1K)', 150, 178_472, 'System.Action<SampleShop.Product>'],
    ]);
    expect(ofKind(j, 'static-field').slice(0, 2).map((f) => [f.details.field, f.objects, f.bytes])).toEqual([
      ['System.Collections.Generic.List<SampleShop.Customer>.Customers', 37_572, 1_980_066],
      ['System.Collections.Generic.List<System.Byte[]>.LargeBuffers', 6, 1_048_760],
    ]);
    expect(ofKind(j, 'large-objects').map((f) => [f.details.type, f.objects, f.bytes])).toEqual([
      ['System.Byte[] (Bytes > 100K)', 4, 1_048_672],
      ['Entry<System.Int32,SampleShop.Product>[] (Bytes > 10K)', 1, 97_382],
    ]);
    expect(j.largeHeapShare).toEqual({ heapBytes: 6_024_710, lohObjects: 5, lohBytes: 1_145_872, pohObjects: 1, pohBytes: 8_184 });
    expect(j.unavailable.map((u) => u.kind)).toEqual(['duplicate-strings', 'sparse-arrays', 'empty-collections']);
  });

  it('the table and CSV list the same findings; --top limits each inspection', async () => {
    const t = await run('inspect', SAMPLE, '--top', '1');
    expect([t.code, t.err]).toEqual([0, '']);
    expect(t.out).toContain('event-handler-leak      150         166,800  150 × SampleShop.ReportView kept alive only by delegates of SampleShop.PriceFeed 0x');
    expect(t.out).toContain('Not checked: Duplicate strings need object contents');
    expect(t.out.match(/^static-field /gm)).toHaveLength(1);
    const c = await run('inspect', SAMPLE, '--format', 'csv');
    const lines = c.out.trimEnd().split('\r\n');
    expect(lines[0]).toBe('kind,objects,bytes,shallowBytes,title,explanation,fix,examples,details');
    expect(lines.length - 1).toBe((await inspectJson(SAMPLE)).findings.length);
  });
});

describe.skipIf(!android1 || !android2 || !test2)(`heapscope inspect on the fixtures${android1 ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('the MAUI dumps: no event-handler or timer finding (their closures and mapper registries are not events), 14 objects awaiting finalization', async () => {
    for (const f of [android1!, android2!]) {
      const j = await inspectJson(f);
      expect(ofKind(j, 'event-handler-leak')).toEqual([]);
      expect(ofKind(j, 'timer-held')).toEqual([]);
      expect(ofKind(j, 'finalization').map((x) => [x.details.type, x.objects, x.bytes])).toEqual([
        ['Android.Graphics.Rect', 9, 504],
        ['System.Threading.Thread', 1, 328],
        ['System.Threading.WaitSubsystem.ThreadWaitInfo', 1, 208],
        ['Android.Views.ViewGroup.LayoutParams', 2, 112],
        ['Android.Util.TypedValue', 1, 56],
      ]);
    }
  });

  it('--baseline: growth suspects between the two MAUI dumps', async () => {
    const j = await inspectJson(android2!, '--baseline', android1!);
    expect(j.baseline).toBe('mono_android_20231108_150515_31024.gcdump');
    const statics = ofKind(j, 'growth-static');
    const avm = statics.find((f) => f.details.field === 'Android.Runtime.JNIEnvInit.AndroidValueManager')!;
    expect([avm.bytes, avm.details.baselineBytes, avm.details.growthBytes]).toEqual([15_088, 14_808, 280]);
    const types = ofKind(j, 'growth-type');
    expect(types.length).toBeGreaterThan(0);
    for (let i = 1; i < types.length; i++) expect(types[i - 1].details.growthBytes as number).toBeGreaterThanOrEqual(types[i].details.growthBytes as number);
    // without a baseline there are none
    expect(ofKind(await inspectJson(android2!), 'growth-type')).toEqual([]);
  });

  it('PerfView heap dump: Free entries are not large objects; the LOH share comes from its segments', async () => {
    const j = await inspectJson(test2!);
    expect(ofKind(j, 'large-objects').some((f) => f.details.type === 'Free')).toBe(false);
    expect(j.largeHeapShare).toEqual({ heapBytes: 4_147_128, lohObjects: 17, lohBytes: 70_640, pohObjects: 0, pohBytes: 0 });
  });
});

describe('heapscope inspect errors and hostile names', () => {
  it('exit 2 on usage errors, 3 on a bad file', async () => {
    expect((await run('inspect')).code).toBe(2);
    expect((await run('inspect', SAMPLE, '--top', '-1')).code).toBe(2);
    const bad = join(dir, 'bad.gcdump');
    writeFileSync(bad, 'not a gcdump');
    const r = await run('inspect', bad);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/^error format\//);
  });

  it('escapes control characters of type names in the table, keeps them in JSON', async () => {
    const evil = join(dir, 'evil.gcdump');
    const g = tinyGraph((b) => {
      b.root('[static var App.Bus]').ref('Bus');
      b.node('Bus', 24, 'Pub\x1b[2JBus').ref('E');
      b.node('E', 64, 'System.EventHandler').ref('S');
      b.node('S', 40, 'Page\nerror fake/code: owned');
    }).graph;
    writeFileSync(evil, Buffer.concat(writeGcdump(g)));
    const t = await run('inspect', evil);
    expect([t.code, t.err]).toEqual([0, '']);
    expect(t.out).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    expect(t.out).toContain('1 × Page\\nerror fake/code: owned kept alive only by delegates of Pub\\x1b[2JBus 0x');
    const j = await inspectJson(evil);
    expect(ofKind(j, 'event-handler-leak')[0].details.subscriberType).toBe('Page\nerror fake/code: owned');
  });
});

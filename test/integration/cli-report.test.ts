import { describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { captureIo } from '../helpers/capture-io.js';
import { fixturePath, NO_FIXTURES } from '../helpers/fixtures.js';
import { analyzeGraph } from '../../shared/analysis/analyze.js';
import { loadSnapshot } from '../../electron/cli/load.js';

// Oracle numbers: /work/shared/spec/expected-values.md §1.
const test1 = fixturePath('gcdump/perfview_test1.gcdump');
const test2 = fixturePath('gcdump/perfview_test2.gcdump');
const android = fixturePath('gcdump/mono_android_20231108_150515_31024.gcdump');
const ios = fixturePath('gcdump/monovm_ios_sample.gcdump');

interface Row {
  type: string;
  count: number;
  shallowSize: number;
  retainedSize: number;
  scaledCount: number | null;
  scaledShallowSize: number | null;
  unreachableCount: number;
  unreachableSize: number;
  module: string | null;
}

async function report(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo();
  const code = await runCli(['report', ...argv], c.io);
  return { code, out: c.out, err: c.err };
}

async function reportJson(...argv: string[]): Promise<Row[]> {
  const r = await report(...argv, '--format', 'json');
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as Row[];
}

const skipMsg = (p: string | null) => (p ? '' : ` (${NO_FIXTURES})`);

describe.skipIf(!test2)(`heapscope report on perfview_test2.gcdump${skipMsg(test2)}`, () => {
  it('puts System.Threading.TimerQueueTimer on top by shallow size', async () => {
    const rows = await reportJson(test2!, '--top', '3');
    expect(rows.length).toBe(3);
    // every instance is unreachable: retained 0 next to 801,736 shallow bytes, explained by the unreachable fields
    expect(rows[0]).toMatchObject({ type: 'System.Threading.TimerQueueTimer', count: 15_418, shallowSize: 801_736, retainedSize: 0, scaledCount: null, scaledShallowSize: null, unreachableCount: 15_418, unreachableSize: 801_736 });
    expect(rows[0].module).toMatch(/mscorlib\.dll$/);
    expect(Object.keys(rows[0])).toEqual(['type', 'count', 'shallowSize', 'retainedSize', 'scaledCount', 'scaledShallowSize', 'unreachableCount', 'unreachableSize', 'module']);
    expect(rows[1].shallowSize).toBeLessThanOrEqual(801_736);
  });

  it('lists every type with objects in JSON, Σ of counts and sizes = the objects', async () => {
    const rows = await reportJson(test2!);
    const bytes = rows.reduce((s, r) => s + r.shallowSize, 0);
    expect(bytes).toBe(4_147_128); // pseudo and undefined nodes have size 0
    expect(rows.every((r) => r.count > 0)).toBe(true);
    for (let i = 1; i < rows.length; i++) expect(rows[i].shallowSize).toBeLessThanOrEqual(rows[i - 1].shallowSize);
  });

  it('prints a table with a header line and 50 rows by default', async () => {
    const r = await report(test2!);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^perfview_test2\.gcdump: [\d,]+ objects of [\d,]+ types, 4,147,128 bytes \(pseudo-nodes and undefined nodes not counted\)$/);
    expect(lines[1]).toMatch(/^Unreachable: objects no root reaches .*retained >= shallow - unreachable bytes$/);
    expect(lines[3]).toMatch(/^Type +Count +Shallow bytes +Retained bytes +Unreachable +Unreachable bytes +Module$/);
    expect(lines[5]).toMatch(/^System\.Threading\.TimerQueueTimer +15,418 +801,736 +0 +15,418 +801,736 +mscorlib\.dll$/);
    expect(lines.length).toBe(5 + 50 + 1);
    expect(lines[lines.length - 1]).toMatch(/^\(showing 50 of [\d,]+ types; --top 0 shows all\)$/);
  });
});

describe.skipIf(!android || !ios)(`heapscope report on dotnet-gcdump files${skipMsg(android && ios)}`, () => {
  it('mono_android: System.String 4,174 objects, 285,248 bytes', async () => {
    const rows = await reportJson(android!, '--top', '1');
    expect(rows).toEqual([expect.objectContaining({ type: 'System.String', count: 4_174, shallowSize: 285_248 })]);
  });

  it('monovm_ios: RuntimeType, String, then the >10K string bucket among the strings', async () => {
    const rows = await reportJson(ios!, '--top', '2');
    expect(rows.map((r) => [r.type, r.count, r.shallowSize])).toEqual([
      ['System.RuntimeType', 16_249, 649_960],
      ['System.String', 3_425, 224_696],
    ]);
    const strings = await reportJson(ios!, '--filter', 'sYsTeM.StRiNg (', '--sort', 'count');
    expect(strings.map((r) => [r.type, r.count, r.shallowSize])).toContainEqual(['System.String (Bytes > 10K)', 1, 74_312]);
    expect(strings.every((r) => r.type.toLowerCase().includes('system.string ('))).toBe(true);
  });

  it('retainedSize is the analysis per-type retained size', async () => {
    const { graph } = await loadSnapshot(android!, { write() {} });
    const a = analyzeGraph(graph);
    const rows = await reportJson(android!, '--sort', 'retained', '--top', '5');
    for (const r of rows) expect(r.retainedSize).toBe(a.typeRetained[graph.types.names.indexOf(r.type)]);
    for (let i = 1; i < rows.length; i++) expect(rows[i].retainedSize).toBeLessThanOrEqual(rows[i - 1].retainedSize);
  });
});

describe.skipIf(!test1)(`heapscope report sorting and formats on perfview_test1.gcdump${skipMsg(test1)}`, () => {
  it('top type by bytes is the STYLE element', async () => {
    const rows = await reportJson(test1!, '--top', '1');
    expect(rows).toEqual([
      {
        type: '(Type  HTMLStyleElement <|tagName:STYLE|>)',
        count: 13,
        shallowSize: 167_540,
        retainedSize: expect.any(Number),
        scaledCount: null,
        scaledShallowSize: null,
        unreachableCount: 0,
        unreachableSize: 0,
        module: null,
      },
    ]);
  });

  it('the two JSGlobals retain the whole heap', async () => {
    const rows = await reportJson(test1!, '--sort', 'retained', '--top', '1');
    expect(rows[0]).toMatchObject({ type: '(Type  JSGlobal)', count: 2, shallowSize: 512, retainedSize: 1_009_270 });
  });

  it('sorts by name ascending and by count descending', async () => {
    const byName = await reportJson(test1!, '--sort', 'name');
    const names = byName.map((r) => r.type);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const byCount = await reportJson(test1!, '--sort', 'count', '--top', '20');
    for (let i = 1; i < byCount.length; i++) expect(byCount[i].count).toBeLessThanOrEqual(byCount[i - 1].count);
  });

  it('writes RFC 4180 CSV with a fixed header', async () => {
    const r = await report(test1!, '--format', 'csv', '--top', '2');
    expect(r.code).toBe(0);
    const lines = r.out.split('\r\n');
    expect(lines[0]).toBe('type,count,shallowSize,retainedSize,scaledCount,scaledShallowSize,unreachableCount,unreachableSize,module');
    expect(lines[1]).toMatch(/^\(Type {2}HTMLStyleElement <\|tagName:STYLE\|>\),13,167540,\d+,,,0,0,$/);
    expect(lines.length).toBe(4); // header, 2 rows, trailing empty
  });

  it('--top 0 shows every row in the table; a filter that matches nothing prints an empty table', async () => {
    const all = await report(test1!, '--top', '0');
    const rows = (await reportJson(test1!)).length;
    expect(all.out.trimEnd().split('\n').length).toBe(4 + rows);
    const none = await reportJson(test1!, '--filter', 'no such type at all');
    expect(none).toEqual([]);
  });
});

const android2 = fixturePath('gcdump/mono_android_20231108_150644_31024.gcdump');
describe.skipIf(!android2)(`heapscope report: unreachable instances explain a retained size below the shallow size${skipMsg(android2)}`, () => {
  it('StartHelper: 4 instances, 256 bytes, all unreachable, retained 0', async () => {
    const rows = await reportJson(android2!, '--filter', 'StartHelper');
    expect(rows.map((r) => [r.type, r.count, r.shallowSize, r.retainedSize, r.unreachableCount, r.unreachableSize])).toEqual([
      ['System.Threading.Thread.StartHelper', 4, 256, 0, 4, 256],
    ]);
    const t = await report(android2!, '--filter', 'StartHelper');
    expect(t.out).toMatch(/^System\.Threading\.Thread\.StartHelper +4 +256 +0 +4 +256 +System\.Private\.CoreLib\.dll$/m);
  });
});

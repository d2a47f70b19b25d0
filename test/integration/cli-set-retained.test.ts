import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { captureIo } from '../helpers/capture-io.js';
import { fixturePath, NO_FIXTURES } from '../helpers/fixtures.js';
import { tinyGraph } from '../helpers/graph-builder.js';

/*
 * `heapscope report --set-retained` on a tiny .gcdump written with our writer. Worked by hand:
 *
 *   [root] → [static vars] → A(10, List) → Arr(100, Item[]) → Item1(20, Item), Item2(20, Item)
 *   [root] → [static vars] → B(10, List) → Arr                  (Arr has two List owners)
 *   [root] → [static vars] → C(10, List) → Own(6, Item[])
 *   [root] → [local vars]  → Holder(8) → Item2                  (Item2 is also held by Holder)
 *
 * Type retained of List: A 10, B 10, C 16 (Arr is dominated by [static vars], not by a List) = 36.
 * Set retained of List: removing A, B, C frees A, B, C, Own, Arr and Item1 = 156; Item2 stays
 *   (Holder). Item[]: type retained Arr (120, Item2 excluded: Holder) + Own 6 = 126; set 126.
 * Item: Item1 20 + Item2 20 (each dominates itself) = 40; set 40. Holder: 8 and 8 (Arr still holds Item2).
 */
const t = tinyGraph((b) => {
  b.root('[static vars]').ref('A', 'B', 'C');
  b.root('[local vars]').ref('Holder');
  b.node('A', 10, 'List').ref('Arr');
  b.node('B', 10, 'List').ref('Arr');
  b.node('C', 10, 'List').ref('Own');
  b.node('Arr', 100, 'Item[]').ref('Item1', 'Item2');
  b.node('Own', 6, 'Item[]');
  b.node('Item1', 20, 'Item');
  b.node('Item2', 20, 'Item');
  b.node('Holder', 8).ref('Item2');
});

interface Row {
  type: string;
  count: number;
  shallowSize: number;
  retainedSize: number;
  setRetainedSize?: number;
}

let dir: string;
let file: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-cli-set-retained-'));
  file = join(dir, 'shared-array.gcdump');
  writeFileSync(file, Buffer.concat(writeGcdump(t.graph)));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  return { code, out: c.out, err: c.err };
}

describe('heapscope report --set-retained', () => {
  it('adds setRetainedSize, larger than retainedSize where instances hold an object jointly', async () => {
    const r = await run('report', file, '--set-retained', '--sort', 'name', '--format', 'json');
    expect([r.code, r.err]).toEqual([0, '']);
    const rows = JSON.parse(r.out) as Row[];
    expect(rows.map((x) => [x.type, x.retainedSize, x.setRetainedSize])).toEqual([
      ['Holder', 8, 8],
      ['Item', 40, 40],
      ['Item[]', 126, 126],
      ['List', 36, 156],
    ]);
    expect(Object.keys(rows[0])).toEqual(['type', 'count', 'shallowSize', 'retainedSize', 'setRetainedSize', 'scaledCount', 'scaledShallowSize', 'unreachableCount', 'unreachableSize', 'module']);
  });

  it('leaves the JSON and CSV shape unchanged without the flag', async () => {
    const r = await run('report', file, '--format', 'json');
    expect(Object.keys((JSON.parse(r.out) as Row[])[0])).toEqual(['type', 'count', 'shallowSize', 'retainedSize', 'scaledCount', 'scaledShallowSize', 'unreachableCount', 'unreachableSize', 'module']);
    const csv = await run('report', file, '--format', 'csv', '--top', '1', '--sort', 'retained');
    expect(csv.out.split('\r\n')[0]).toBe('type,count,shallowSize,retainedSize,scaledCount,scaledShallowSize,unreachableCount,unreachableSize,module');
  });

  it('writes the CSV column for the printed rows only (after --top)', async () => {
    const r = await run('report', file, '--set-retained', '--format', 'csv', '--sort', 'retained', '--top', '2');
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\r\n');
    expect(lines[0]).toBe('type,count,shallowSize,retainedSize,setRetainedSize,scaledCount,scaledShallowSize,unreachableCount,unreachableSize,module');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 5).join(','))).toEqual(['Item[],2,106,126,126', 'Item,2,40,40,40']);
  });

  it('prints the column and a note defining both figures in the table, and --help says what each costs', async () => {
    const r = await run('report', file, '--set-retained', '--sort', 'name');
    expect(r.out).toContain('Set retained bytes: freed if every instance went away');
    const header = r.out.split('\n').find((l) => l.startsWith('Type '))!;
    expect(header).toMatch(/^Type +Count +Shallow bytes +Retained bytes +Set retained bytes +Unreachable +Unreachable bytes +Module$/);
    expect(r.out).toMatch(/\nList +3 +30 +36 +156 +0 +0 +tiny\.dll\n/);
    const help = await run('report', '--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('--set-retained');
    expect(help.out).toContain('Σ exact retained size (dominator tree)');
    expect(help.out).toContain('at most one walk over the reachable graph per printed type');
  });
});

const android = fixturePath('gcdump/mono_android_20231108_150515_31024.gcdump');
describe.skipIf(!android)(`report --set-retained on a real heap${android ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('gives the exact figures of the golden run for the filtered rows', async () => {
    const r = await run('report', android!, '--set-retained', '--filter', 'VisualStateGroup', '--sort', 'retained', '--top', '3', '--format', 'json');
    expect([r.code, r.err]).toEqual([0, '']);
    expect((JSON.parse(r.out) as Row[]).map((x) => [x.type, x.retainedSize, x.setRetainedSize])).toEqual([
      ['Microsoft.Maui.Controls.VisualStateGroupList', 38408, 42016],
      ['Microsoft.Maui.Controls.WatchAddList<Microsoft.Maui.Controls.VisualStateGroup>', 31256, 34656],
      ['Microsoft.Maui.Controls.VisualStateGroup', 28008, 28704],
    ]);
  });
});

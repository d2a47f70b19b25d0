import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { DumpThread } from '../../../shared/formats/dump/dump-queries';
import { DUMP_CONTENTS_SKIP, writeContentsDump } from '../../helpers/dump-contents';
import { SKIP, cliJson, openApp, openPath, shot, tabNamed, waitForRows } from './helpers';

// Process dumps in the app (browser mode): the inspector's Fields section (values read from the
// dump by the tab's dump reader, references followed by clicking), the Threads view (a frame's
// rooted object opens in the inspector) and the runtime in the Summary. The dump is of
// test/dotnet/DumpContentsApp, written by `heapscope dump`.
test.skip(!!SKIP, SKIP);

async function goTo(page: Page, address: string): Promise<void> {
  await page.getByTestId('goto-address').click();
  await page.getByTestId('goto-input').fill(address);
  await page.getByTestId('goto-go').click();
  await expect(page.getByTestId('inspector-address')).toContainText(address);
}

test.describe('process dumps: object values and threads', () => {
  test.skip(DUMP_CONTENTS_SKIP !== null, DUMP_CONTENTS_SKIP ?? '');
  let dir: string;
  let dump: string;
  let version: string;
  let threads: DumpThread[];

  test.beforeAll(async () => {
    test.setTimeout(300_000);
    ({ dir, dump, runtimeVersion: version } = await writeContentsDump());
    threads = cliJson<{ threads: DumpThread[] }>(['threads', dump]).threads;
  });
  test.afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('Threads: the parked thread\'s HoldLocals frame roots a ParkedLocal; clicking it shows Marker = 1234 in the inspector', async ({ page }) => {
    const parked = threads.find((t) => t.frames.some((f) => f.method?.startsWith('HeapscopeTest.ParkedWorker.HoldLocals(')))!;
    const local = parked.frames.flatMap((f) => f.roots).find((r) => r.type === 'HeapscopeTest.ParkedLocal')!;
    await openApp(page);
    await openPath(page, dump);
    await expect(tabNamed(page, 'contents.dmp')).toHaveClass(/active/);
    await page.getByTestId('view-threads').click();
    const view = page.getByTestId('threads-view');
    await view.getByTestId(`thread-${parked.managedThreadId}`).click();
    const stack = view.getByTestId('thread-stack');
    await expect(stack.getByTestId('frame-method').first()).toHaveText('System.Threading.WaitHandle.WaitOneNoCheck(Int32, Boolean, System.Object, WaitHandleWaitSourceMap)');
    await expect(stack.getByTestId('frame-method').filter({ hasText: 'HeapscopeTest.ParkedWorker.HoldLocals(' })).toHaveCount(1);
    await stack.getByTestId('frame-root').filter({ hasText: `HeapscopeTest.ParkedLocal @ ${local.address}` }).click();
    await expect(page.getByTestId('inspector-type')).toHaveText('HeapscopeTest.ParkedLocal');
    await expect(page.getByTestId('dump-field-Marker')).toContainText('System.Int32');
    await expect(page.getByTestId('dump-field-Marker')).toContainText('1234');
    await shot(page, '40-dump-threads-inspector');
  });

  test('Inspector: Timer → _timer → _timer → _timerCallback → _target reaches the disposed Clock; Back returns; arrays list their elements', async ({ page }) => {
    const main = threads.find((t) => t.frames.some((f) => f.method?.startsWith('HeapscopeTest.Program.Main(')))!;
    const roots = main.frames.find((f) => f.method?.startsWith('HeapscopeTest.Program.Main('))!.roots;
    const timer = roots.find((r) => r.type === 'System.Threading.Timer')!;
    const args = roots.find((r) => r.type === 'System.String[]')!;
    await openApp(page);
    await openPath(page, dump);
    await expect(tabNamed(page, 'contents.dmp')).toHaveClass(/active/);
    await page.getByTestId('view-summary').click();
    await expect(page.getByTestId('dump-runtime-version')).toHaveText(`${version} (Core)`);
    await expect(page.getByTestId('dump-runtime-dac')).toContainText('libmscordaccore.so');

    await goTo(page, timer.address);
    await expect(page.getByTestId('inspector-type')).toHaveText('System.Threading.Timer');
    const steps: [string, string][] = [
      ['_timer', 'System.Threading.TimerHolder'],
      ['_timer', 'System.Threading.TimerQueueTimer'],
      ['_timerCallback', 'System.Threading.TimerCallback'],
      ['_target', 'HeapscopeTest.Clock'],
    ];
    for (const [field, type] of steps) {
      await page.getByTestId(`dump-field-${field}`).getByTestId('dump-field-link').click();
      await expect(page.getByTestId('inspector-type')).toHaveText(type);
    }
    await expect(page.getByTestId('dump-field-Disposed')).toContainText('true');
    await expect(page.getByTestId('dump-field-Ticks')).toContainText('0');
    await shot(page, '41-dump-inspector-clock');
    await page.getByTestId('inspector-back').click();
    await expect(page.getByTestId('inspector-type')).toHaveText('System.Threading.TimerCallback');

    await goTo(page, args.address);
    await expect(page.getByTestId('dump-array-length')).toHaveText('2');
    await expect(page.getByTestId('dump-element-0')).toHaveText('"--info"');
    await expect(page.getByTestId('dump-element-1')).toHaveText(`"${join(dir, 'info.txt')}"`);
  });

  test('Inspector on the Sample (Types → Instances → double-click): every field\'s value, the struct\'s fields as Where.X/Where.Y, the int[] followed to its elements', async ({ page }) => {
    await openApp(page);
    await openPath(page, dump);
    await expect(tabNamed(page, 'contents.dmp')).toHaveClass(/active/);
    await page.getByTestId('view-types').click();
    const types = page.getByTestId('types-grid');
    await waitForRows(types, 'type');
    await page.getByTestId('grid-filter').fill('HeapscopeTest.Sample');
    await page.getByTestId('grid-filter').press('Enter');
    await types.locator('.ag-row [col-id="type"]', { hasText: 'HeapscopeTest.Sample' }).first().dblclick();
    const inst = page.getByTestId('instances-grid');
    await waitForRows(inst, 'address');
    await inst.locator('.ag-row[row-index="0"] [col-id="address"]').dblclick();
    await expect(page.getByTestId('inspector-type')).toHaveText('HeapscopeTest.Sample');
    const expected: [string, string, string][] = [
      ['Count', 'System.Int32', '42'],
      ['Mood', 'HeapscopeTest.Mood', 'Angry'],
      ['Label', 'System.String', '"hello dump"'],
      ['Enabled', 'System.Boolean', 'true'],
      ['Ratio', 'System.Double', '2.5'],
      ['Big', 'System.Int64', '-9000000000'],
      ['Letter', 'System.Char', 'Q'],
      ['Nothing', 'System.Object', 'null'],
      ['Where', 'HeapscopeTest.Pair', 'HeapscopeTest.Pair'],
      ['Where.X', 'System.Int32', '3'],
      ['Where.Y', 'System.Int64', '-4'],
    ];
    for (const [name, type, value] of expected) {
      await expect(page.getByTestId(`dump-field-${name}`).locator('td')).toHaveText([name, type, value]);
    }
    await shot(page, '42-dump-inspector-fields');
    await page.getByTestId('dump-field-Numbers').getByTestId('dump-field-link').click();
    await expect(page.getByTestId('inspector-type')).toHaveText('System.Int32[]');
    await expect(page.getByTestId('dump-array-length')).toHaveText('8');
    await expect(page.getByTestId('dump-array').locator('li')).toHaveText(['3', '1', '4', '1', '5', '9', '2', '6']);
  });

  test('String values where objects are listed: the String instances\' Value column (filtered by value), the inspector\'s Value, the path row\'s preview; thread names (one raw with a quote, a backslash, a newline and a tab); the DAC match', async ({ page }) => {
    const parked = threads.find((t) => t.name === 'parked')!;
    await openApp(page);
    await openPath(page, dump);
    await expect(tabNamed(page, 'contents.dmp')).toHaveClass(/active/);
    await page.getByTestId('view-summary').click();
    await expect(page.getByTestId('dump-runtime-dac-match')).toContainText('found beside the runtime library the dump names; matched by build id ');
    await page.getByTestId('view-threads').click();
    await expect(page.getByTestId(`thread-${parked.managedThreadId}`).getByTestId('thread-name')).toHaveText('parked');
    // A name with a quote, a backslash, a newline and a tab is shown as it is (only stack-root labels escape it)
    const odd = threads.find((t) => t.frames.some((f) => f.method?.startsWith('HeapscopeTest.ParkedWorker.WaitNamed(')))!;
    await expect(page.getByTestId(`thread-${odd.managedThreadId}`).getByTestId('thread-name')).toHaveJSProperty('textContent', 'say "hi" \\ then\nbye\t!');

    await page.getByTestId('view-types').click();
    const types = page.getByTestId('types-grid');
    await waitForRows(types, 'type');
    await page.getByTestId('grid-filter').fill('System.String');
    await page.getByTestId('grid-filter').press('Enter');
    await types.locator('.ag-row [col-id="type"]', { hasText: /^System\.String$/ }).first().dblclick();
    const view = page.getByTestId('instances-view');
    const inst = page.getByTestId('instances-grid');
    await waitForRows(inst, 'address');
    await view.getByTestId('grid-filter').fill('HELLO DUMP');
    await view.getByTestId('grid-filter').press('Enter');
    await expect(inst.locator('.ag-row [col-id="value"]')).toHaveText(['hello dump']);
    await inst.locator('.ag-row[row-index="0"] [col-id="address"]').dblclick();
    await expect(page.getByTestId('inspector-type')).toHaveText('System.String');
    await expect(page.getByTestId('inspector-value')).toHaveText('"hello dump"');
    await page.getByTestId('inspector-paths').click();
    await expect(page.getByTestId('path-value').first()).toHaveText('"hello dump"');
    await shot(page, '43-dump-string-values');
    // the string's retainer, inspected: its outgoing references preview their string values
    await page.getByTestId('ref-inspect').filter({ hasText: 'HeapscopeTest.Sample' }).click();
    await expect(page.getByTestId('inspector-type')).toHaveText('HeapscopeTest.Sample');
    await expect(page.getByTestId('ref-value').filter({ hasText: '"hello dump"' })).toHaveCount(1);
  });
});

import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { dumpDotnetApp, processDumpSkip } from '../../helpers/process-dump';
import { ROOT, SKIP, cellBytes, openApp, openPath, parseCsv, shot, waitForRows } from './helpers';

// Issue 15 in the browser: the Strings view of a process dump. StringsApp (test/dotnet/StringsApp)
// keeps 5,000 copies of "heapscope-dup-A", 300 of a 200-char string and 20 of a 3,000-char one;
// `heapscope dump` writes its core here, the app opens it through the ClrMD helper. The numbers
// are those of `heapscope strings` (test/integration/dump-strings.test.ts checks them against SOS).
const why = SKIP || processDumpSkip('Strings e2e') || '';
test.skip(!!why, why);

let dir = '';
let dump = '';

test.beforeAll(async () => {
  test.setTimeout(300_000);
  ({ dir, dump } = await dumpDotnetApp('StringsApp', { prefix: 'heapscope-e2e-strings-', file: 'strings.dmp' }));
});

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('Strings view of a dump: copies and wasted bytes per value, sortable, CSV; a value opens its instances in Instances, which lead to paths to roots', async ({ page }) => {
  test.setTimeout(180_000);
  // this dump's List<string> of copies is an accumulation point worth opening Insights for: stay on Types
  await openApp(page, { insightsFirst: false });
  await openPath(page, dump);
  await waitForRows(page.getByTestId('types-grid'), 'type');
  await expect(page.getByTestId('view-strings')).toBeEnabled();
  await page.getByTestId('view-strings').click();
  const grid = page.getByTestId('strings-grid');
  await waitForRows(grid, 'value');
  const cell = (row: number, col: string) => grid.locator(`.ag-row[row-index="${row}"] [col-id="${col}"]`);
  await expect(cell(0, 'value')).toHaveText('"heapscope-dup-A"');
  await expect(cell(0, 'count')).toHaveText('5,000');
  await expect.poll(() => cellBytes(grid, 0, 'wastedBytes')).toBe(4999 * 52);
  await expect.poll(() => cellBytes(grid, 0, 'totalBytes')).toBe(5000 * 52);
  await expect(cell(1, 'count')).toHaveText('300');
  await expect(cell(2, 'count')).toHaveText('20');
  await expect(cell(2, 'length')).toHaveText('3,000');
  await expect(cell(2, 'value')).toHaveText(/^"heapscope-dup-C-c+"…$/);

  // Sorted in the worker: Length, largest first on the first click.
  await grid.locator('.ag-header-cell[col-id="length"]').click();
  await expect(cell(0, 'length')).toHaveText('3,000');
  await expect(cell(1, 'length')).toHaveText('200');

  // CSV: the view's rows in its order, the columns of `heapscope strings --format csv`.
  const download = page.waitForEvent('download');
  await page.getByTestId('strings-view').getByTestId('export-csv').first().click();
  const rows = parseCsv(readFileSync(await (await download).path(), 'utf8'));
  expect(rows[0]).toEqual(['count', 'wastedBytes', 'totalBytes', 'length', 'value', 'truncated']);
  expect(rows[1].slice(0, 4)).toEqual(['20', String(19 * 6022), String(20 * 6022), '3000']);
  expect(rows[2].slice(0, 4)).toEqual(['300', String(299 * 422), String(300 * 422), '200']);

  // Double-click a value: the shared Instances view of System.String narrowed to its string
  // objects — the 5,000 reachable copies and the program's literal, which lives on the frozen
  // (non-GC) heap that no root reaches — then one copy's paths to roots.
  const strings = page.getByTestId('strings-view');
  await strings.getByTestId('grid-filter').first().fill('dup-A');
  await expect(cell(0, 'value')).toHaveText('"heapscope-dup-A"');
  await expect(grid.locator('.ag-row[row-index="1"]')).toHaveCount(0);
  await cell(0, 'count').dblclick();
  const view = page.getByTestId('instances-view');
  const instances = page.getByTestId('instances-grid');
  await expect(view.locator('.toolbar .title').first()).toHaveText('Instances of System.String = "heapscope-dup-A"');
  await waitForRows(instances, 'address');
  await expect(view.getByTestId('grid-total')).toHaveText('5,001 objects');
  const row = (i: number, col: string) => instances.locator(`.ag-row[row-index="${i}"] [col-id="${col}"]`);
  // Generation, descending: the frozen literal first (the frozen heap sorts after gen0–POH)
  const generation = instances.locator('.ag-header-cell[col-id="generation"]');
  await generation.click();
  await expect(generation).toHaveAttribute('aria-sort', 'ascending');
  await generation.click();
  await expect(generation).toHaveAttribute('aria-sort', 'descending');
  await expect(row(0, 'reachable')).toHaveText('no (frozen, never collected)');
  await expect(row(1, 'reachable')).toHaveText('yes');
  await expect(row(0, 'value')).toHaveText('heapscope-dup-A');
  await expect(row(1, 'value')).toHaveText('heapscope-dup-A');
  await shot(page, 'strings');
  await row(1, 'size').click();
  await view.getByTestId('object-paths').click();
  await expect(page.getByTestId('paths-view')).toContainText('HeapscopeTest.Kept.Strings', { timeout: 30_000 });

  // Right-click → Show instances does the same for the 300-copy value; "All values" lists every string.
  await page.getByTestId('view-strings').click();
  await waitForRows(grid, 'value');
  await strings.getByTestId('grid-filter').first().fill('dup-B');
  await expect(cell(0, 'count')).toHaveText('300');
  await expect(grid.locator('.ag-row[row-index="1"]')).toHaveCount(0);
  await cell(0, 'count').click({ button: 'right' });
  await page.getByTestId('menu-string-instances').click();
  await expect(view.locator('.toolbar .title').first()).toHaveText(/^Instances of System\.String = "heapscope-dup-B-b+…"$/);
  await expect(view.getByTestId('grid-total')).toHaveText('300 objects');
  await view.getByTestId('instances-value-clear').click();
  await expect(view.locator('.toolbar .title').first()).toHaveText('Instances of System.String');
  await expect(view.getByTestId('instances-value-clear')).toHaveCount(0);
  await expect.poll(async () => Number((await view.getByTestId('grid-total').textContent())!.replace(/\D/g, ''))).toBeGreaterThan(5320);
});

test('a .gcdump tab has no Strings view: disabled, saying contents need a process dump', async ({ page }) => {
  // the sample's event-handler leak would open Insights over the Types grid this waits for
  await openApp(page, { insightsFirst: false });
  await openPath(page, join(ROOT, 'electron', 'resources', 'sample.gcdump'));
  await waitForRows(page.getByTestId('types-grid'), 'type');
  await expect(page.getByTestId('view-strings')).toBeDisabled();
  await expect(page.getByTestId('view-strings')).toHaveAttribute('title', /only in process dumps/);
});

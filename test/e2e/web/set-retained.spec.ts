import { expect, test } from '@playwright/test';
import { SKIP, cellBytes, cliJson, fixture, gridCells, openApp, openListed, shot, waitForRows } from './helpers';

// "Calculate exact" in the types grid against `heapscope report --set-retained`: the set retained
// size computed in the tab's worker through the WebSocket door equals the CLI's.
test.skip(!!SKIP, SKIP);

const ANDROID = 'mono_android_20231108_150515_31024.gcdump';

test('Calculate exact fills Set retained (exact) for the selected type and for the top N', async ({ page }) => {
  const cli = cliJson<{ type: string; retainedSize: number; setRetainedSize: number }[]>(['report', fixture(`gcdump/${ANDROID}`), '--set-retained', '--filter', 'VisualStateGroup', '--sort', 'retained']);
  const list = cli.find((r) => r.type === 'Microsoft.Maui.Controls.VisualStateGroupList')!;
  expect([list.retainedSize, list.setRetainedSize]).toEqual([38_408, 42_016]);

  await openApp(page);
  await openListed(page, ANDROID);
  const grid = page.getByTestId('types-grid');
  await waitForRows(grid, 'type');
  await expect(page.getByTestId('analysis-state')).toHaveCount(0, { timeout: 30_000 });
  await page.getByTestId('grid-filter').fill('VisualStateGroup');
  await expect(page.getByTestId('grid-total')).toHaveText(`${cli.length} types`);
  await waitForRows(grid, 'retainedSize');
  const names = async () => (await gridCells(grid, ['type'])).map((r) => r[0]);
  await expect.poll(names).toEqual(cli.map((r) => r.type));
  // nothing computed yet: the column is empty
  expect((await gridCells(grid, ['setRetainedSize'])).every((r) => r[0] === '')).toBe(true);

  const row = cli.findIndex((r) => r === list);
  await grid.locator(`.ag-row[row-index="${row}"] [col-id="type"]`).click();
  await page.getByTestId('set-retained-one').click();
  await expect.poll(() => cellBytes(grid, row, 'setRetainedSize'), { timeout: 30_000 }).toBe(42_016);
  expect(await cellBytes(grid, row, 'retainedSize')).toBe(38_408);

  await page.getByTestId('set-retained-n').fill('3');
  await page.getByTestId('set-retained-top').click();
  for (let i = 0; i < 3; i++) await expect.poll(() => cellBytes(grid, i, 'setRetainedSize'), { timeout: 30_000 }).toBe(cli[i].setRetainedSize);
  // rows below the top N (other than the one computed before) stay empty
  const cells = await gridCells(grid, ['setRetainedSize']);
  for (let i = 3; i < cells.length; i++) if (i !== row) expect(cells[i][0]).toBe('');
  await shot(page, '20-types-set-retained');
});

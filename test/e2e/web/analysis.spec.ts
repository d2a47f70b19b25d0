import { expect, test } from '@playwright/test';
import { shapesFilled } from './gc-chart-helpers';
import { SKIP, cellBytes, cliJson, fixture, gridCells, num, openApp, openListed, openPath, shot, waitForRows } from './helpers';

// Dominator tree, paths to roots and generations on a real .NET dump (perfview_test2: 140k nodes).
test.skip(!!SKIP, SKIP);

const TEST2 = 'perfview_test2.gcdump';

test('expand the dominator tree and follow the path from the root', async ({ page }) => {
  await openApp(page);
  await openListed(page, TEST2);
  await page.getByTestId('view-dominators').click();
  const grid = page.getByTestId('dominator-grid');
  await expect(grid.locator('.ag-row[row-index="0"] .tree-cell')).toBeVisible({ timeout: 45_000 });
  // largest retained first
  const r0 = await cellBytes(grid, 0, 'retainedSize');
  const r1 = await cellBytes(grid, 1, 'retainedSize');
  expect(r0).toBeGreaterThanOrEqual(r1);
  // expand the first row that has children
  const row = grid.locator('.ag-row[row-index]', { has: page.locator('.chevron:not(.leaf)') }).first();
  const rowIndex = Number(await row.getAttribute('row-index'));
  const dominated = num((await gridCells(grid, ['childCount'], 200))[rowIndex][0]);
  await row.locator('.chevron').click();
  await expect(grid.locator(`.ag-row[row-index="${rowIndex}"] .chevron`)).toHaveText('▾');
  // the children are indented one level and sorted by retained size
  const child = grid.locator(`.ag-row[row-index="${rowIndex + 1}"]`);
  await expect(child.locator('.tree-cell')).toHaveAttribute('style', /padding-left: 16px/);
  expect(dominated).toBeGreaterThan(0);
  await child.locator('[col-id="object"]').click();
  const crumbs = page.getByTestId('dominator-path');
  await expect(crumbs).toBeVisible();
  expect(await crumbs.locator('.crumb').count()).toBeGreaterThanOrEqual(2);
  await expect(crumbs.locator('.crumb.last')).toContainText((await child.locator('.tname').textContent())!.trim());
  await shot(page, '06-dominator-tree');
});

test('paths to roots for an object and for a whole type', async ({ page }) => {
  await openApp(page);
  await openListed(page, TEST2);
  const types = page.getByTestId('types-grid');
  await waitForRows(types, 'type');
  await expect(page.getByTestId('analysis-state')).toHaveCount(0, { timeout: 30_000 });
  await waitForRows(types, 'retainedSize');
  // the largest retained type is certainly reachable (unreachable objects retain nothing)
  const [name, count] = (await gridCells(types, ['type', 'count']))[0];
  await types.locator('.ag-row[row-index="0"] [col-id="type"]').click();
  await page.getByTestId('type-paths').click();
  const tree = page.getByTestId('paths-tree');
  const top = tree.getByTestId('path-row').first();
  await expect(top).toContainText(name, { timeout: 30_000 });
  const facts = page.getByTestId('paths-view').locator('.facts');
  await expect(facts).toContainText(`(of ${count})`);
  // the top row counts the reachable instances; their paths end at GC roots
  const reachable = Number((await facts.textContent())!.match(/each of ([\d,]+) reachable/)![1].replace(/,/g, ''));
  await expect(top.locator('.num').first()).toHaveText(reachable.toLocaleString('en-US'));
  await expect(tree.locator('.root-tag').first()).toBeVisible();
  await shot(page, '07-paths-type');

  // one object of that type, from its instances
  await page.getByTestId('view-instances').click();
  const inst = page.getByTestId('instances-grid');
  await waitForRows(inst, 'address');
  await inst.locator('.ag-row[row-index="0"] [col-id="address"]').click();
  await page.getByTestId('object-paths').click();
  await expect(page.getByTestId('paths-object')).toHaveClass(/on/);
  await expect(tree.getByTestId('path-row').first()).toContainText(name, { timeout: 30_000 });
  await expect(tree.locator('.root-tag').first().or(page.getByTestId('paths-unreachable'))).toBeVisible();
  await shot(page, '08-paths-object');
});

test('generations: chart and table for a dump with segments', async ({ page }) => {
  await openApp(page);
  await openListed(page, TEST2);
  await waitForRows(page.getByTestId('types-grid'), 'type');
  await page.getByTestId('view-generations').click();
  const view = page.getByTestId('generations-view');
  await expect(view.getByTestId('generations-table').or(view.getByTestId('no-generations'))).toBeVisible({ timeout: 30_000 });
  if (await view.getByTestId('generations-table').isVisible()) {
    await expect(view.locator('svg.chart rect').first()).toBeVisible();
    await expect(view.getByTestId('generations-table')).toContainText('gen2');
  }
  await shot(page, '09-generations');
});

test('generations: honest message for a dotnet-gcdump without generation data', async ({ page }) => {
  await openApp(page);
  await openListed(page, 'mono_android_20231108_150515_31024.gcdump');
  await waitForRows(page.getByTestId('types-grid'), 'type');
  await page.getByTestId('view-generations').click();
  await expect(page.getByTestId('no-generations')).toContainText('No generation data in this file');
  await expect(page.getByTestId('loh-by-size')).toContainText('large object heap');
  await shot(page, '10-generations-none');
});

test('GC timeline of a trace: chart, summary and table agree with the CLI', async ({ page }) => {
  const trace = fixture('nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace');
  const cli = cliJson<{ summary: { gcCount: number; byGeneration: number[] } }>(['gc-timeline', trace]);
  await openApp(page);
  await openPath(page, trace);
  // a trace without a heap dump opens on its timeline
  await expect(page.getByTestId('view-timeline')).toHaveClass(/on/, { timeout: 30_000 });
  const summary = page.getByTestId('timeline-summary');
  await expect(summary).toContainText(`${cli.summary.gcCount.toLocaleString('en-US')} GCs (gen0 ${cli.summary.byGeneration[0].toLocaleString('en-US')}`);
  // bars per generation (+1: each legend icon); gc-timeline.spec.ts tests the chart itself
  await expect.poll(() => shapesFilled(page, '--bar-1')).toBe(cli.summary.byGeneration[0] + 1);
  await expect(page.getByTestId('timeline-view').locator('.ag-row[row-index="0"] [col-id="index"]')).not.toHaveText('');
  await shot(page, '15-gc-timeline');
});

test('"Show in dominator tree" opens the tree down to an instance', async ({ page }) => {
  await openApp(page);
  await openListed(page, TEST2);
  const types = page.getByTestId('types-grid');
  await waitForRows(types, 'type');
  await expect(page.getByTestId('analysis-state')).toHaveCount(0, { timeout: 30_000 });
  await page.getByTestId('grid-filter').fill('System.Windows.ResourceDictionary');
  await page.getByTestId('grid-filter').press('Enter');
  // the filtered rows first: a double-click on a row the filter's refresh then replaces is lost
  await expect.poll(async () => (await gridCells(types, ['type'])).map((r) => r[0])).toContain('System.Windows.ResourceDictionary');
  await expect.poll(async () => (await gridCells(types, ['type'])).length).toBe(2); // and UncommonField<ResourceDictionary>
  await types.locator('.ag-row [col-id="type"]', { hasText: /^System\.Windows\.ResourceDictionary$/ }).first().dblclick();
  const inst = page.getByTestId('instances-grid');
  await waitForRows(inst, 'address');
  const address = (await gridCells(inst, ['address']))[0][0];
  await inst.locator('.ag-row[row-index="0"] [col-id="address"]').click();
  await page.getByTestId('object-dominators').click();
  const grid = page.getByTestId('dominator-grid');
  const selected = grid.locator('.ag-row-selected');
  await expect(selected).toHaveCount(1, { timeout: 30_000 });
  await expect(selected).toContainText(address);
  await expect(page.getByTestId('dominator-path').locator('.crumb.last')).toContainText('System.Windows.ResourceDictionary');
});

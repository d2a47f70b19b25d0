import { join } from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { ROOT, SKIP, cellBytes, gridCells, openApp, openPath, shot, waitForRetainedOrder, waitForRows } from './helpers';

// "What if" (issue 16) in the browser on the bundled sample: in the paths of a leaked ReportView,
// ignore the reference PriceFeed → its PriceChanged delegate (the one that keeps the 150 views
// alive) → the tab recomputes: ReportView retains 0 bytes (it is unreachable now) and PriceFeed
// only its own 24 bytes; Restore brings the original figures back (the worker test and the unit
// golden test check the same figures against the original analysis).
test.skip(!!SKIP, SKIP);

const SAMPLE = join(ROOT, 'electron', 'resources', 'sample.gcdump');

/**
 * Open the sample and show its Types, sizes in order. The sample opens on Insights by itself (its
 * 150 leaked ReportViews): wait for that first, or the switch would take the Types grid away mid-test.
 */
async function openSampleTypes(page: Page): Promise<Locator> {
  await openApp(page);
  await openPath(page, SAMPLE);
  await expect(page.getByTestId('view-insights')).toHaveClass(/on/, { timeout: 60_000 });
  await page.getByTestId('view-types').click();
  const grid = page.getByTestId('types-grid');
  await waitForRows(grid, 'type');
  await waitForRetainedOrder(page, grid);
  return grid;
}

async function retainedOf(page: Page, type: string): Promise<number> {
  const grid = page.getByTestId('types-grid');
  await page.getByTestId('grid-filter').fill(type);
  await expect.poll(async () => (await gridCells(grid, ['type'])).map((r) => r[0])).toEqual([type]);
  await expect(grid.locator('.ag-row[row-index="0"] [col-id="retainedSize"] span[title]')).toHaveCount(1);
  return cellBytes(grid, 0, 'retainedSize');
}

test('ignore the PriceChanged reference: the leaking type retains 0 bytes; Restore brings the original numbers back', async ({ page }) => {
  const grid = await openSampleTypes(page);
  await expect.poll(() => retainedOf(page, 'SampleShop.ReportView')).toBe(166_800);
  await expect.poll(() => retainedOf(page, 'SampleShop.PriceFeed')).toBe(178_560);
  // the Insights tab's count of leak findings follows the numbers shown (4 here, 2 with the
  // reference ignored, 4 again after Restore, which keeps the analysis 'done')
  const insightCount = page.getByTestId('insights-count');
  await expect(insightCount).toHaveText('4');

  // a ReportView's paths to roots: … ← System.Action<SampleShop.Product> ← SampleShop.PriceFeed ← [static var …]
  await retainedOf(page, 'SampleShop.ReportView');
  await grid.locator('.ag-row[row-index="0"] [col-id="type"]').dblclick();
  const instances = page.getByTestId('instances-grid');
  await waitForRows(instances, 'address');
  await instances.locator('.ag-row[row-index="0"] [col-id="address"]').click({ button: 'right' });
  await page.getByTestId('menu-paths').click();
  const feedRow = page.getByTestId('path-row').filter({ hasText: 'SampleShop.PriceFeed' }).first();
  await expect(feedRow).toBeVisible();
  await feedRow.click({ button: 'right' });
  await expect(page.getByTestId('object-menu').getByTestId('menu-ignore-type')).toBeVisible();
  await page.getByTestId('menu-ignore-reference').click();

  const banner = page.getByTestId('whatif-banner');
  await expect(banner.getByTestId('whatif-count')).toHaveText('numbers with 1 reference ignored:', { timeout: 30_000 });
  await expect(banner.getByTestId('whatif-item')).toHaveCount(1);
  await expect(banner.getByTestId('whatif-item')).toContainText(/SampleShop\.PriceFeed 0x[0-9a-f]+ → System\.Action<SampleShop\.Product> 0x[0-9a-f]+/);
  // the path view answers from the recomputed analysis: the ReportView has no path left
  await expect(page.getByTestId('paths-unreachable')).toHaveText('Not reachable from any root once the ignored references are left out (what if)');
  await shot(page, 'what-if-paths');

  await page.getByTestId('view-types').click();
  await waitForRows(grid, 'type');
  await expect.poll(() => retainedOf(page, 'SampleShop.ReportView')).toBe(0);
  await expect.poll(() => retainedOf(page, 'SampleShop.PriceFeed')).toBe(24);
  await expect(insightCount).toHaveText('2');

  await banner.getByTestId('whatif-restore').click();
  await expect(banner).toHaveCount(0);
  await waitForRows(grid, 'type');
  await expect.poll(() => retainedOf(page, 'SampleShop.ReportView')).toBe(166_800);
  await expect.poll(() => retainedOf(page, 'SampleShop.PriceFeed')).toBe(178_560);
  await expect(insightCount).toHaveText('4');
});

// Ignoring the root category [static vars] frees nothing on this sample: CoreCLR keeps every
// static's value in an Object[] held by a strong handle too, which becomes their only retainer, so
// that array's type goes from 187,592 to 5,986,844 retained bytes while PriceFeed keeps its
// 178,560 (the same figures as `heapscope report --ignore-root "[static vars]"`). This test once
// expected PriceFeed to drop to 0 and passed only when it read the "…" placeholder shown during
// the recompute (cellBytes now gives NaN for it).
test('ignore a root category from the paths view, then remove it from the banner', async ({ page }) => {
  const grid = await openSampleTypes(page);
  await expect.poll(() => retainedOf(page, 'System.Object[] (Bytes > 1K)')).toBe(187_592);
  await expect.poll(() => retainedOf(page, 'SampleShop.PriceFeed')).toBe(178_560);
  await grid.locator('.ag-row[row-index="0"] [col-id="type"]').dblclick();
  const instances = page.getByTestId('instances-grid');
  await waitForRows(instances, 'address');
  await instances.locator('.ag-row[row-index="0"] [col-id="address"]').click({ button: 'right' });
  await page.getByTestId('menu-paths').click();
  const root = page.getByTestId('path-row').filter({ hasText: '[static vars]' }).first();
  await expect(root).toBeVisible();
  await root.click({ button: 'right' });
  await expect(page.getByTestId('menu-inspect')).toHaveCount(0);
  await page.getByTestId('menu-ignore-root').click();
  const banner = page.getByTestId('whatif-banner');
  await expect(banner.getByTestId('whatif-item')).toHaveText(/root \[static vars\]/, { timeout: 30_000 });
  await expect(banner.getByTestId('whatif-count')).toHaveText('numbers with 83 references ignored:', { timeout: 30_000 });
  await page.getByTestId('view-types').click();
  await expect.poll(() => retainedOf(page, 'System.Object[] (Bytes > 1K)'), { timeout: 30_000 }).toBe(5_986_844);
  await expect.poll(() => retainedOf(page, 'SampleShop.PriceFeed')).toBe(178_560);
  await banner.getByTestId('whatif-remove').click();
  await expect(banner).toHaveCount(0);
  await expect.poll(() => retainedOf(page, 'System.Object[] (Bytes > 1K)')).toBe(187_592);
});

test('ignore a reference from the inspector: the outgoing reference PriceFeed → its delegate', async ({ page }) => {
  const grid = await openSampleTypes(page);
  await retainedOf(page, 'SampleShop.PriceFeed');
  await grid.locator('.ag-row[row-index="0"] [col-id="type"]').dblclick();
  const instances = page.getByTestId('instances-grid');
  await waitForRows(instances, 'address');
  await instances.locator('.ag-row[row-index="0"] [col-id="address"]').dblclick();
  const out = page.getByTestId('inspector').getByTestId('refs-outgoing').getByTestId('ref-row');
  await expect(out).toHaveCount(1);
  await expect(out).toContainText('System.Action<SampleShop.Product>');
  await out.click({ button: 'right' });
  await page.getByTestId('menu-ignore-reference').click();
  const banner = page.getByTestId('whatif-banner');
  await expect(banner.getByTestId('whatif-count')).toHaveText('numbers with 1 reference ignored:', { timeout: 30_000 });
  await expect(banner.getByTestId('whatif-item')).toContainText(/^SampleShop\.PriceFeed 0x[0-9a-f]+ → System\.Action<SampleShop\.Product> 0x[0-9a-f]+/);
  // the inspector follows: PriceFeed now retains only itself
  await expect(page.getByTestId('inspector-retained')).toHaveAttribute('title', /^24 bytes/);
  await page.getByTestId('view-types').click();
  await expect.poll(() => retainedOf(page, 'SampleShop.ReportView')).toBe(0);
});

test('the ignore list comes back after a reload (same file), and Restore after it brings the original figures', async ({ page }) => {
  const grid = await openSampleTypes(page);
  await retainedOf(page, 'SampleShop.PriceFeed');
  await grid.locator('.ag-row[row-index="0"] [col-id="type"]').click({ button: 'right' });
  await page.getByTestId('type-menu-ignore-type').click();
  const banner = page.getByTestId('whatif-banner');
  await expect(banner.getByTestId('whatif-item')).toHaveText(/references from SampleShop\.PriceFeed/, { timeout: 30_000 });
  await expect(banner.getByTestId('whatif-count')).toHaveText('numbers with 1 reference ignored:', { timeout: 30_000 });

  await page.reload();
  await expect(banner.getByTestId('whatif-item')).toHaveText(/references from SampleShop\.PriceFeed/, { timeout: 30_000 });
  await expect(banner.getByTestId('whatif-count')).toHaveText('numbers with 1 reference ignored:', { timeout: 30_000 });
  await page.getByTestId('view-types').click();
  await waitForRows(grid, 'type');
  await expect.poll(() => retainedOf(page, 'SampleShop.ReportView'), { timeout: 30_000 }).toBe(0);
  await banner.getByTestId('whatif-restore').click();
  await expect(banner).toHaveCount(0);
  await expect.poll(() => retainedOf(page, 'SampleShop.ReportView')).toBe(166_800);
});

test('from the dominator tree: ignore references from a row\'s type; on a root category row, ignore the category', async ({ page }) => {
  const grid = await openSampleTypes(page);
  await page.getByTestId('view-dominators').click();
  const tree = page.getByTestId('dominator-grid');
  const row = (type: string) => tree.locator('.ag-row', { has: page.locator('.tname', { hasText: type }) }).first();
  await expect(row('SampleShop.PriceFeed')).toBeVisible({ timeout: 30_000 });

  // an object row: a dominator is not a referrer, so the type's references but no "this reference"
  await row('SampleShop.PriceFeed').locator('[col-id="object"]').click({ button: 'right' });
  const menu = page.getByTestId('object-menu');
  await expect(menu.getByRole('menuitem')).toHaveText(['Inspect', 'Paths to roots', 'Show in dominator tree', 'Copy address', 'Ignore references from this type']);
  await menu.getByTestId('menu-ignore-type').click();
  const banner = page.getByTestId('whatif-banner');
  await expect(banner.getByTestId('whatif-item')).toHaveText(/references from SampleShop\.PriceFeed/, { timeout: 30_000 });

  // [other roots] (a pseudo-node child of the root): only the root category action
  await expect(row('[other roots]')).toBeVisible({ timeout: 30_000 });
  await row('[other roots]').locator('[col-id="object"]').click({ button: 'right' });
  await expect(menu.getByRole('menuitem')).toHaveText(['Ignore root category [other roots]']);
  await menu.getByTestId('menu-ignore-root').click();
  await expect(banner.getByTestId('whatif-item')).toHaveCount(2, { timeout: 30_000 });
  await expect(banner.getByTestId('whatif-item').nth(1)).toHaveText(/root \[other roots\]/);

  await page.getByTestId('view-types').click();
  await waitForRows(grid, 'type');
  await expect.poll(() => retainedOf(page, 'SampleShop.ReportView'), { timeout: 30_000 }).toBe(0);
  await expect.poll(() => retainedOf(page, 'SampleShop.PriceFeed')).toBe(24);
  await banner.getByTestId('whatif-restore').click();
  await expect(banner).toHaveCount(0);
  await expect.poll(() => retainedOf(page, 'SampleShop.ReportView')).toBe(166_800);
});

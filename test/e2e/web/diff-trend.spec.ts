import { expect, test, type Page } from '@playwright/test';
import { SKIP, cliJson, fixture, gridCells, openApp, openListed, openPath, shot, tabNamed, waitForRows } from './helpers';

// Issue 14 in the browser: a diff row opens its type's instances (and paths to roots) in the new
// snapshot's tab and in the baseline's; the baseline list and the Trend view offer only snapshots
// with objects (a GC-only trace is open beside them); the trend of the two Android dumps of one
// process equals the CLI's `trend`, with a sparkline per row.
test.skip(!!SKIP, SKIP);

const A = 'mono_android_20231108_150515_31024.gcdump';
const B = 'mono_android_20231108_150644_31024.gcdump';
const TRACE = 'eventpipe-dotnetcore3.0-win-x64-objver4.nettrace';
const STRING = 'System.String';

interface CliTrend {
  snapshots: string[];
  typesSeen: number;
  growing: number;
  rows: { type: string; counts: number[]; retained: number[] }[];
}

/** A, B and the GC-only trace open; B's tab active on its Diff view. */
async function openThree(page: Page): Promise<void> {
  await openApp(page);
  await openListed(page, A);
  await waitForRows(page.getByTestId('types-grid'), 'type');
  await openListed(page, B);
  await waitForRows(page.getByTestId('types-grid'), 'type');
  await openPath(page, fixture(`nettrace/${TRACE}`));
  await expect(tabNamed(page, TRACE)).toHaveAttribute('data-phase', /analysing|ready/, { timeout: 30_000 });
  await expect(page.getByTestId('view-timeline')).toBeVisible({ timeout: 30_000 }); // it did load: a GC timeline
  await tabNamed(page, B).click();
  await expect(page.getByTestId('analysis-state')).toHaveCount(0, { timeout: 30_000 });
}

test('diff row → instances in the new snapshot and in the baseline → paths to roots; no GC-only baseline', async ({ page }) => {
  const cli = cliJson<{ rows: { type: string; baseCount: number; newCount: number }[] }>(['diff', fixture(`gcdump/${A}`), fixture(`gcdump/${B}`), '--top', '0']);
  const str = cli.rows.find((r) => r.type === STRING)!;
  expect([str.baseCount, str.newCount]).toEqual([4_174, 4_230]);

  await openThree(page);
  await page.getByTestId('view-diff').click();
  const options = await page.getByTestId('diff-baseline').locator('option').allTextContents();
  expect(options).toEqual(['choose an open snapshot…', A]);
  await page.getByTestId('diff-baseline').selectOption({ label: A });
  const grid = page.getByTestId('diff-grid');
  await waitForRows(grid, 'type');
  await page.getByTestId('grid-filter').fill(STRING);
  await expect.poll(async () => (await gridCells(grid, ['type'])).findIndex((r) => r[0] === STRING)).toBeGreaterThanOrEqual(0);
  const at = (await gridCells(grid, ['type'])).findIndex((r) => r[0] === STRING);

  // double-click: this (the new) snapshot's instances of the type
  await grid.locator(`.ag-row[row-index="${at}"] [col-id="type"]`).dblclick();
  await expect(page.getByTestId('instances-view')).toBeVisible();
  await expect(page.getByTestId('instances-view')).toContainText(`Instances of ${STRING}`);
  await expect(page.getByTestId('grid-total')).toHaveText('4,230 objects');
  await expect(tabNamed(page, B)).toHaveClass(/active/);

  // back to the diff: the row's bar opens the baseline's instances, in the baseline's tab
  await page.getByTestId('view-diff').click();
  await waitForRows(grid, 'type');
  const again = (await gridCells(grid, ['type'])).findIndex((r) => r[0] === STRING);
  await grid.locator(`.ag-row[row-index="${again}"] [col-id="type"]`).click();
  await expect(page.getByTestId('diff-drill')).toContainText(STRING);
  await shot(page, '30-diff-drill');
  await page.getByTestId('diff-instances-baseline').click();
  await expect(tabNamed(page, A)).toHaveClass(/active/);
  await expect(page.getByTestId('instances-view')).toContainText(`Instances of ${STRING}`);
  await expect(page.getByTestId('grid-total')).toHaveText('4,174 objects');

  // and Paths to roots of every instance of the type, in the new snapshot's tab
  await tabNamed(page, B).click();
  await page.getByTestId('view-diff').click();
  await waitForRows(grid, 'type');
  const third = (await gridCells(grid, ['type'])).findIndex((r) => r[0] === STRING);
  await grid.locator(`.ag-row[row-index="${third}"] [col-id="type"]`).click();
  await page.getByTestId('diff-paths-new').click();
  await expect(page.getByTestId('paths-view')).toBeVisible();
  await expect(page.getByTestId('paths-view')).toContainText(`all objects of ${STRING}`);
  await expect(page.getByTestId('path-row').first()).toBeVisible({ timeout: 30_000 });
  await expect(tabNamed(page, B)).toHaveClass(/active/);
});

test('Trend of the two Android dumps: growing types with per-step values and sparklines, GC-only trace not offered', async ({ page }) => {
  const cli = cliJson<CliTrend>(['trend', fixture(`gcdump/${A}`), fixture(`gcdump/${B}`), '--top', '0']);
  expect([cli.growing, cli.typesSeen]).toEqual([97, 1_460]);

  await openThree(page);
  await page.getByTestId('view-diff').click();
  await page.getByTestId('diff-open-trend').click();
  const view = page.getByTestId('trend-view');
  await expect(view).toBeVisible();
  await expect(page.getByTestId('trend-snapshot')).toHaveText([A, B]);
  await expect(page.getByTestId('trend-order')).toContainText(`In tab order, left to right (2 of 2 snapshots have no capture time): ${A} → ${B}.`);
  await expect(page.getByTestId('trend-summary')).toContainText('97 of 1,460 types grow at every step', { timeout: 30_000 });
  const rows = page.getByTestId('trend-row');
  await expect(rows).toHaveCount(97);
  expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-type')))).toEqual(cli.rows.map((r) => r.type));
  const counts = await page.getByTestId('trend-counts').allTextContents();
  expect(counts).toEqual(cli.rows.map((r) => r.counts.map((c) => c.toLocaleString('en-US')).join(' → ')));
  const retained = await page.getByTestId('trend-retained').evaluateAll((els) => els.map((e) => e.getAttribute('title')));
  expect(retained).toEqual(cli.rows.map((r) => r.retained.map((b) => `${b.toLocaleString('en-US')} bytes`).join(' → ')));
  // two sparklines a row, each a 2-point line
  await expect(view.locator('svg[data-testid="sparkline"]')).toHaveCount(2 * 97);
  expect(await rows.first().locator('polyline').first().getAttribute('points')).toBe('1,17 63,1');
  await shot(page, '31-trend');

  // double-click: the type's instances in the newest snapshot
  await rows.first().dblclick();
  await expect(tabNamed(page, B)).toHaveClass(/active/);
  await expect(page.getByTestId('instances-view')).toContainText(`Instances of ${cli.rows[0].type}`);
});

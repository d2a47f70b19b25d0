import { expect, test, type Page } from '@playwright/test';
import { SKIP, cliJson, fixture, openApp, openListed, shot, waitForRows } from './helpers';

// Issue 16 in the browser: the Sunburst view of the dominator tree on a real dump. Every number
// is checked against the CLI's `heapscope dominators --format json` (the oracle of the golden
// unit test test/unit/shared/session/dominator-sunburst.golden.test.ts).
test.skip(!!SKIP, SKIP);

const ANDROID = 'mono_android_20231108_150515_31024.gcdump';

interface CliRow {
  depth: number;
  node: number;
  parent: number | null;
  type: string;
  retainedSize: number;
}

async function openSunburst(page: Page): Promise<void> {
  await openApp(page);
  await openListed(page, ANDROID);
  await waitForRows(page.getByTestId('types-grid'), 'type');
  await expect(page.getByTestId('analysis-state')).toHaveCount(0, { timeout: 30_000 });
  await page.getByTestId('view-sunburst').click();
  await expect(page.getByTestId('sunburst-chart').locator('svg')).toBeVisible({ timeout: 30_000 });
}

const retainedOf = async (page: Page, testId: string, i = 0) => Number(await page.getByTestId(testId).nth(i).getAttribute('data-retained'));

test('sunburst: the whole heap at the center, zoom into the largest ring and back, treemap, by type', async ({ page }) => {
  const cli = cliJson<CliRow[]>(['dominators', fixture(`gcdump/${ANDROID}`), '--top', '100000', '--depth', '2']);
  const root = cli[0];
  const ring1 = cli.filter((r) => r.parent === root.node);
  const largest = ring1[0];
  await openSunburst(page);

  // the center: the root, retaining every reachable byte; beside it, the root's children as the CLI lists them
  const center = page.getByTestId('sunburst-center');
  await expect(center).toHaveAttribute('data-retained', String(root.retainedSize));
  await expect(center).toContainText(`${root.retainedSize.toLocaleString('en-US')} bytes`);
  await expect(page.getByTestId('sunburst-crumb')).toHaveText(['Whole heap']);
  const rows = page.getByTestId('sunburst-row');
  await expect(rows.first().locator('.name')).toHaveText(largest.type);
  expect(await retainedOf(page, 'sunburst-row')).toBe(largest.retainedSize);
  // kept rows are the CLI's first children; the last row folds the rest, to the byte
  const n = await rows.count();
  for (let i = 0; i < n - 1; i++) expect(await retainedOf(page, 'sunburst-row', i)).toBe(ring1[i].retainedSize);
  await expect(rows.last().locator('.name')).toHaveText(`${ring1.length - (n - 1)} others`);
  expect(await retainedOf(page, 'sunburst-row', n - 1)).toBe(ring1.slice(n - 1).reduce((s, r) => s + r.retainedSize, 0));
  await shot(page, '30-sunburst');

  // clicking the largest ring makes it the center: a breadcrumb, and its own children
  await page.getByTestId('sunburst-chart').locator('svg text', { hasText: largest.type }).first().click();
  await expect(page.getByTestId('sunburst-crumb')).toHaveText(['Whole heap', largest.type]);
  await expect(center).toHaveAttribute('data-retained', String(largest.retainedSize));
  const kids = cli.filter((r) => r.parent === largest.node);
  await expect(rows.first().locator('.name')).toHaveText(kids[0].type);
  expect(await retainedOf(page, 'sunburst-row')).toBe(kids[0].retainedSize);
  // and back: by clicking the center, then from a deeper center by the breadcrumb
  await page.getByTestId('sunburst-chart').locator('svg text', { hasText: largest.type }).first().click(); // the center's label now
  await expect(page.getByTestId('sunburst-crumb')).toHaveText(['Whole heap']);
  await expect(center).toHaveAttribute('data-retained', String(root.retainedSize));
  await rows.first().press('Enter');
  await expect(page.getByTestId('sunburst-crumb')).toHaveText(['Whole heap', largest.type]);
  await page.getByTestId('sunburst-crumb').first().click();
  await expect(page.getByTestId('sunburst-crumb')).toHaveText(['Whole heap']);
  await expect(center).toHaveAttribute('data-retained', String(root.retainedSize));

  // treemap: the same items as nested boxes
  await page.getByTestId('sunburst-kind-treemap').click();
  const chart = page.getByTestId('sunburst-chart');
  await expect(chart).toHaveAttribute('data-kind', 'treemap');
  await expect(chart.locator('svg text', { hasText: largest.type }).first()).toBeVisible();
  await shot(page, '31-sunburst-treemap');
  // a box zooms as a ring does
  await chart.locator('svg text', { hasText: largest.type }).first().click();
  await expect(page.getByTestId('sunburst-crumb')).toHaveText(['Whole heap', largest.type]);
  await expect(center).toHaveAttribute('data-retained', String(largest.retainedSize));
  await page.getByTestId('sunburst-crumb').first().click();
  await expect(center).toHaveAttribute('data-retained', String(root.retainedSize));

  // by type: the root's children grouped by type, with counts; sums equal the CLI's rows per type
  await page.getByTestId('sunburst-mode-type').click();
  await expect(page.getByTestId('sunburst-view')).toHaveAttribute('data-mode', 'type');
  const byType = new Map<string, { count: number; bytes: number }>();
  for (const r of ring1) {
    const e = byType.get(r.type) ?? { count: 0, bytes: 0 };
    e.count++;
    e.bytes += r.retainedSize;
    byType.set(r.type, e);
  }
  const str = byType.get('System.String')!;
  const strRow = rows.filter({ hasText: `System.String ×${str.count.toLocaleString('en-US')}` });
  await expect(strRow).toHaveCount(1);
  expect(Number(await strRow.getAttribute('data-retained'))).toBe(str.bytes);
  await shot(page, '32-sunburst-by-type');
});

test('sunburst: double-click inspects an object, in the list and on the chart; Enter centers a row', async ({ page }) => {
  await openSunburst(page);
  const first = page.getByTestId('sunburst-row').first();
  const node = await first.getAttribute('data-object-node');
  await first.dblclick();
  const panel = page.getByTestId('inspector');
  await expect(panel).toHaveAttribute('data-node', node!);
  await expect(page.getByTestId('sunburst-crumb')).toHaveCount(1); // the double-click did not zoom
  await page.getByTestId('inspector-close').click();
  // on the chart: the second ring-1 object
  const second = page.getByTestId('sunburst-row').nth(1);
  const type = (await second.locator('.name').textContent())!;
  await page.getByTestId('sunburst-chart').locator('svg text', { hasText: type }).first().dblclick();
  await expect(panel).toHaveAttribute('data-node', (await second.getAttribute('data-object-node'))!);
  await expect(page.getByTestId('sunburst-crumb')).toHaveCount(1);
  // keyboard: Enter on a row centers it
  await page.getByTestId('inspector-close').click();
  await second.press('Enter');
  await expect(page.getByTestId('sunburst-crumb')).toHaveText(['Whole heap', type]);
});

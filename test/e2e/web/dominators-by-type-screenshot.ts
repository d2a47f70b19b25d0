/**
 * Regenerates docs/dominators-by-type.png (the README picture of Dominator tree → Group by type)
 * from a running browser-mode server with the WPF heap of the fixtures:
 *
 *   node bin/heapscope.mjs serve ../shared/fixtures/gcdump/perfview_test2.gcdump --no-open --list-only
 *   npx tsx test/e2e/web/dominators-by-type-screenshot.ts 'http://127.0.0.1:PORT/?token=…'
 *
 * It turns on Group by type and expands the largest group (by retained size) of 3 to 10 outermost
 * instances that is a real type (not a pseudo-node group such as a root category), so the picture
 * shows a type's instances and the groups around it.
 * Not a spec (Playwright only collects *.spec.ts): a picture is not a test.
 */
import { chromium } from '@playwright/test';
import { join } from 'node:path';
import { ROOT } from './helpers';

const url = process.argv[2];
if (!url) throw new Error('usage: tsx test/e2e/web/dominators-by-type-screenshot.ts URL');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, colorScheme: 'light' });
  await page.goto(url);
  await page.getByTestId('cmdline-file').nth(0).click();
  await page.getByTestId('analysis-state').waitFor({ state: 'detached', timeout: 60_000 });
  await page.getByTestId('view-dominators').click();
  await page.getByTestId('dominator-grid').locator('.ag-row[row-index="0"] .tree-cell').waitFor({ timeout: 30_000 });
  await page.getByTestId('dominator-group-by-type').check();
  const grid = page.getByTestId('dominator-groups-grid');
  await grid.locator('.ag-row[row-index="0"] .tree-cell').waitFor({ timeout: 30_000 });
  // rows are in retained-size order; pseudo-node groups are named in brackets
  const index = await grid.evaluate((el) => {
    const rows = Array.from(el.querySelectorAll('.ag-row[row-index]')).map((r) => ({ i: Number(r.getAttribute('row-index')), text: r.querySelector('[col-id="object"]')?.textContent ?? '' }));
    rows.sort((a, b) => a.i - b.i);
    return rows.find((r) => !/^\W*\[/.test(r.text) && / ([3-9]|10) objects$/.test(r.text.trim()))?.i ?? 0;
  });
  const group = grid.locator(`.ag-row[row-index="${index}"]`);
  await group.locator('.chevron').click();
  await grid.locator(`.ag-row[row-index="${index + 1}"] .tree-cell`).waitFor();
  await grid.locator(`.ag-row[row-index="${index + 1}"] [col-id="object"]`).click();
  await page.mouse.move(0, 0);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(ROOT, 'docs', 'dominators-by-type.png') });
} finally {
  await browser.close();
}

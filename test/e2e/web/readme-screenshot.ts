/**
 * Regenerates docs/screenshot.png (the README picture) from a running browser-mode server:
 *
 *   node bin/heapscope.mjs serve ../shared/fixtures/gcdump/perfview_test2.gcdump \
 *     ../shared/fixtures/gcdump/mono_android_20231108_150644_31024.gcdump --no-open
 *   npx tsx test/e2e/web/readme-screenshot.ts 'http://127.0.0.1:PORT/?token=…'
 *
 * Not a spec (Playwright only collects *.spec.ts): a picture is not a test.
 */
import { chromium } from '@playwright/test';
import { join } from 'node:path';
import { ROOT } from './helpers';

const url = process.argv[2];
if (!url) throw new Error('usage: tsx test/e2e/web/readme-screenshot.ts URL');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, colorScheme: 'light' });
  await page.goto(url);
  const files = page.getByTestId('cmdline-file');
  await files.nth(1).click();
  await page.getByTestId('tab-home').click();
  await files.nth(0).click();
  const grid = page.getByTestId('dominator-grid');
  await page.getByTestId('view-dominators').click();
  await grid.locator('.ag-row[row-index="1"] .chevron').click({ timeout: 30_000 });
  await grid.locator('.ag-row[row-index="2"] .chevron').click();
  await grid.locator('.ag-row[row-index="3"] [col-id="object"]').click();
  await page.getByTestId('dominator-path').waitFor();
  await page.mouse.move(0, 0);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(ROOT, 'docs', 'screenshot.png') });
} finally {
  await browser.close();
}

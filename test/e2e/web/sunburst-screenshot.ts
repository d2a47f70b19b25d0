/**
 * Regenerates docs/sunburst.png (the README's Sunburst picture) from a running browser-mode
 * server with the Android dump of the fixtures:
 *
 *   node bin/heapscope.mjs serve ../shared/fixtures/gcdump/mono_android_20231108_150515_31024.gcdump --no-open
 *   npx tsx test/e2e/web/sunburst-screenshot.ts 'http://127.0.0.1:PORT/?token=…'
 *
 * It opens the Sunburst view by type and leaves the pointer on the largest ring-1 sector so its
 * tooltip shows. Not a spec (Playwright only collects *.spec.ts): a picture is not a test.
 */
import { chromium } from '@playwright/test';
import { join } from 'node:path';
import { ROOT } from './helpers';

const url = process.argv[2];
if (!url) throw new Error('usage: tsx test/e2e/web/sunburst-screenshot.ts URL');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, colorScheme: 'light' });
  await page.goto(url);
  await page.getByTestId('cmdline-file').first().click();
  await page.getByTestId('types-grid').locator('.ag-row[row-index="0"]').waitFor({ timeout: 60_000 });
  await page.getByTestId('analysis-state').waitFor({ state: 'detached', timeout: 60_000 });
  await page.getByTestId('view-sunburst').click();
  await page.getByTestId('sunburst-mode-type').click();
  const chart = page.getByTestId('sunburst-chart');
  await page.getByTestId('sunburst-view').and(page.locator('[data-mode="type"][data-loading="false"]')).waitFor();
  const label = chart.locator('svg text', { hasText: /^\[other roots\]$/ }).first();
  await label.waitFor();
  const box = (await label.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.waitForTimeout(600);
  await page.screenshot({ path: join(ROOT, 'docs', 'sunburst.png') });
} finally {
  await browser.close();
}

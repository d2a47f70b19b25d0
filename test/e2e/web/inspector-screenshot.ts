/**
 * Regenerates docs/inspector.png (the README picture of the object inspector) from a running
 * browser-mode server:
 *
 *   node bin/heapscope.mjs serve ../shared/fixtures/gcdump/perfview_test2.gcdump --list-only --no-open
 *   npx tsx test/e2e/web/inspector-screenshot.ts 'http://127.0.0.1:PORT/?token=…'
 *
 * Not a spec (Playwright only collects *.spec.ts): a picture is not a test.
 */
import { chromium } from '@playwright/test';
import { join } from 'node:path';
import { ROOT } from './helpers';

const url = process.argv[2];
if (!url) throw new Error('usage: tsx test/e2e/web/inspector-screenshot.ts URL');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, colorScheme: 'light' });
  await page.goto(url);
  await page.getByTestId('cmdline-file').nth(0).click();
  await page.getByTestId('analysis-state').waitFor({ state: 'detached', timeout: 60_000 });
  const grid = page.getByTestId('dominator-grid');
  await page.getByTestId('view-dominators').click();
  await grid.locator('.ag-row[row-index="0"] .chevron').click({ timeout: 30_000 });
  await grid.locator('.ag-row[row-index="1"] [col-id="object"]').dblclick();
  const panel = page.getByTestId('inspector');
  const out = panel.getByTestId('refs-outgoing');
  await out.getByTestId('ref-row').first().waitFor();
  // open the first reference that has references of its own
  const opener = out.locator('[data-testid="ref-row"][aria-expanded="false"]').first();
  if (await opener.count()) await opener.getByTestId('ref-toggle').click();
  await panel.getByTestId('refs-incoming').getByTestId('ref-row').first().waitFor();
  await page.mouse.move(0, 0);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(ROOT, 'docs', 'inspector.png') });
} finally {
  await browser.close();
}

/**
 * Regenerates docs/gc-timeline.png (the README's GC timeline picture) from a running
 * browser-mode server with the .NET Core 3.0 trace of the fixtures:
 *
 *   node bin/heapscope.mjs serve ../shared/fixtures/nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace --no-open
 *   npx tsx test/e2e/web/gc-timeline-screenshot.ts 'http://127.0.0.1:PORT/?token=…'
 *
 * It clicks a gen1 GC's bar (its row is selected below) and leaves the pointer on it so its
 * tooltip shows. Not a spec (Playwright only collects *.spec.ts): a picture is not a test.
 */
import { chromium } from '@playwright/test';
import { join } from 'node:path';
import { ROOT, cliJson, fixture } from './helpers';
import { barPoint } from './gc-chart-helpers';

const url = process.argv[2];
if (!url) throw new Error('usage: tsx test/e2e/web/gc-timeline-screenshot.ts URL');
const cli = cliJson<{ summary: { traceDurationMs: number }; gcs: { generation: number; startMs: number }[] }>(['gc-timeline', fixture('nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace')]);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, colorScheme: 'light' });
  await page.goto(url);
  await page.getByTestId('cmdline-file').first().click();
  await page.getByTestId('gc-chart').locator('svg').waitFor({ timeout: 60_000 });
  await page.getByTestId('timeline-grid').locator('.ag-row[row-index="0"]').waitFor();
  const g = cli.gcs.filter((e) => e.generation === 1)[2]!;
  const p = await barPoint(page, g.startMs, cli.summary.traceDurationMs);
  await page.mouse.click(p.x, p.y);
  await page.mouse.move(p.x, p.y - 1);
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(ROOT, 'docs', 'gc-timeline.png') });
} finally {
  await browser.close();
}

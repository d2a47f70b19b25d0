import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ROOT, SKIP, fixture, openApp, openListed, openPath, shot, waitForRows } from './helpers';

// Issue 16 in the browser: the Insights tab lists the inspections' findings once the analysis is
// done (the same figures as `heapscope inspect`, test/integration/cli-inspect.test.ts), and an
// example object opens in the inspector.
test.skip(!!SKIP, SKIP);

test('Insights on the bundled sample: the 150 ReportView subscribers, and an example opens the inspector', async ({ page }) => {
  await openApp(page);
  await openPath(page, join(ROOT, 'electron', 'resources', 'sample.gcdump'));
  // (no wait for the Types grid: Insights may replace it by itself, the test below)
  // event-handler leak + 3 accumulation points, counted on the tab once the analysis is done
  await expect(page.getByTestId('insights-count')).toHaveText('4', { timeout: 30_000 });
  await page.getByTestId('view-insights').click();
  const first = page.getByTestId('insight').first();
  await expect(first).toContainText('150 × SampleShop.ReportView kept alive only by delegates of SampleShop.PriceFeed', { timeout: 30_000 });
  await expect(first.locator('.figures')).toContainText('150 objects');
  await expect(first.locator('.figures b').nth(1)).toHaveAttribute('title', /166,800 bytes/);
  await expect(page.getByTestId('insights-view')).toContainText('Not checked: Duplicate strings need object contents');
  await shot(page, 'insights');
  await first.locator('[data-object-node]').first().dblclick();
  await expect(page.getByTestId('inspector')).toBeVisible();
  await expect(page.getByTestId('inspector')).toContainText('SampleShop.ReportView');
});

// Insights opens by itself when the inspections find something worth attention (the sample: an
// event-handler leak and a 32.90% accumulation point), and stays shut when they do not
// (perfview_test1: its largest accumulation point holds 4.12% of the reachable bytes).
test('Insights opens first on the sample, not on perfview_test1', async ({ page }) => {
  await openApp(page);
  await openPath(page, join(ROOT, 'electron', 'resources', 'sample.gcdump'));
  await expect(page.getByTestId('view-insights')).toHaveAttribute('aria-selected', 'true', { timeout: 30_000 });
  await expect(page.getByTestId('insight').first()).toContainText('150 × SampleShop.ReportView', { timeout: 30_000 });

  await openListed(page, 'perfview_test1.gcdump');
  await expect(page.getByTestId('insights-count')).toHaveText('7', { timeout: 30_000 });
  await expect(page.getByTestId('view-types')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('view-insights')).toHaveAttribute('aria-selected', 'false');
});

// Export report… in browser mode: a download of the same bytes `heapscope suspects --format html`
// prints, then with the other tab as the baseline the growth section is added.
test('Export report downloads the leak-suspects HTML, with the other tab as baseline', async ({ page }) => {
  const sample = join(ROOT, 'electron', 'resources', 'sample.gcdump');
  await openApp(page);
  await openListed(page, 'perfview_test1.gcdump');
  await expect(page.getByTestId('insights-count')).toHaveText('7', { timeout: 30_000 });
  await openPath(page, sample);
  await expect(page.getByTestId('view-insights')).toHaveAttribute('aria-selected', 'true', { timeout: 30_000 });
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-report').click()]);
  expect(dl.suggestedFilename()).toBe('sample-suspects.html');
  const html = readFileSync((await dl.path())!, 'utf8');
  expect(html).toBe(cliText(['suspects', sample, '--format', 'html']));
  await expect(page.getByTestId('message-info')).toContainText('Leak-suspects report (4 suspects, 11 findings');

  await page.getByTestId('report-baseline').selectOption({ label: 'perfview_test1.gcdump' });
  const [dl2] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-report').click()]);
  const withBase = readFileSync((await dl2.path())!, 'utf8');
  expect(withBase).toBe(cliText(['suspects', sample, '--baseline', fixture('gcdump/perfview_test1.gcdump'), '--format', 'html']));
  expect(withBase).toContain('<h2 id="growth">Growth since <span class="name">perfview_test1.gcdump</span></h2>');
});

function cliText(args: string[]): string {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'heapscope.mjs'), ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`heapscope ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

// The user can turn the switch off (the Insights view's checkbox, kept across restarts): the
// sample, which opens on Insights by default (test above), then stays on Types.
test('"Open Insights first" unchecked: the sample stays on Types, and the choice survives a reload', async ({ page }) => {
  await openApp(page);
  await openPath(page, join(ROOT, 'electron', 'resources', 'sample.gcdump'));
  await expect(page.getByTestId('view-insights')).toHaveAttribute('aria-selected', 'true', { timeout: 30_000 });
  const box = page.getByTestId('insights-first');
  await expect(box).toBeChecked();
  await box.uncheck();
  await page.getByTestId('tab-home').click();
  await openPath(page, join(ROOT, 'electron', 'resources', 'sample.gcdump'));
  await expect(page.getByTestId('insights-count')).toHaveText('4', { timeout: 30_000 });
  // the inspections are answered and counted; the tab did not move
  await expect(page.getByTestId('view-types')).toHaveAttribute('aria-selected', 'true');
  await waitForRows(page.getByTestId('types-grid'), 'type');
  await page.reload();
  await page.getByTestId('view-insights').click();
  await expect(page.getByTestId('insights-first')).not.toBeChecked();
});

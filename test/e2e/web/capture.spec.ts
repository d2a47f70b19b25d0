import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from '../../helpers/dotnet-app';
import { generateCfHeapLogText } from '../../tools/gen-cf-heaplog';
import { ROOT, SKIP, fixture, gridCells, openApp, openPath, parseCsv, shot, tabNamed, waitForRows } from './helpers';

// Live capture, live GC monitoring, CF heap logs with several AppDomains, and the CSV exports of
// the GC timeline and of paths-to-roots, in browser mode against real .NET programs
// (test/dotnet/LeakyApp: exactly 1,000 HeapscopeTest.LeakyPage objects alive; --churn = GC-busy).
test.skip(!!SKIP, SKIP);

/** The CLI as oracle, raw stdout (CSV). */
function cliText(args: string[]): string {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'heapscope.mjs'), ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`heapscope ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** Click an Export CSV button and read the downloaded file. */
async function download(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [dl] = await Promise.all([page.waitForEvent('download'), click()]);
  const path = await dl.path();
  return { name: dl.suggestedFilename(), text: readFileSync(path!, 'utf8') };
}

test.describe('live .NET processes', () => {
  test.skip(!HAS_DOTNET, DOTNET_MISSING);
  let leaky: RunningApp;
  let churn: RunningApp;

  test.beforeAll(async () => {
    test.setTimeout(300_000);
    const dll = buildDotnetApp('LeakyApp');
    [leaky, churn] = await Promise.all([startDotnetApp(dll), startDotnetApp(dll, ['--churn'])]);
  });
  test.afterAll(async () => {
    await Promise.all([leaky?.stop(), churn?.stop()]);
  });

  test('Capture from process…: pick LeakyApp, watch the capture, then its types grid shows 1,000 LeakyPage objects', async ({ page }) => {
    await openApp(page);
    await shot(page, '19-welcome-live-buttons');
    await page.getByTestId('capture-process').click();
    const picker = page.getByTestId('process-picker');
    await expect(picker).toBeVisible();
    const row = picker.locator(`[data-testid="process-row"][data-pid="${leaky.pid}"]`);
    await expect(row).toContainText('LeakyApp');
    await expect(row).toContainText('LeakyApp.dll');
    await row.click();
    await shot(page, '20-capture-picker');
    await picker.getByTestId('process-capture').click();
    await expect(picker).toHaveCount(0);

    const tab = tabNamed(page, `LeakyApp (pid ${leaky.pid})`);
    await expect(tab).toHaveClass(/active/);
    await expect(page.getByTestId('capture-progress').or(page.getByTestId('types-grid'))).toBeVisible();
    if (await page.getByTestId('capture-progress').isVisible()) await shot(page, '21-capture-progress');

    // LeakyApp's 1,000 pages are an event-handler leak: once analysed, the tab opens on Insights by itself
    await expect(page.getByTestId('view-insights')).toHaveAttribute('aria-selected', 'true', { timeout: 60_000 });
    await expect(page.getByTestId('insight').first()).toContainText('1,000 × HeapscopeTest.LeakyPage');
    await page.getByTestId('view-types').click();
    const types = page.getByTestId('types-grid');
    await waitForRows(types, 'type');
    await page.getByTestId('grid-filter').fill('HeapscopeTest.LeakyPage');
    await page.getByTestId('grid-filter').press('Enter');
    await expect(page.getByTestId('grid-total')).toHaveText('1 type');
    const [[name, count]] = await gridCells(types, ['type', 'count']);
    expect([name, count]).toEqual(['HeapscopeTest.LeakyPage', '1,000']);
    await expect(page.getByTestId('save-snapshot')).toBeVisible();
    await shot(page, '22-capture-types');

    // Save snapshot as… downloads the captured .gcdump: the CLI reads 1,000 LeakyPage objects from it
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('save-snapshot').click()]);
    expect(dl.suggestedFilename()).toMatch(new RegExp(`^LeakyApp_\\d{8}_\\d{6}_${leaky.pid}\\.gcdump$`));
    const copy = join(test.info().outputDir, dl.suggestedFilename());
    await dl.saveAs(copy);
    const report = JSON.parse(cliText(['report', copy, '--format', 'json'])) as { type: string; count: number }[];
    expect(report.find((r) => r.type === 'HeapscopeTest.LeakyPage')?.count).toBe(1000);
  });

  test('Monitor GCs…: a churning app fills the live chart and grid; Stop; the CSV export holds the rows the grid shows', async ({ page }) => {
    await openApp(page);
    await page.getByTestId('monitor-gcs').click();
    const picker = page.getByTestId('process-picker');
    await picker.locator(`[data-testid="process-row"][data-pid="${churn.pid}"]`).dblclick();
    const view = page.getByTestId('monitor-view');
    await expect(view).toBeVisible();
    await expect(page.getByTestId('monitor-state')).toHaveText('live', { timeout: 15_000 });
    const grid = page.getByTestId('monitor-grid');
    await waitForRows(grid, 'index');
    await expect(view.locator('svg rect.pause').first()).toBeVisible();
    await expect(page.getByTestId('monitor-summary')).toContainText(/GCs \(gen0/);
    await page.waitForTimeout(1500); // a few more batches, so the chart has something to show
    await shot(page, '23-monitor-live');

    // Pause freezes the rows shown while GCs keep arriving
    await page.getByTestId('monitor-pause').click();
    const frozen = await gridCells(grid, ['index'], 5);
    await expect(page.getByTestId('monitor-state')).toContainText(/paused · [1-9][\d,]* new GCs held/, { timeout: 10_000 });
    expect(await gridCells(grid, ['index'], 5)).toEqual(frozen);
    await page.getByTestId('monitor-pause').click();

    await page.getByTestId('monitor-stop').click();
    await expect(page.getByTestId('monitor-state')).toHaveText('stopped');
    await expect(page.getByTestId('monitor-pause')).toHaveCount(0);
    const total = Number((await page.getByTestId('monitor-summary').locator('b').first().textContent())!.replace(/,/g, ''));
    expect(total).toBeGreaterThan(0);
    await shot(page, '24-monitor-stopped');

    const csv = await download(page, () => view.getByTestId('export-csv').click());
    expect(csv.name).toBe(`LeakyApp-${churn.pid}-gc-monitor.csv`);
    const rows = parseCsv(csv.text);
    expect(rows[0]).toEqual(['number', 'generation', 'type', 'reason', 'startMs', 'pauseMs', 'durationMs', 'gen0After', 'gen1After', 'gen2After', 'lohAfter', 'pohAfter', 'promotedBytes', 'mode']);
    expect(rows.length - 1).toBe(total);
    // every row on screen (newest first) is in the CSV with the same generation, kind and reason
    const shown = await gridCells(grid, ['index', 'generation', 'kind', 'reason'], 30);
    expect(shown.length).toBeGreaterThan(0);
    const byNumber = new Map(rows.slice(1).map((r) => [r[0], r]));
    for (const [num, gen, kind, reason] of shown) {
      const r = byNumber.get(num.replace(/,/g, ''));
      expect(r, `GC ${num} in the CSV`).toBeDefined();
      expect([r![1], r![2], r![3]]).toEqual([gen, kind, reason]);
    }
    expect(Number(shown[0][0].replace(/,/g, ''))).toBe(Math.max(...rows.slice(1).map((r) => Number(r[0]))));
  });

  test('a process that exits after it was listed: the capture fails with a clear message, and the list no longer shows it', async ({ page }) => {
    const gone = await startDotnetApp(buildDotnetApp('LeakyApp'));
    await openApp(page);
    await page.getByTestId('capture-process').click();
    const picker = page.getByTestId('process-picker');
    const row = picker.locator(`[data-testid="process-row"][data-pid="${gone.pid}"]`);
    await row.click();
    await gone.stop();
    await picker.getByTestId('process-capture').click();
    await expect(page.getByTestId('message-error').or(page.getByTestId('load-error'))).toContainText(/no process|exited|no \.NET diagnostics/i, { timeout: 20_000 });
    await shot(page, '25-capture-gone');
    await page.getByTestId('tab-home').click();
    await page.getByTestId('capture-process').click();
    await expect(picker.getByTestId('process-row').first()).toBeVisible();
    await expect(picker.locator(`[data-testid="process-row"][data-pid="${gone.pid}"]`)).toHaveCount(0);
    await expect(picker.locator(`[data-testid="process-row"][data-pid="${leaky.pid}"]`)).toHaveCount(1);
    await page.keyboard.press('Escape');
    await expect(picker).toHaveCount(0);
  });
});

test('a CF heap log with two AppDomains opens as two tabs, each with its own objects', async ({ page }) => {
  const { text, sections } = generateCfHeapLogText({ objects: 1500, seed: 21 });
  const log = join(process.env.HEAPSCOPE_E2E_WORK!, 'bubble.log');
  writeFileSync(log, text);
  // the generated heap's big collections are accumulation points: stay on Types
  await openApp(page, { insightsFirst: false });
  await openPath(page, log);
  const first = tabNamed(page, `bubble.log — ${sections[0].name}`);
  const second = tabNamed(page, `bubble.log — ${sections[1].name}`);
  await expect(first).toHaveCount(1, { timeout: 30_000 });
  await expect(second).toHaveCount(1, { timeout: 30_000 });
  await expect(first).toHaveClass(/active/);
  for (const [tab, s] of [
    [first, sections[0]],
    [second, sections[1]],
  ] as const) {
    await tab.click();
    await waitForRows(page.getByTestId('types-grid'), 'type');
    await expect(page.getByTestId('status-bar')).toContainText(`${s.objects.toLocaleString('en-US')} objects`);
  }
  await shot(page, '26-cf-two-domains');
});

test('GC timeline CSV of a trace is byte for byte `heapscope gc-timeline --format csv`', async ({ page }) => {
  const trace = fixture('nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace');
  const cli = cliText(['gc-timeline', trace, '--format', 'csv']);
  await openApp(page);
  await openPath(page, trace);
  await expect(page.getByTestId('view-timeline')).toHaveClass(/on/, { timeout: 30_000 });
  const csv = await download(page, () => page.getByTestId('timeline-view').getByTestId('export-csv').click());
  expect(csv.name).toBe('eventpipe-dotnetcore3.0-win-x64-objver4-gc-timeline.csv');
  expect(csv.text).toBe(cli);
  await shot(page, '27-gc-timeline-export');
});

test('paths-to-roots CSV of a type is byte for byte `heapscope paths --type … --format csv`', async ({ page }) => {
  const dump = fixture('gcdump/perfview_test2.gcdump');
  await openApp(page);
  await openPath(page, dump);
  const types = page.getByTestId('types-grid');
  await waitForRows(types, 'type');
  await expect(page.getByTestId('analysis-state')).toHaveCount(0, { timeout: 30_000 });
  await waitForRows(types, 'retainedSize');
  const [[name]] = await gridCells(types, ['type']);
  await types.locator('.ag-row[row-index="0"] [col-id="type"]').click();
  await page.getByTestId('type-paths').click();
  await expect(page.getByTestId('paths-tree').getByTestId('path-row').first()).toContainText(name, { timeout: 30_000 });
  const csv = await download(page, () => page.getByTestId('paths-view').getByTestId('export-csv').click());
  expect(csv.text).toBe(cliText(['paths', dump, '--type', name, '--format', 'csv']));
  expect(csv.text.split('\r\n')[0]).toBe('id,parent,depth,count,type,endsHere,cutOff,omittedBranches,omittedCount');
});

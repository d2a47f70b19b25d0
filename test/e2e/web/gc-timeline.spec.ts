import { expect, test, type Page } from '@playwright/test';
import { SKIP, cliJson, fixture, openApp, openPath, shot } from './helpers';
import { barPoint, chart, chartTexts, shapesFilled, writeEarlyGcTrace, writeManyGcTrace } from './gc-chart-helpers';

// The GC timeline chart (issue 14 item 7): axes with units over the whole trace, zoom, a bar's
// click selecting its row and a row outlining its bar, tooltips, a height that follows the window.
test.skip(!!SKIP, SKIP);

const TRACE30 = 'nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace';
interface CliGc {
  number: number;
  generation: number;
  startMs: number;
}
interface CliTimeline {
  summary: { gcCount: number; byGeneration: number[]; traceDurationMs: number };
  gcs: CliGc[];
}

async function openTimeline(page: Page, path: string): Promise<void> {
  await openApp(page);
  await openPath(page, path);
  await expect(page.getByTestId('view-timeline')).toHaveClass(/on/, { timeout: 30_000 });
  await expect(chart(page).locator('svg')).toBeVisible();
  await expect(page.getByTestId('timeline-grid').locator('.ag-row[row-index="0"]')).toBeVisible();
}

test('GCs in the first ms of a 7.43 s trace: the time axis spans the trace, in seconds, axes named with units', async ({ page }) => {
  const trace = writeEarlyGcTrace(process.env.HEAPSCOPE_E2E_WORK!);
  await openTimeline(page, trace);
  const texts = await chartTexts(page);
  expect(texts).toEqual(expect.arrayContaining(['time since trace start (s)', 'heap after GC (MB)', 'GC pause (ms)']));
  // ticks 0…7 s and the trace's end, not 0…1 ms
  expect(texts).toEqual(expect.arrayContaining(['0', '1', '2', '3', '4', '5', '6', '7', '7.43']));
  // one bar each: gen0, gen1, background gen2 (+1: each legend icon)
  expect(await shapesFilled(page, '--bar-1')).toBe(2);
  expect(await shapesFilled(page, '--bar-2')).toBe(2);
  expect(await shapesFilled(page, '--error')).toBe(2);
  // zooming into the first ms switches the axis to ms
  const box = (await chart(page).boundingBox())!;
  await page.mouse.move(box.x + 71, box.y + box.height / 2);
  for (let i = 0; i < 40 && !(await chartTexts(page)).includes('time since trace start (ms)'); i++) await page.mouse.wheel(0, -600);
  expect(await chartTexts(page)).toContain('time since trace start (ms)');
  await expect(page.getByTestId('timeline-zoom')).toContainText('of 7.43 s');
});

test('3.0 trace: bars per generation match the CLI, wheel zoom narrows the axis, Reset zoom restores it', async ({ page }) => {
  const trace = fixture(TRACE30);
  const cli = cliJson<CliTimeline>(['gc-timeline', trace]);
  await openTimeline(page, trace);
  expect(await shapesFilled(page, '--bar-1')).toBe(cli.summary.byGeneration[0] + 1);
  expect(await shapesFilled(page, '--bar-2')).toBe(cli.summary.byGeneration[1] + 1);
  const texts = await chartTexts(page);
  expect(texts).toEqual(expect.arrayContaining(['0', '10', '20', '30', String(Math.round(cli.summary.traceDurationMs / 100) / 10)])); // the end: 38.6
  await expect(page.getByTestId('timeline-zoom')).toHaveCount(0);
  const box = (await chart(page).boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -500);
  await page.mouse.wheel(0, -500);
  const zoom = page.getByTestId('timeline-zoom');
  await expect(zoom).toContainText('showing');
  await expect(zoom).toContainText('of 38.56 s');
  // fewer bars in view than GCs in the trace
  await expect.poll(() => shapesFilled(page, '--bar-1')).toBeLessThan(cli.summary.byGeneration[0] + 1);
  await shot(page, '16-gc-timeline-zoomed');
  await page.getByTestId('timeline-zoom-reset').click();
  await expect(zoom).toHaveCount(0);
  await expect.poll(() => shapesFilled(page, '--bar-1')).toBe(cli.summary.byGeneration[0] + 1);
});

test('a bar click selects its GC row, its tooltip names the GC; a selected row outlines its bar', async ({ page }) => {
  const trace = fixture(TRACE30);
  const cli = cliJson<CliTimeline>(['gc-timeline', trace]);
  await openTimeline(page, trace);
  const grid = page.getByTestId('timeline-grid');
  // a gen1 GC: drawn above the gen0 bars around it
  const g = cli.gcs.filter((e) => e.generation === 1)[2];
  const outlined = () => shapesFilled(page, '--fg');
  expect(await outlined()).toBe(0);
  const p = await barPoint(page, g.startMs, cli.summary.traceDurationMs);
  await page.mouse.move(p.x, p.y);
  await expect(page.locator('.gc-chart div').filter({ hasText: `GC #${g.number} · gen1` }).first()).toBeVisible();
  await page.mouse.click(p.x, p.y);
  const selectedRow = grid.locator('.ag-row-selected');
  await expect(selectedRow.locator('[col-id="index"]')).toHaveText(g.number.toLocaleString('en-US'));
  await expect(chart(page)).toHaveAttribute('data-selected', String(cli.gcs.indexOf(g)));
  await shot(page, '17-gc-timeline-bar-selected');

  // the other way: click another row (the table scrolled to GC #N; rows near it are drawn) → one outlined bar (the --fg fill)
  expect(await outlined()).toBe(1);
  const other = grid.locator('.ag-row:not(.ag-row-selected)').first();
  const otherIndex = Number(await other.getAttribute('row-index'));
  const otherGc = (await other.locator('[col-id="index"]').textContent())!.trim();
  await other.locator('[col-id="reason"]').click();
  await expect(selectedRow.locator('[col-id="index"]')).toHaveText(otherGc);
  await expect(chart(page)).toHaveAttribute('data-selected', String(otherIndex));
  expect(cli.gcs[otherIndex].number.toLocaleString('en-US')).toBe(otherGc);
  await expect.poll(outlined).toBe(1);
});

test('the chart follows the window: height a share of it, width all of it', async ({ page }) => {
  await openTimeline(page, fixture(TRACE30));
  const size = () => chart(page).evaluate((el) => ({ h: el.getBoundingClientRect().height, w: el.getBoundingClientRect().width, svgH: el.querySelector('svg')!.getBoundingClientRect().height, svgW: el.querySelector('svg')!.getBoundingClientRect().width }));
  const small = await size();
  expect(small.svgH).toBe(small.h);
  expect(small.svgW).toBe(small.w);
  await page.setViewportSize({ width: 1000, height: 1100 });
  await expect.poll(async () => (await size()).svgH).toBeGreaterThan(small.h + 100);
  const big = await size();
  expect(big.svgW).toBe(big.w);
  expect(big.w).toBeLessThan(small.w - 250);
  // 42 % of the window's height (CSS clamp(240px, 42vh, 720px)), minus the box's padding and border
  const box = await page.getByTestId('timeline-chart-box').evaluate((el) => el.getBoundingClientRect().height);
  expect(Math.round(box)).toBe(Math.round(1100 * 0.42));
});

test('the chart follows the theme: axis texts take the dark theme\'s colour', async ({ page }) => {
  await openTimeline(page, fixture(TRACE30));
  const axisFill = () => chart(page).evaluate((el) => Array.from(el.querySelectorAll('text')).find((t) => t.textContent === 'GC pause (ms)')?.getAttribute('fill') ?? '');
  const fg = () => page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--fg').trim());
  const light = await fg();
  expect(await axisFill()).toBe(light);
  await page.getByTestId('theme-toggle').click(); // system (light) → light
  await page.getByTestId('theme-toggle').click(); // light → dark
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  const dark = await fg();
  expect(dark).not.toBe(light);
  await expect.poll(axisFill).toBe(dark);
  await shot(page, '20-gc-timeline-dark');
});

test('6,000 GCs draw on a canvas; a bar click still selects its row', async ({ page }) => {
  const trace = writeManyGcTrace(process.env.HEAPSCOPE_E2E_WORK!, 6000);
  const cli = cliJson<CliTimeline>(['gc-timeline', trace]);
  expect(cli.summary.gcCount).toBe(6000);
  await openApp(page);
  await openPath(page, trace);
  await expect(page.getByTestId('view-timeline')).toHaveClass(/on/, { timeout: 30_000 });
  await expect(chart(page)).toHaveAttribute('data-renderer', 'canvas');
  await expect(chart(page).locator('canvas').first()).toBeVisible();
  await expect(page.getByTestId('timeline-grid').locator('.ag-row[row-index="0"]')).toBeVisible();
  // GC #3000 is a gen2 GC: drawn above gen0/gen1, 5 s (9 px) from the next gen2
  const g = cli.gcs.find((e) => e.number === 3000)!;
  expect(g.generation).toBe(2);
  const p = await barPoint(page, g.startMs, cli.summary.traceDurationMs);
  await page.mouse.click(p.x, p.y);
  await expect(page.getByTestId('timeline-grid').locator('.ag-row-selected [col-id="index"]')).toHaveText('3,000');
  await expect(chart(page)).toHaveAttribute('data-selected', '2999');
});

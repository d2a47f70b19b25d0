import { expect, test, type Locator, type Page } from '@playwright/test';
import { SKIP, cellBytes, cliJson, fixture, gridCells, num, openApp, openListed, waitForRows, type CliTypeRow } from './helpers';

// Issue 14 items 1 and 3 and Back/Forward, in the browser on real dumps:
// - Paths to roots shows what was selected last, an object or a type, and says which;
// - the types grid keeps its scroll position and selection when retained sizes arrive and after
//   "Calculate exact", and its header shows the sort the worker really applies;
// - Back/Forward (Alt+←/→, toolbar arrows) walk views and selections of a tab.
test.skip(!!SKIP, SKIP);

const TEST1 = 'perfview_test1.gcdump';
const ANDROID = 'mono_android_20231108_150515_31024.gcdump';

/**
 * Holds back the news that the dominator analysis is done: `summary-updated` events are kept, and
 * a summary that already says "done" (the analysis can finish before the tab asks) is passed on as
 * "running". `release()` then delivers the done summaries, as the back end would have.
 */
async function holdAnalysis(page: Page): Promise<{ release: () => void }> {
  const held: string[] = [];
  let client: { send: (m: string) => void } | null = null;
  let holding = true;
  const findDone = (x: unknown): { sessionId: string; analysis: { state: string } } | null => {
    if (!x || typeof x !== 'object') return null;
    const o = x as Record<string, unknown>;
    if (typeof o.sessionId === 'string' && o.analysis && typeof o.analysis === 'object' && (o.analysis as { state?: string }).state === 'done') return o as never;
    for (const v of Object.values(o)) {
      const f = findDone(v);
      if (f) return f;
    }
    return null;
  };
  await page.routeWebSocket(/.*/, (ws) => {
    const server = ws.connectToServer();
    client = ws;
    ws.onMessage((m) => server.send(m));
    server.onMessage((m) => {
      if (!holding || typeof m !== 'string') return ws.send(m);
      const msg = JSON.parse(m) as { type: string; name?: string; payload?: unknown };
      if (msg.type === 'event' && msg.name === 'summary-updated') return void held.push(m);
      const done = findDone(msg);
      if (done) {
        held.push(JSON.stringify({ type: 'event', name: 'summary-updated', payload: { sessionId: done.sessionId, summary: structuredClone(done) } }));
        done.analysis.state = 'running';
        return ws.send(JSON.stringify(msg));
      }
      ws.send(m);
    });
  });
  return {
    release: () => {
      holding = false;
      for (const m of held.splice(0)) client?.send(m);
    },
  };
}

const header = (grid: Locator, col: string) => grid.locator(`.ag-header-cell[col-id="${col}"]`);
/** The grid's vertical scroller (found by behaviour, not by AG Grid's class names): read or set. */
const scroller = (grid: Locator, to?: number) =>
  grid.evaluate((el, to) => {
    const s = Array.from(el.querySelectorAll<HTMLElement>('*')).find((e) => e.scrollHeight > e.clientHeight + 100 && /auto|scroll/.test(getComputedStyle(e).overflowY));
    if (!s) throw new Error('no vertical scroller in the grid');
    if (to !== undefined) s.scrollTop = to;
    return s.scrollTop;
  }, to);
const scrollTop = (grid: Locator) => scroller(grid);

test('Paths to roots explains the last selection: an object from Instances, then a type from Types', async ({ page }) => {
  await openApp(page);
  await openListed(page, TEST1);
  const types = page.getByTestId('types-grid');
  await waitForRows(types, 'type');
  await expect(page.getByTestId('analysis-state')).toHaveCount(0, { timeout: 30_000 });
  await expect(header(types, 'retainedSize')).toHaveAttribute('aria-sort', 'descending');
  await waitForRows(types, 'retainedSize');
  await expect(types.locator('.ag-row[row-index="1"] [col-id="type"]')).not.toHaveText('');
  const [first, second] = (await gridCells(types, ['type'], 2)).map((r) => r[0]);
  await types.locator('.ag-row[row-index="0"] [col-id="type"]').dblclick();
  const inst = page.getByTestId('instances-grid');
  await waitForRows(inst, 'address');
  const address = (await gridCells(inst, ['address'], 1))[0][0];
  await inst.locator('.ag-row[row-index="0"] [col-id="address"]').click();

  await page.getByTestId('view-paths').click();
  await expect(page.getByTestId('paths-object')).toHaveClass(/\bon\b/);
  await expect(page.getByTestId('paths-view').locator('.target')).toHaveText(`${first} @ ${address}`);
  await expect(page.getByTestId('path-row').first()).toBeVisible({ timeout: 30_000 });

  await page.getByTestId('view-types').click();
  await waitForRows(types, 'type');
  await types.locator('.ag-row[row-index="1"] [col-id="type"]').click();
  await page.getByTestId('view-paths').click();
  await expect(page.getByTestId('paths-type')).toHaveClass(/\bon\b/);
  await expect(page.getByTestId('paths-view').locator('.target')).toHaveText(`all objects of ${second}`);

  // the dominator tree highlights the selected object when it opens: that is not a new selection
  await page.getByTestId('view-dominators').click();
  await expect(page.getByTestId('dominators-view').locator('.ag-row-selected')).toHaveCount(1, { timeout: 30_000 });
  await page.getByTestId('view-paths').click();
  await expect(page.getByTestId('paths-view').locator('.target')).toHaveText(`all objects of ${second}`);
  // Back undoes the views visited, one per press
  await page.keyboard.press('Alt+ArrowLeft');
  await expect(page.getByTestId('dominators-view')).toBeVisible();
  await page.keyboard.press('Alt+ArrowLeft');
  await expect(page.getByTestId('paths-view').locator('.target')).toHaveText(`all objects of ${second}`);
});

test('Back within a grid moves the highlighted row back to the previous selection', async ({ page }) => {
  await openApp(page);
  await openListed(page, TEST1);
  const types = page.getByTestId('types-grid');
  await expect(page.getByTestId('analysis-state')).toHaveCount(0, { timeout: 30_000 });
  await expect(header(types, 'retainedSize')).toHaveAttribute('aria-sort', 'descending');
  await waitForRows(types, 'retainedSize');
  const [first, second] = (await gridCells(types, ['type'], 2)).map((r) => r[0]);
  await types.locator('.ag-row[row-index="0"] [col-id="type"]').click();
  await types.locator('.ag-row[row-index="1"] [col-id="type"]').click();
  await expect(page.getByTestId('types-view').locator('.sel')).toHaveText(second);
  await page.keyboard.press('Alt+ArrowLeft');
  await expect(page.getByTestId('types-view').locator('.sel')).toHaveText(first);
  await expect(types.locator('.ag-row[row-index="0"]')).toHaveClass(/ag-row-selected/);
  await expect(types.locator('.ag-row[row-index="1"]')).not.toHaveClass(/ag-row-selected/);
  await page.keyboard.press('Alt+ArrowRight');
  await expect(types.locator('.ag-row[row-index="1"]')).toHaveClass(/ag-row-selected/);
  await expect(types.locator('.ag-row[row-index="0"]')).not.toHaveClass(/ag-row-selected/);
});

test('Back/Forward: Alt+←/→ and the toolbar arrows walk views and selections', async ({ page }) => {
  await openApp(page);
  await openListed(page, TEST1);
  const types = page.getByTestId('types-grid');
  await expect(page.getByTestId('analysis-state')).toHaveCount(0, { timeout: 30_000 });
  await expect(header(types, 'retainedSize')).toHaveAttribute('aria-sort', 'descending');
  await waitForRows(types, 'retainedSize');
  await expect(types.locator('.ag-row[row-index="1"] [col-id="type"]')).not.toHaveText('');
  await expect(page.getByTestId('nav-back')).toBeDisabled();
  const first = (await gridCells(types, ['type'], 1))[0][0];
  await types.locator('.ag-row[row-index="0"] [col-id="type"]').click(); // step 1: select
  await page.getByTestId('type-paths').click(); // step 2: paths of the type
  await expect(page.getByTestId('paths-view').locator('.target')).toHaveText(`all objects of ${first}`);
  await page.getByTestId('view-summary').click(); // step 3

  await page.keyboard.press('Alt+ArrowLeft');
  await expect(page.getByTestId('paths-view').locator('.target')).toHaveText(`all objects of ${first}`);
  await page.keyboard.press('Alt+ArrowLeft');
  await expect(page.getByTestId('types-view')).toBeVisible();
  await expect(page.getByTestId('types-view')).toContainText(first); // the toolbar names the selected type
  await expect(types.locator('.ag-row[row-index="0"]')).toHaveClass(/ag-row-selected/); // the grid shows it too
  await page.getByTestId('nav-back').click();
  await expect(page.getByTestId('types-view')).toBeVisible();
  await expect(page.getByTestId('type-paths')).toHaveCount(0); // no selection any more
  await expect(types.locator('.ag-row-selected')).toHaveCount(0);
  await expect(page.getByTestId('nav-back')).toBeDisabled();

  await page.getByTestId('nav-forward').click();
  await expect(page.getByTestId('type-paths')).toBeVisible();
  await page.keyboard.press('Alt+ArrowRight');
  await expect(page.getByTestId('paths-view')).toBeVisible();
  await page.keyboard.press('Alt+ArrowRight');
  await expect(page.getByTestId('view-summary')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('nav-forward')).toBeDisabled();
  // mouse buttons 4 and 5 (MouseEvent.button 3 and 4; Playwright's mouse has no such buttons)
  const mouse = (button: number) =>
    page.getByTestId('tab-panel').evaluate((el, button) => {
      for (const type of ['mousedown', 'mouseup']) el.dispatchEvent(new MouseEvent(type, { button, bubbles: true, cancelable: true }));
    }, button);
  await mouse(3);
  await expect(page.getByTestId('paths-view')).toBeVisible();
  await mouse(4);
  await expect(page.getByTestId('view-summary')).toHaveAttribute('aria-selected', 'true');
  // the browser's own history was not used: still the app, same tab
  await expect(page.getByTestId('tab-panel')).toBeVisible();
});

test('while retained sizes are computed the header shows the name order it serves, then Retained ↓', async ({ page }) => {
  const cli = cliJson<CliTypeRow[]>(['report', fixture(`gcdump/${ANDROID}`), '--sort', 'retained']);
  const hold = await holdAnalysis(page);
  await openApp(page);
  await openListed(page, ANDROID);
  const grid = page.getByTestId('types-grid');
  await waitForRows(grid, 'type');
  await expect(header(grid, 'type')).toHaveAttribute('aria-sort', 'ascending');
  await expect(header(grid, 'retainedSize')).not.toHaveAttribute('aria-sort', 'descending');
  await expect(page.getByTestId('sort-waiting')).toBeVisible();
  const names = (await gridCells(grid, ['type'], 20)).map((r) => r[0]);
  expect(names).toEqual(cli.map((r) => r.type).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, 20));
  // select the one of these that lands lowest once sorted by retained size
  const pick = names.reduce((best, n) => (cli.findIndex((r) => r.type === n) > cli.findIndex((r) => r.type === best) ? n : best));
  const to = cli.findIndex((r) => r.type === pick);
  expect(to).toBeGreaterThan(100); // far below the first screen
  await grid.locator(`.ag-row[row-index="${names.indexOf(pick)}"] [col-id="type"]`).click();

  hold.release();
  await expect(header(grid, 'retainedSize')).toHaveAttribute('aria-sort', 'descending');
  await expect(page.getByTestId('sort-waiting')).toHaveCount(0);
  // the selected type is scrolled into view at its new row, still selected
  const row = grid.locator(`.ag-row[row-index="${to}"]`);
  await expect(row.locator('[col-id="type"]')).toHaveText(pick);
  await expect(row).toBeInViewport();
  await expect(row).toHaveClass(/ag-row-selected/);
  await expect.poll(() => cellBytes(grid, to, 'retainedSize')).toBe(cli[to].retainedSize);
  await scroller(grid, 0);
  await expect.poll(() => cellBytes(grid, 0, 'retainedSize')).toBe(cli[0].retainedSize);
  await expect.poll(async () => (await gridCells(grid, ['type'], 1))[0][0]).toBe(cli[0].type);
});

test('retained sizes arriving keep the scroll position and the selected row', async ({ page }) => {
  const cli = cliJson<CliTypeRow[]>(['report', fixture(`gcdump/${ANDROID}`), '--sort', 'count']);
  const hold = await holdAnalysis(page);
  await openApp(page);
  await openListed(page, ANDROID);
  const grid = page.getByTestId('types-grid');
  await waitForRows(grid, 'type');
  await expect(page.getByTestId('analysis-state')).toBeVisible(); // held back: still "computing"
  await header(grid, 'count').locator('.ag-header-cell-label').click();
  await expect(header(grid, 'count')).toHaveAttribute('aria-sort', 'descending');
  await expect.poll(async () => num((await gridCells(grid, ['count'], 1))[0][0])).toBe(cli[0].count);
  await scroller(grid, 60 * 26);
  const row = grid.locator('.ag-row[row-index="70"]');
  await expect(row.locator('[col-id="type"]')).not.toHaveText('');
  const name = (await row.locator('[col-id="type"]').textContent())!.trim();
  await row.locator('[col-id="type"]').click();
  await expect(row).toHaveClass(/ag-row-selected/);
  const top = await scrollTop(grid);
  expect(top).toBe(60 * 26);

  hold.release();
  await expect(page.getByTestId('analysis-state')).toHaveCount(0);
  await expect.poll(() => cellBytes(grid, 70, 'retainedSize')).toBeGreaterThan(0);
  expect(await scrollTop(grid)).toBe(top);
  await expect(row).toHaveClass(/ag-row-selected/);
  await expect(row.locator('[col-id="type"]')).toHaveText(name);
  await expect(header(grid, 'count')).toHaveAttribute('aria-sort', 'descending');
});

test('"Calculate exact" keeps the scroll position and the selected row', async ({ page }) => {
  await openApp(page);
  await openListed(page, ANDROID);
  const grid = page.getByTestId('types-grid');
  await expect(page.getByTestId('analysis-state')).toHaveCount(0, { timeout: 30_000 });
  await expect(header(grid, 'retainedSize')).toHaveAttribute('aria-sort', 'descending');
  await waitForRows(grid, 'retainedSize');
  await scroller(grid, 40 * 26);
  const row = grid.locator('.ag-row[row-index="45"]');
  await expect(row.locator('[col-id="retainedSize"]')).not.toHaveText('');
  await row.locator('[col-id="type"]').click();
  await expect(row).toHaveClass(/ag-row-selected/);
  const top = await scrollTop(grid);
  await page.getByTestId('set-retained-one').click();
  await expect.poll(() => cellBytes(grid, 45, 'setRetainedSize'), { timeout: 30_000 }).toBeGreaterThan(0);
  expect(await scrollTop(grid)).toBe(top);
  await expect(row).toHaveClass(/ag-row-selected/);
});

import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { SKIP, cellBytes, cliJson, fixture, gridCells, num, openApp, openListed, parseCsv, shot, waitForRetainedOrder, waitForRows, type CliTypeRow } from './helpers';

// Types grid against the CLI: the same worker code answers both, but through different doors
// (WebSocket + windowed rows vs. one JSON dump), so equal numbers check the whole browser path.
test.skip(!!SKIP, SKIP);

const TEST1 = 'perfview_test1.gcdump';

test.describe('types grid on perfview_test1', () => {
  let cli: CliTypeRow[] = [];
  test.beforeAll(() => {
    cli = cliJson<CliTypeRow[]>(['report', fixture(`gcdump/${TEST1}`), '--sort', 'retained']);
  });

  test('open a snapshot: largest retained type first, status bar totals', async ({ page }) => {
    await openApp(page);
    await shot(page, '01-welcome');
    await openListed(page, TEST1);
    const grid = page.getByTestId('types-grid');
    await waitForRows(grid, 'type');
    // retained sizes need the dominator analysis; wait until the first row shows one
    await expect(page.getByTestId('analysis-state')).toHaveCount(0, { timeout: 30_000 });
    await waitForRows(grid, 'retainedSize');
    await waitForRetainedOrder(page, grid);
    const top = (await gridCells(grid, ['type', 'count']))[0];
    const maxRetained = Math.max(...cli.map((r) => r.retainedSize ?? 0));
    expect(await cellBytes(grid, 0, 'retainedSize')).toBe(maxRetained);
    expect(cli.find((r) => r.type === top[0])?.retainedSize).toBe(maxRetained);
    await expect(page.getByTestId('grid-total')).toHaveText(`${cli.length.toLocaleString('en-US')} types`);
    await expect(page.getByTestId('status-bar')).toContainText('types');
    await shot(page, '02-types-grid');
  });

  test('sort by count (server-side) and by name', async ({ page }) => {
    await openApp(page);
    await openListed(page, TEST1);
    const grid = page.getByTestId('types-grid');
    await waitForRows(grid, 'type');
    await grid.locator('.ag-header-cell[col-id="count"] .ag-header-cell-label').click();
    await expect(grid.locator('.ag-header-cell[col-id="count"]')).toHaveAttribute('aria-sort', 'descending');
    await waitForRows(grid, 'count');
    const maxCount = Math.max(...cli.map((r) => r.count));
    await expect.poll(async () => num((await gridCells(grid, ['count']))[0][0])).toBe(maxCount);
    // The grid may still be swapping in the sorted block right after its first row changed: poll.
    await expect
      .poll(async () => {
        const counts = (await gridCells(grid, ['count'], 30)).map((r) => num(r[0]));
        return counts.length > 1 && counts.every((c, i) => i === 0 || counts[i - 1] >= c);
      })
      .toBe(true);
    await grid.locator('.ag-header-cell[col-id="count"] .ag-header-cell-label').click();
    await expect(grid.locator('.ag-header-cell[col-id="count"]')).toHaveAttribute('aria-sort', 'ascending');
    await expect.poll(async () => num((await gridCells(grid, ['count']))[0][0])).toBe(Math.min(...cli.map((r) => r.count)));
    await shot(page, '03-types-sorted-by-count');
  });

  test('filter narrows the rows to matching types', async ({ page }) => {
    await openApp(page);
    await openListed(page, TEST1);
    const grid = page.getByTestId('types-grid');
    await waitForRows(grid, 'type');
    await page.keyboard.press('Control+f');
    await expect(page.getByTestId('grid-filter')).toBeFocused();
    await page.keyboard.type('htmlimage');
    const expected = cli.filter((r) => r.type.toLowerCase().includes('htmlimage'));
    expect(expected.length).toBeGreaterThan(1);
    await expect(page.getByTestId('grid-total')).toHaveText(`${expected.length} types`);
    const names = (await gridCells(grid, ['type'])).map((r) => r[0]);
    expect(names.sort()).toEqual(expected.map((r) => r.type).sort());
    await shot(page, '04-types-filtered');
  });

  test('double-click a type lists its instances', async ({ page }) => {
    await openApp(page);
    await openListed(page, TEST1);
    const grid = page.getByTestId('types-grid');
    await waitForRows(grid, 'type');
    // The default order is by retained size, which arrives with the dominator analysis and then
    // reorders the rows: wait until row 0's retained size is drawn (not '' or the '…' placeholder)
    // so the row we read is the row we double-click.
    await expect
      .poll(async () => {
        const c = (await gridCells(grid, ['count', 'retainedSize']))[0];
        return c !== undefined && c[0] !== '' && c[1] !== '' && c[1] !== '…';
      })
      .toBe(true);
    const [name, count] = (await gridCells(grid, ['type', 'count']))[0];
    await grid.locator('.ag-row[row-index="0"] [col-id="type"]').dblclick();
    const inst = page.getByTestId('instances-grid');
    await waitForRows(inst, 'address');
    await expect(page.getByTestId('instances-view')).toContainText(`Instances of ${name}`);
    await expect(page.getByTestId('grid-total')).toHaveText(`${count} objects`);
    const sizes = await gridCells(inst, ['address', 'size']);
    expect(sizes).toHaveLength(num(count));
    let sum = 0;
    for (let i = 0; i < sizes.length; i++) sum += await cellBytes(inst, i, 'size');
    expect(sum).toBe(cli.find((r) => r.type === name)!.shallowSize);
    expect(sizes[0][0]).toMatch(/^0x[0-9a-f]+$/);
    await shot(page, '05-instances');
  });

  test('export CSV: every row of the view, numbers equal to the CLI report', async ({ page }) => {
    await openApp(page);
    await openListed(page, TEST1);
    const grid = page.getByTestId('types-grid');
    await waitForRows(grid, 'type');
    await expect(page.getByTestId('analysis-state')).toHaveCount(0, { timeout: 30_000 });
    const download = page.waitForEvent('download');
    await page.getByTestId('export-csv').click();
    const file = await (await download).path();
    const rows = parseCsv(readFileSync(file, 'utf8'));
    const header = rows[0];
    const col = (name: RegExp) => {
      const i = header.findIndex((h) => name.test(h));
      expect(i, `CSV header ${header.join(',')} has ${name}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    const [iType, iCount, iShallow, iRetained] = [col(/^type$/i), col(/^count$/i), col(/shallow/i), col(/retained/i)];
    const data = rows.slice(1).filter((r) => r.length > 1);
    expect(data).toHaveLength(cli.length);
    const byName = new Map(cli.map((r) => [r.type, r]));
    for (const r of data) {
      const name = r[iType].replace(/^'(?=[=+\-@])/, ''); // formula-injection guard prefix
      const c = byName.get(name);
      expect(c, `CLI has type ${name}`).toBeDefined();
      expect([Number(r[iCount]), Number(r[iShallow]), Number(r[iRetained])]).toEqual([c!.count, c!.shallowSize, c!.retainedSize]);
    }
    // exported in the view's sort order: retained size, descending
    const retained = data.map((r) => Number(r[iRetained]));
    expect(retained).toEqual([...retained].sort((a, b) => b - a));
    await expect(page.getByTestId('message-info')).toContainText(`Exported ${cli.length.toLocaleString('en-US')} rows`);
  });
});

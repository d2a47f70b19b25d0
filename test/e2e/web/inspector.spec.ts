import { expect, test, type Page } from '@playwright/test';
import { SKIP, gridCells, openApp, openListed, shot, waitForRows } from './helpers';

// The object inspector and Go to address in browser mode, on perfview_test1 (expected-values
// §1.1, checked against PerfView's own reader: node 6481 is `langChooser_params (Type
// JSObject)`, 16 bytes at 0x6d1be90, with exactly one reference).
test.skip(!!SKIP, SKIP);

const TEST1 = 'perfview_test1.gcdump';
const TYPE = 'langChooser_params (Type  JSObject)';
const ADDRESS = '0x6d1be90';

/** Open test1, wait for the analysis, list the instances of TYPE filtered to ADDRESS. */
async function instancesOfTarget(page: Page) {
  await openApp(page);
  await openListed(page, TEST1);
  const types = page.getByTestId('types-grid');
  await waitForRows(types, 'type');
  await expect(page.getByTestId('analysis-state')).toHaveCount(0, { timeout: 30_000 });
  await page.getByTestId('grid-filter').fill('langChooser_params');
  await page.getByTestId('grid-filter').press('Enter');
  const row = types.locator('.ag-row [col-id="type"]', { hasText: TYPE }).first();
  await row.dblclick();
  const inst = page.getByTestId('instances-grid');
  await waitForRows(inst, 'address');
  // the instances filter: 0x… is one exact address
  await page.getByTestId('grid-filter').fill(ADDRESS);
  await page.getByTestId('grid-filter').press('Enter');
  await expect(page.getByTestId('grid-total')).toHaveText('1 object');
  await expect.poll(async () => (await gridCells(inst, ['address']))[0]?.[0]).toBe(ADDRESS);
  return inst;
}

test('double-click an instance: details, references both ways, expand, follow, Back', async ({ page }) => {
  const inst = await instancesOfTarget(page);
  await inst.locator('.ag-row[row-index="0"] [col-id="address"]').dblclick();
  const panel = page.getByTestId('inspector');
  await expect(panel.getByTestId('inspector-type')).toHaveText(TYPE);
  await expect(panel.getByTestId('inspector-address')).toHaveText(ADDRESS);
  await expect(panel.getByTestId('inspector-size')).toHaveText('16 bytes');
  await expect(panel.getByTestId('inspector-reachable')).toHaveText(/yes|no \(garbage\)/);
  await expect(panel.getByTestId('inspector-retained')).not.toHaveText('…');
  await expect(panel.getByTestId('inspector-outgoing-count')).toHaveText('1');
  const out = panel.getByTestId('refs-outgoing');
  await expect(out.getByTestId('ref-row')).toHaveCount(1);
  const incomingCount = Number((await panel.getByTestId('inspector-incoming-count').textContent())!.replace(/,/g, ''));
  await expect(panel.getByTestId('refs-incoming').getByTestId('ref-row')).toHaveCount(Math.min(200, incomingCount));
  await shot(page, '20-inspector');

  // expand the one reference if it has references of its own, then follow it
  const first = out.getByTestId('ref-row').first();
  const childType = (await first.getByTestId('ref-inspect').textContent())!.trim();
  if ((await first.getAttribute('aria-expanded')) !== null) {
    await first.getByTestId('ref-toggle').click();
    await expect(first).toHaveAttribute('aria-expanded', 'true');
    expect(await out.getByTestId('ref-row').count()).toBeGreaterThan(1);
  }
  await first.getByTestId('ref-inspect').click();
  await expect(panel.getByTestId('inspector-type')).toHaveText(childType);
  await panel.getByTestId('inspector-back').click();
  await expect(panel.getByTestId('inspector-address')).toHaveText(ADDRESS);
  await panel.getByTestId('inspector-close').click();
  await expect(panel).toHaveCount(0);
});

test('Ctrl+G goes to an address, heap-wide; bad input gets one clear message', async ({ page }) => {
  await openApp(page);
  await openListed(page, TEST1);
  await waitForRows(page.getByTestId('types-grid'), 'type');
  await page.keyboard.press('Control+g');
  const dialog = page.getByTestId('goto-dialog');
  await expect(dialog).toBeVisible();
  await page.getByTestId('goto-input').fill('0xdeadbeef00');
  await page.getByTestId('goto-input').press('Enter');
  await expect(page.getByTestId('goto-message')).toHaveText('No object at or around 0xdeadbeef00 in this snapshot.');
  await page.getByTestId('goto-input').fill('System.String');
  await page.getByTestId('goto-input').press('Enter');
  await expect(page.getByTestId('goto-message')).toContainText('not an address');
  // an interior address (8 bytes into the 16-byte object) opens the object
  await page.getByTestId('goto-input').fill('0x6D1BE98');
  await page.getByTestId('goto-input').press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('inspector-type')).toHaveText(TYPE);
  await expect(page.getByTestId('inspector-address')).toHaveText(ADDRESS);
  // the toolbar button opens the same dialog
  await page.getByTestId('goto-address').click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
});

test('actions: Paths to roots, Show in dominator tree, Copy address; the object menu on right-click', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const inst = await instancesOfTarget(page);
  // right-click: the object menu
  await inst.locator('.ag-row[row-index="0"] [col-id="address"]').click({ button: 'right' });
  const menu = page.getByTestId('object-menu');
  await expect(menu).toBeVisible();
  await menu.getByTestId('menu-copy').click();
  await expect(menu).toHaveCount(0);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(ADDRESS);
  await inst.locator('.ag-row[row-index="0"] [col-id="address"]').click({ button: 'right' });
  await menu.getByTestId('menu-inspect').click();
  const panel = page.getByTestId('inspector');
  await expect(panel.getByTestId('inspector-address')).toHaveText(ADDRESS);
  await expect(panel.getByTestId('inspector-reachable')).toHaveText('yes');

  await panel.getByTestId('inspector-paths').click();
  await expect(page.getByTestId('paths-object')).toHaveClass(/on/);
  await expect(page.getByTestId('paths-view')).toContainText(`${TYPE} @ ${ADDRESS}`);
  // reachable (the inspector said so): the target heads its paths; double-click a step to inspect it
  const target = page.getByTestId('paths-tree').locator('[data-testid="path-row"][data-object-node]').first();
  await expect(target).toContainText(TYPE, { timeout: 30_000 });
  await panel.getByTestId('inspector-close').click();
  await target.dblclick();
  await expect(panel.getByTestId('inspector-address')).toHaveText(ADDRESS);

  await panel.getByTestId('inspector-dominators').click();
  const crumbs = page.getByTestId('dominator-path');
  await expect(crumbs.locator('.crumb.last')).toContainText(TYPE, { timeout: 30_000 });
  await panel.getByTestId('inspector-copy').click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(ADDRESS);

  // in the dominator tree, double-click inspects (▸ still expands)
  await panel.getByTestId('inspector-close').click();
  const grid = page.getByTestId('dominator-grid');
  await grid.locator('.ag-row[row-index="0"] .tree-cell').dblclick();
  await expect(page.getByTestId('inspector')).toBeVisible();
  await shot(page, '21-inspector-dominators');
});

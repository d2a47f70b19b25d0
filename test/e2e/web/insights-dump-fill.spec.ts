import { rmSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { dumpDotnetApp, processDumpSkip } from '../../helpers/process-dump';
import { SKIP, openApp, openPath } from './helpers';

// Issue 16 in the browser: Insights of a process dump lists sparse arrays, empty arrays and empty
// collections. SparseApp (test/dotnet/SparseApp) keeps 1,000 Item[100] with 3 set, 500 Marker[0]
// and 200 empty List<Item>(16), and 20 empty ConcurrentQueue<Element>; the figures are those test/integration/dump-array-fill.test.ts
// checks through `heapscope inspect`. An example opens in the inspector.
const why = SKIP || processDumpSkip('fill e2e') || '';
test.skip(!!why, why);

let dir = '';
let dump = '';

test.beforeAll(async () => {
  test.setTimeout(300_000);
  ({ dir, dump } = await dumpDotnetApp('SparseApp', { prefix: 'heapscope-e2e-sparse-', file: 'sparse.dmp' }));
});

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('Insights of a dump: sparse Item[], empty Marker[] and empty List<Item>, an example opens the inspector', async ({ page }) => {
  test.setTimeout(180_000);
  await openApp(page);
  await openPath(page, dump);
  // Insights opens by itself: the inspections found accumulation points (the Item[][] holding the arrays).
  await expect(page.getByTestId('view-insights')).toHaveAttribute('aria-selected', 'true', { timeout: 60_000 });
  const view = page.getByTestId('insights-view');
  const sparse = page.getByTestId('insight').filter({ hasText: 'sparse HeapscopeTest.Item[] (' });
  await expect(sparse).toContainText('1,200 sparse HeapscopeTest.Item[] (801,600 bytes of default elements)', { timeout: 60_000 });
  await expect(sparse.locator('.figures b').nth(1)).toHaveAttribute('title', /854,400 bytes/);
  await expect(page.getByTestId('insight').filter({ hasText: 'empty HeapscopeTest.Marker[]' })).toContainText('500 empty HeapscopeTest.Marker[] (12,000 bytes)');
  const lists = page.getByTestId('insight').filter({ hasText: 'empty System.Collections.Generic.List<HeapscopeTest.Item>' });
  await expect(lists).toContainText('200 empty System.Collections.Generic.List<HeapscopeTest.Item> (36,800 bytes retained)');
  // a kind beyond List–Stack: 20 empty ConcurrentQueue<Element>, each with a 232-byte segment and 536 or 1,048 bytes of slots
  const queues = page.getByTestId('insight').filter({ hasText: 'empty System.Collections.Concurrent.ConcurrentQueue<HeapscopeTest.Element>' });
  await expect(queues).toContainText('20 empty System.Collections.Concurrent.ConcurrentQueue<HeapscopeTest.Element> (21,760 bytes retained)');
  await expect(view).not.toContainText('Not checked: Sparse or empty arrays');
  await lists.locator('[data-object-node]').first().dblclick();
  await expect(page.getByTestId('inspector')).toBeVisible();
  await expect(page.getByTestId('inspector')).toContainText('System.Collections.Generic.List<HeapscopeTest.Item>');
});

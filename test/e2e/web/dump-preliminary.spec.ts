import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { SKIP, gridCells, openPath, tabNamed, waitForRows } from './helpers';
import { startServer, stop } from '../../helpers/heapscope-serve';
import { fakeCore, standInDumpReader } from '../../helpers/stand-in-dump-reader';

// A process dump's first type rows come from the dump reader's type histogram, before the graph
// (issue 15): the Types grid shows them with "analysis pending", the other views say the dump is
// still being read, and when the walk ends the same rows stay and the other views open. A
// stand-in reader ($HEAPSCOPE_DUMP_READER) holds its stream after the histogram until the test
// creates its `go` file, so the window is held open, not raced.
test.skip(!!SKIP, SKIP);

let work: string;
let server: { url: string; child: ChildProcess } | null = null;
let reader: { helper: string; go: string };
let core: string;

test.beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'heapscope-e2e-preliminary-'));
  reader = standInDumpReader(work, 'reader', false);
  core = fakeCore(work, 'core.1');
  server = await startServer([], work, { env: { HEAPSCOPE_DUMP_READER: reader.helper } });
});

test.afterAll(async () => {
  if (server) await stop(server.child);
  rmSync(work, { recursive: true, force: true });
});

test('a dump tab shows its type rows while the dump is read; the other views wait, then open', async ({ page }) => {
  await page.goto(server!.url);
  await openPath(page, core);
  await expect(tabNamed(page, 'core.1')).toHaveClass(/active/);
  const grid = page.getByTestId('types-grid');
  await waitForRows(grid, 'type');
  await expect(page.getByTestId('types-preliminary')).toBeVisible();
  const early = await gridCells(grid, ['type', 'count']);
  expect(early.map(([t, c]) => [t, c])).toEqual(
    expect.arrayContaining([
      ['Baz', '1'],
      ['Foo', '2'],
    ]),
  );
  // another view while the graph is still being read: a panel that says so, no zeros
  await page.getByTestId('view-summary').click();
  await expect(page.getByTestId('preliminary-panel')).toContainText('Reading the dump');
  await expect(page.getByTestId('summary-view')).toHaveCount(0);
  await expect(page.getByTestId('goto-address')).toHaveCount(0);

  writeFileSync(reader.go, ''); // the stand-in ends its walk
  await expect(page.getByTestId('summary-view')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('preliminary-panel')).toHaveCount(0);
  await expect(page.getByTestId('summary-objects')).toHaveText('3');
  await page.getByTestId('view-types').click();
  await expect(page.getByTestId('types-preliminary')).toHaveCount(0);
  await waitForRows(grid, 'type');
  await expect.poll(async () => (await gridCells(grid, ['type', 'count'])).filter(([t]) => t === 'Foo' || t === 'Baz')).toEqual(expect.arrayContaining([['Baz', '1'], ['Foo', '2']]));
});

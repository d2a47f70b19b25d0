import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, type Locator, type Page } from '@playwright/test';
import { fixturePath } from '../../helpers/fixtures';

/** Shared steps for the browser-mode specs: open files, read grid cells, run the CLI oracle, save screenshots. */
export const ROOT = resolve(import.meta.dirname, '..', '..', '..');
export const SKIP = process.env.HEAPSCOPE_E2E_SKIP ?? '';
export const SCREENS = join(ROOT, 'test-results', 'screens');

export function fixture(rel: string): string {
  const p = fixturePath(rel);
  if (!p) throw new Error(`fixture ${rel} missing`);
  return p;
}

/**
 * `insightsFirst: false`: the user preference off (as the Insights view's checkbox would set it),
 * for tests about other views on files whose findings would open Insights by themselves.
 */
export async function openApp(page: Page, opts: { insightsFirst?: boolean } = {}): Promise<void> {
  const url = process.env.HEAPSCOPE_E2E_URL;
  if (!url) throw new Error('HEAPSCOPE_E2E_URL not set: global setup did not start the server');
  if (opts.insightsFirst === false) {
    await page.addInitScript(() => {
      const key = 'heapscope.settings.v1';
      const saved = JSON.parse(localStorage.getItem(key) ?? '{}') as Record<string, unknown>;
      localStorage.setItem(key, JSON.stringify({ ...saved, insightsFirst: false }));
    });
  }
  await page.goto(url);
  await expect(page.getByTestId('welcome')).toBeVisible();
}

/** Open one of the files given to `heapscope serve` from the Welcome page's command-line list. */
export async function openListed(page: Page, name: string): Promise<Locator> {
  await page.getByTestId('tab-home').click();
  await page.getByTestId('cmdline-file').filter({ hasText: name }).first().click();
  const tab = tabNamed(page, name).last();
  await expect(tab).toHaveClass(/active/);
  return tab;
}

/** A tab by its file name (tab labels shorten long names in the middle). */
export function tabNamed(page: Page, name: string): Locator {
  return page.locator(`[data-testid="tab"][data-name*="${name}"]`);
}

/** Open any server-side path through browser mode's "Path on the server machine" box. */
export async function openPath(page: Page, path: string): Promise<void> {
  await page.getByTestId('tab-home').click();
  await page.getByTestId('open-path').fill(path);
  await page.getByTestId('open-path').press('Enter');
}

/** Wait until the grid's first row has real data (not AG Grid's loading stub) in `colId`. */
export async function waitForRows(grid: Locator, colId: string): Promise<void> {
  await expect(grid.locator(`.ag-row[row-index="0"] [col-id="${colId}"]`).first()).not.toHaveText('', { timeout: 30_000 });
  await expect(grid.locator('.ag-row-loading, .ag-loading')).toHaveCount(0, { timeout: 30_000 });
}

/**
 * Wait until the Types grid shows its retained sort for real: the dominator analysis is done, the
 * "by name until retained sizes are computed" note is gone, and the first rows' exact retained
 * sizes are in descending order (the grid serves name order until the sizes arrive).
 */
export async function waitForRetainedOrder(page: Page, grid: Locator, rows = 5): Promise<void> {
  await expect(page.getByTestId('analysis-state')).toHaveCount(0, { timeout: 60_000 });
  await expect(page.getByTestId('sort-waiting')).toHaveCount(0, { timeout: 30_000 });
  await expect
    .poll(
      async () => {
        const n = Math.min(rows, (await gridCells(grid, ['type'], rows)).length);
        const sizes: number[] = [];
        for (let i = 0; i < n; i++) {
          const title = await grid.locator(`.ag-row[row-index="${i}"] [col-id="retainedSize"] span[title]`).first().getAttribute('title', { timeout: 1_000 }).catch(() => null);
          if (!title) return false;
          sizes.push(Number(title.replace(/[^0-9]/g, '')));
        }
        return n > 0 && sizes.every((v, i) => i === 0 || v <= sizes[i - 1]);
      },
      { timeout: 30_000 },
    )
    .toBe(true);
}

/** Text of the given columns for the rendered rows, in row order. */
export async function gridCells(grid: Locator, colIds: string[], max = 50): Promise<string[][]> {
  return grid.evaluate(
    (el, { colIds, max }) => {
      const rows = Array.from(el.querySelectorAll('.ag-row[row-index]'))
        .map((r) => ({ i: Number(r.getAttribute('row-index')), r }))
        .filter((x) => Number.isFinite(x.i))
        .sort((a, b) => a.i - b.i)
        .slice(0, max);
      return rows.map(({ r }) => colIds.map((c) => (r.querySelector(`[col-id="${c}"]`)?.textContent ?? '').trim()));
    },
    { colIds, max },
  );
}

/**
 * The exact byte count in a size cell's tooltip ("178,560 bytes"). NaN when the tooltip holds no
 * number, e.g. "not computed yet (the dominator analysis is still running)": a poll for 0 must not
 * pass on a placeholder while a recompute runs.
 */
export async function cellBytes(grid: Locator, row: number, colId: string): Promise<number> {
  const title = await grid.locator(`.ag-row[row-index="${row}"] [col-id="${colId}"] span[title]`).first().getAttribute('title');
  const digits = (title ?? '').match(/^-?[\d,]+/)?.[0].replace(/,/g, '');
  return digits ? Number(digits) : NaN;
}

export const num = (s: string) => Number(s.replace(/[^0-9.-]/g, ''));

export interface CliTypeRow {
  type: string;
  count: number;
  shallowSize: number;
  retainedSize: number | null;
  module: string | null;
}

/** The CLI as oracle: `heapscope <args> --format json`, run the same way as the server (bin/heapscope.mjs). */
export function cliJson<T>(args: string[]): T {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'heapscope.mjs'), ...args, '--format', 'json'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`heapscope ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: join(SCREENS, `${name}.png`) });
}

/** Minimal RFC 4180 parser (quotes, doubled quotes, CRLF) for checking exported files. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

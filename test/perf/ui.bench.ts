/**
 * The UI under load, in browser mode and Debian's Chromium (a benchmark, never a test):
 *
 *   npx tsx test/perf/ui.bench.ts [--objects 10000000] [--types 100000]
 *
 * 1. a synthetic N-object .gcdump (test/tools/synthetic-heap.ts): time from "click the file" to
 *    the first types-grid rows on screen vs. to "dominators finished" (retained sizes shown), and
 *    the longest main-thread block during the whole load (PerformanceObserver 'longtask', i.e.
 *    every task over 50 ms);
 * 1b. on the same snapshot once analysed: Dominator tree → Group by type (click → first group row
 *    on screen) and expanding the largest group by retained size (row 0) and the group with the
 *    most outermost instances among the first rows (chevron → its first instance row on screen),
 *    each with the longest main-thread task from the click on. The grouping and the instances'
 *    sort run in the worker; only windows of rows (200 at a time) cross to the page, so these
 *    tasks must stay ≤ 100 ms at 10M objects;
 * 2. a .gcdump with T distinct types (one object each): header click → first row re-sorted, for
 *    count descending, count ascending and name.
 *
 * Prints one JSON line; `tasksOver100ms` says what each task over 100 ms was made of (its long
 * animation frame's script and style/layout time), or that it held no script or rendering at all
 * (the UI thread waiting for a CPU, on a loaded machine). `--trace FILE` also writes a Chromium
 * performance trace of the load. Costs: ~15 s to write the 10M-object file (~200 MB in the OS temp
 * dir, deleted afterwards) and ~1–2 GB in the server's worker while it is open.
 *
 * Longest task while loading, --types 1000, 2-core machine shared with other CPU-heavy jobs:
 *   before (2026-11-22, grid created in one task one task after mount): 2M 78–166, 10M 79–121 ms;
 *   after the grid changes (built in 3 tasks, AG Grid warmed up before mount, native tooltips,
 *   Types columns kept when the analysis finishes): 2M 0–77 over 6 runs; 10M 0–131 ms and one 268
 *   over 9 runs — each task over 100 ms that could be attributed (5 of 7) held no script or
 *   rendering (GC < 7 ms, page heap ~11 MB), our own largest tasks were 50–80 ms;
 *   plus progress bars animated by transform (no main-thread frame every 16 ms during analysis):
 *   2M 75, 53, 0; 10M 58, 0, 0 ms.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { HeapGraphBuilder } from '../../shared/graph/heap-graph-builder.js';
import { emptyMetadata } from '../../shared/graph/metadata.js';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { generateGcdump } from '../tools/gen-gcdump.js';
import { startServer, stop } from '../helpers/heapscope-serve.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1].replace(/_/g, '')) : dflt;
};
const OBJECTS = arg('objects', 10_000_000);
const TYPES = arg('types', 100_000);
/** `--trace out.json`: a Chromium performance trace of the big load (open in DevTools' Performance panel). */
const TRACE = (() => {
  const i = process.argv.indexOf('--trace');
  return i > 0 ? resolve(process.argv[i + 1]) : null;
})();
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame', 'v8.execute', 'disabled-by-default-v8.cpu_profiler', 'blink.user_timing', 'toplevel'];

/** One root holding T objects of T distinct types with varied sizes and names. */
function writeManyTypes(path: string, types: number): void {
  const b = new HeapGraphBuilder({ expectedNodes: types + 1, expectedEdges: types });
  const rootType = b.addType('[.NET Roots]');
  const root = b.createNode();
  const first = b.createNodes(types);
  const children = new Uint32Array(types);
  for (let i = 0; i < types; i++) {
    // scrambled so that neither index nor name order equals size order
    const t = b.addType(`Synthetic.Namespace${i % 97}.Type${(i * 7919) % types}`, 'Synthetic.dll', -1);
    const size = 24 + ((i * 2654435761) % 4093);
    b.setNode(first + i, t, size, []);
    b.setAddress(first + i, 0x10000 + i * 8192);
    children[i] = first + i;
  }
  b.setNode(root, rootType, 0, children);
  b.setRoot(root);
  const meta = emptyMetadata('synthetic');
  meta.pointerSize = 8;
  const chunks = writeGcdump(b.finish(meta));
  const fd = openSync(path, 'w');
  try {
    for (const c of chunks) for (let done = 0; done < c.length; ) done += writeSync(fd, c, done, c.length - done);
  } finally {
    closeSync(fd);
  }
}

/** One long animation frame: its scripts' total and style/layout time, and its longest script. */
interface LongFrame {
  start: number;
  duration: number;
  script: number;
  styleLayout: number;
  top: string;
}

interface CellWait {
  grid: string;
  col: string;
  /** Texts that do not count as "there" (empty, the loading stub, the previous first row). */
  not: string[];
  /** Also wait until the grid's row-count label contains this. */
  total?: string;
  /** Also wait until the analysis indicator is gone. */
  analysed?: boolean;
}

/**
 * In-page clock of the first animation frame where the grid's first row shows a new value in
 * `col`. A function, not a string: the page's CSP forbids eval.
 */
async function whenCell(page: Page, w: CellWait, timeout = 600_000): Promise<number> {
  const h = await page.waitForFunction(
    (x: CellWait) => {
      const t = (document.querySelector(`[data-testid="${x.grid}"] .ag-row[row-index="0"] [col-id="${x.col}"]`)?.textContent ?? '').trim();
      if (!t || x.not.includes(t)) return false;
      if (x.total && !document.querySelector('[data-testid="grid-total"]')?.textContent?.includes(x.total)) return false;
      if (x.analysed && document.querySelector('[data-testid="analysis-state"]')) return false;
      return performance.now();
    },
    w,
    { polling: 'raf', timeout },
  );
  return (await h.jsonValue()) as number;
}

async function firstCell(page: Page, grid: string, col: string): Promise<string> {
  return page.evaluate(([g, c]) => (document.querySelector(`[data-testid="${g}"] .ag-row[row-index="0"] [col-id="${c}"]`)?.textContent ?? '').trim(), [grid, col]);
}

async function longestSince(page: Page, since: number): Promise<number> {
  return page.evaluate((t) => (window as unknown as { __long: { start: number; duration: number }[] }).__long.filter((e) => e.start >= t).reduce((m, e) => Math.max(m, e.duration), 0), since);
}

/** Every task over 50 ms since `since` with what its long animation frame ran (as in step 1's tasksOver100ms). */
async function tasksSince(page: Page, since: number): Promise<string[]> {
  const [long, frames] = await page.evaluate((t) => {
    const w = window as unknown as { __long: { start: number; duration: number }[]; __frames: LongFrame[] };
    return [w.__long.filter((e) => e.start >= t), w.__frames.filter((e) => e.start >= t - 200)] as const;
  }, since);
  return long.map((e) => {
    const f = frames.find((x) => x.start <= e.start + 1 && x.start + x.duration >= e.start + e.duration - 1);
    const at = `${Math.round(e.start - since)}+${Math.round(e.duration)}`;
    return f ? `${at}: script ${Math.round(f.script)}, style/layout ${Math.round(f.styleLayout)}, longest ${f.top}` : `${at}: in no animation frame`;
  });
}

/** In-page clock of the first animation frame where row `index` of the grouped tree is an instance row (not a group). */
async function whenInstanceRow(page: Page, index: number): Promise<number> {
  const h = await page.waitForFunction(
    (i: number) => {
      const row = document.querySelector(`[data-testid="dominator-groups-grid"] .ag-row[row-index="${i}"]`);
      return row && !row.classList.contains('group-row') && row.querySelector('.tree-cell .tname') ? performance.now() : false;
    },
    index,
    { polling: 'raf', timeout: 120_000 },
  );
  return (await h.jsonValue()) as number;
}

interface GroupExpansion {
  group: string;
  instances: number;
  ms: number;
  longestTaskMs: number;
  tasks: string[];
}

/**
 * Dominator tree → Group by type on the open snapshot, then ▸ on the largest group by retained size
 * (row 0) and on the one with the most instances among the rendered rows. Each expansion is undone
 * before the next so that rows keep their indexes.
 */
async function groupByType(page: Page): Promise<{ groupsMs: number; groupsLongestTaskMs: number; groupsTasks: string[]; groupRowsShown: number; expand: GroupExpansion[] }> {
  await page.getByTestId('view-dominators').click();
  await page.getByTestId('dominator-grid').locator('.ag-row[row-index="0"] .tree-cell').waitFor({ timeout: 120_000 });
  await page.waitForTimeout(500);
  const g0 = await page.evaluate(() => performance.now());
  await page.getByTestId('dominator-group-by-type').check();
  const shown = await page.waitForFunction(() => (document.querySelector('[data-testid="dominator-groups-grid"] .ag-row[row-index="0"] .tree-cell') ? performance.now() : false), null, { polling: 'raf', timeout: 120_000 });
  const g1 = (await shown.jsonValue()) as number;
  const groupsLongest = await longestSince(page, g0);
  const groupsTasks = await tasksSince(page, g0);
  const grid = page.getByTestId('dominator-groups-grid');
  const rows = await grid.evaluate((el) =>
    Array.from(el.querySelectorAll('.ag-row.group-row[row-index]')).map((r) => ({
      index: Number(r.getAttribute('row-index')),
      name: r.querySelector('.tname')?.textContent ?? '',
      count: Number((/([\d,]+) objects?\s*$/.exec(r.querySelector('[col-id="object"]')?.textContent ?? '')?.[1] ?? '0').replace(/,/g, '')),
    })),
  );
  const most = rows.reduce((m, r) => (r.count > m.count ? r : m), rows[0]);
  const targets = [rows.find((r) => r.index === 0)!, ...(most.index !== 0 ? [most] : [])];
  const expand: GroupExpansion[] = [];
  for (const r of targets) {
    await page.waitForTimeout(500);
    const chevron = grid.locator(`.ag-row[row-index="${r.index}"] .chevron`);
    const e0 = await page.evaluate(() => performance.now());
    await chevron.click();
    const e1 = await whenInstanceRow(page, r.index + 1);
    expand.push({ group: r.name, instances: r.count, ms: Math.round(e1 - e0), longestTaskMs: Math.round(await longestSince(page, e0)), tasks: await tasksSince(page, e0) });
    await chevron.click();
    await page.waitForFunction((i: number) => document.querySelector(`[data-testid="dominator-groups-grid"] .ag-row[row-index="${i}"]`)?.classList.contains('group-row') ?? true, r.index + 1, { polling: 'raf' });
  }
  return { groupsMs: Math.round(g1 - g0), groupsLongestTaskMs: Math.round(groupsLongest), groupsTasks, groupRowsShown: rows.length, expand };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'heapscope-uibench-'));
  let server: { url: string; child: ChildProcess } | null = null;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const build = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '-c', 'vite.renderer.config.ts', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('renderer build failed');
    const big = join(work, `synthetic-${OBJECTS}.gcdump`);
    const gen = generateGcdump({ objects: OBJECTS, out: big, seed: 7 });
    const many = join(work, `types-${TYPES}.gcdump`);
    writeManyTypes(many, TYPES);
    server = await startServer([big, many], work);

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.addInitScript(() => {
      const w = window as unknown as { __long: { start: number; duration: number }[]; __frames: LongFrame[] };
      w.__long = [];
      w.__frames = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__long.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
      // Long animation frames say what ran in them: scripts (with their own durations) and style/
      // layout. A long task with little of either was the main thread waiting for a CPU (the OS
      // ran something else), not work of ours.
      type Loaf = PerformanceEntry & { styleAndLayoutStart: number; scripts: (PerformanceEntry & { invoker: string; forcedStyleAndLayoutDuration: number })[] };
      new PerformanceObserver((list) => {
        for (const e of list.getEntries() as Loaf[]) {
          const script = e.scripts.reduce((s, x) => s + x.duration, 0);
          const top = e.scripts.reduce<Loaf['scripts'][number] | null>((m, x) => (!m || x.duration > m.duration ? x : m), null);
          w.__frames.push({ start: e.startTime, duration: e.duration, script, styleLayout: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0, top: top ? `${top.invoker}:${Math.round(top.duration)}` : '' });
        }
      }).observe({ type: 'long-animation-frame', buffered: true });
    });
    await page.goto(server.url);
    await page.getByTestId('cmdline-file').first().waitFor();

    // 1. load of the big snapshot
    if (TRACE) await browser.startTracing(page, { path: TRACE, categories: TRACE_CATEGORIES });
    const t0 = await page.evaluate(() => performance.now());
    await page.getByTestId('cmdline-file').nth(0).click();
    const firstRows = await whenCell(page, { grid: 'types-grid', col: 'type', not: [] });
    const analysed = await whenCell(page, { grid: 'types-grid', col: 'retainedSize', not: ['…'], analysed: true });
    if (TRACE) await browser.stopTracing();
    const long = await page.evaluate((since) => (window as unknown as { __long: { start: number; duration: number }[] }).__long.filter((e) => e.start >= since), t0);
    const longest = long.reduce((m, e) => Math.max(m, e.duration), 0);
    const frames = await page.evaluate((since) => (window as unknown as { __frames: LongFrame[] }).__frames.filter((e) => e.start >= since - 200), t0);
    // every task over 100 ms with the long animation frame it fell in (if any): what ran in it
    const over100 = long
      .filter((e) => e.duration > 100)
      .map((e) => {
        const f = frames.find((x) => x.start <= e.start + 1 && x.start + x.duration >= e.start + e.duration - 1);
        const at = `${Math.round(e.start - t0)}+${Math.round(e.duration)}`;
        return f ? `${at}: frame ${Math.round(f.duration)} ms, script ${Math.round(f.script)}, style/layout ${Math.round(f.styleLayout)}, longest ${f.top}` : `${at}: in no animation frame (no script or rendering of ours: GC, IPC or waiting for a CPU)`;
      });

    // 1b. the dominator tree grouped by type
    const grouping = await groupByType(page);

    // 2. sorting T types, server-side
    await page.getByTestId('tab-home').click();
    await page.getByTestId('cmdline-file').nth(1).click();
    await whenCell(page, { grid: 'types-grid', col: 'type', not: [], total: TYPES.toLocaleString('en-US'), analysed: true });
    const sorts: Record<string, number> = {};
    // names are unique, so the first row's name changes with every one of these sorts
    for (const [label, col] of [['name asc', 'type'], ['shallow size desc', 'shallowSize'], ['shallow size asc', 'shallowSize']] as const) {
      const before = await firstCell(page, 'types-grid', 'type');
      const s0 = await page.evaluate(() => performance.now());
      await page.locator(`[data-testid="types-grid"] .ag-header-cell[col-id="${col}"] .ag-header-cell-label`).click();
      const s1 = await whenCell(page, { grid: 'types-grid', col: 'type', not: [before] }, 60_000);
      sorts[label] = Math.round(s1 - s0);
    }

    const result = {
      objects: OBJECTS,
      nodes: gen.nodes,
      fileMB: Math.round(gen.bytes / 1e5) / 10,
      firstTypeRowsMs: Math.round(firstRows - t0),
      dominatorsDoneMs: Math.round(analysed - t0),
      longestMainThreadBlockMs: Math.round(longest),
      longTasksOver50ms: long.map((e) => `${Math.round(e.start - t0)}+${Math.round(e.duration)}`).join(' '),
      tasksOver100ms: over100,
      groupByType: grouping,
      types: TYPES,
      sortMs: sorts,
      chromium: browser.version(),
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await browser.close();
    if (server) await stop(server.child);
    rmSync(work, { recursive: true, force: true });
  }
}

await main();

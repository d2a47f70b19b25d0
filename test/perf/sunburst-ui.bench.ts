/**
 * The Sunburst view, "What if" and Insights-opens-first at scale, in browser mode and Debian's
 * Chromium (a benchmark, never a test; issue 16):
 *
 *   npx tsx test/perf/sunburst-ui.bench.ts [--objects 10000000] [--no-cpu]
 *
 * On the synthetic .NET-like heap of `npm run gen` (seed 7, as ui.bench.ts; the file is reused
 * from $TMPDIR/synthetic-N-seed7.gcdump when it exists, else written there and kept):
 * 0. open it from the start page; as soon as the Types rows show, sort them by Count (the user is
 *    working in Types); once the analysis and the inspections are done, say which view the tab
 *    shows (Insights opens first only in a tab the user has not moved in, sorted or filtered), the
 *    leak findings count and the largest finding of each kind that could open it;
 * 1. Sunburst view: open it (by object), switch By type, zoom into the largest ring-1 row twice,
 *    back to the whole heap by the first breadcrumb, toggle Treemap. Per step: the wall time from
 *    the click to the view settled, the longest main-thread task meanwhile (PerformanceObserver
 *    'longtask': tasks over 50 ms; 0 = none), and each call that crossed the WebSocket meanwhile
 *    (method, round trip at the page's WebSocket = server + worker time, and the JSON bytes of
 *    the answer; null = not answered yet when the step settled, e.g. queries that wait for a
 *    recompute);
 * 2. "What if" in the app path: By object, right-click the largest ring-1 object → Paths to roots
 *    → right-click its referrer on the first path → Ignore this reference; the time until the
 *    banner says the numbers are back ("numbers with 1 reference ignored") and the longest task
 *    meanwhile, and when each call the step made was answered (`afterNumbersMs`: the views' queries
 *    on the recomputed analysis); then Restore, timed the same way with its calls.
 * 3. unless --no-cpu, after the browser is closed: the same sunburst queries in this process on
 *    the same heap (makeSyntheticHeap, seed 7), with wall and CPU time (process.cpuUsage) per query:
 *    the worker runs exactly this code, but a browser-mode worker's CPU cannot be read from here.
 *
 * Prints one JSON line. Costs: ~5 s to write the 10M file (~200 MB), ~1–2 GB in the server's
 * worker, and for step 3 another ~1–2 GB and one analysis in this process.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium, type Page } from '@playwright/test';
import type { DominatorSunburst, DominatorSunburstReq, FileEntry, FileToken, SessionId } from '../../shared/ipc/contract.js';
import { SnapshotSession } from '../../shared/session/snapshot-session.js';
import { generateGcdump } from '../tools/gen-gcdump.js';
import { makeSyntheticHeap } from '../tools/synthetic-heap.js';
import { startServer, stop } from '../helpers/heapscope-serve.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1].replace(/_/g, '')) : dflt;
};
const OBJECTS = arg('objects', 10_000_000);
const SEED = 7;
const CPU = !process.argv.includes('--no-cpu');

/** One call over the app's WebSocket: sent and answered, in this process's clock. */
interface Call {
  method: string;
  sent: number;
  ms: number | null;
  bytes: number | null;
  /** The answer's text, kept for the inspections only (the bench reports their findings). */
  text?: string;
}

/** Taps the page's WebSocket frames: every call's round trip and answer size. */
function tapCalls(page: Page): Call[] {
  const calls: Call[] = [];
  const byId = new Map<number, Call>();
  page.on('websocket', (ws) => {
    ws.on('framesent', (f) => {
      if (typeof f.payload !== 'string') return;
      const m = JSON.parse(f.payload) as { type?: string; id?: number; method?: string };
      if (m.type !== 'call' || typeof m.id !== 'number') return;
      const c: Call = { method: m.method ?? '?', sent: performance.now(), ms: null, bytes: null };
      byId.set(m.id, c);
      calls.push(c);
    });
    ws.on('framereceived', (f) => {
      if (typeof f.payload !== 'string') return;
      const m = /^\{"type":"result","id":(\d+)/.exec(f.payload);
      const c = m ? byId.get(Number(m[1])) : undefined;
      if (!c) return;
      c.ms = Math.round(performance.now() - c.sent);
      c.bytes = f.payload.length;
      if (c.method === 'inspections') c.text = f.payload;
    });
  });
  return calls;
}

async function longestSince(page: Page, since: number): Promise<number> {
  return page.evaluate((t) => (window as unknown as { __long: { start: number; duration: number }[] }).__long.filter((e) => e.start >= t).reduce((m, e) => Math.max(m, e.duration), 0), since);
}

const pageNow = (page: Page) => page.evaluate(() => performance.now());

/** Two animation frames after `cond` holds, in the page's clock: the chart has been drawn. */
async function settled(page: Page, cond: () => boolean | Promise<boolean>, timeout = 600_000): Promise<number> {
  const start = Date.now();
  while (!(await cond())) {
    if (Date.now() - start > timeout) throw new Error('timed out waiting for the view to settle');
    await page.waitForTimeout(20);
  }
  return page.evaluate(() => new Promise<number>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now())))));
}

interface Step {
  step: string;
  ms: number;
  longestTaskMs: number;
  calls: { method: string; roundTripMs: number | null; answerBytes: number | null }[];
  items?: number;
  center?: string;
}

async function timedStep(page: Page, calls: Call[], step: string, act: () => Promise<void>, done: () => Promise<boolean>): Promise<Step> {
  await page.waitForTimeout(500); // let the previous step's stragglers end before the clock starts
  const first = calls.length;
  const t0 = await pageNow(page);
  await act();
  const t1 = await settled(page, done);
  const items = Number(await page.getByTestId('sunburst-chart').getAttribute('data-items').catch(() => NaN));
  return {
    step,
    ms: Math.round(t1 - t0),
    longestTaskMs: Math.round(await longestSince(page, t0)),
    calls: calls.slice(first).map((c) => ({ method: c.method, roundTripMs: c.ms, answerBytes: c.bytes })),
    ...(Number.isFinite(items) ? { items } : {}),
  };
}

async function browserPart(file: string, work: string): Promise<Record<string, unknown>> {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  let server: { url: string; child: ChildProcess } | null = null;
  try {
    server = await startServer([file], work);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.addInitScript(() => {
      const w = window as unknown as { __long: { start: number; duration: number }[] };
      w.__long = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__long.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
    });
    const calls = tapCalls(page);
    await page.goto(server.url);

    // 0. load; the user sorts Types while the analysis runs, then Insights may or may not open
    const l0 = await pageNow(page);
    await page.getByTestId('cmdline-file').first().click();
    const types = page.getByTestId('types-grid');
    await types.locator('.ag-row[row-index="0"] [col-id="type"]').waitFor({ timeout: 600_000 });
    await types.locator('.ag-header-cell[col-id="count"] .ag-header-cell-label').click();
    await page.getByTestId('analysis-state').waitFor({ state: 'detached', timeout: 1_200_000 });
    const analysedMs = Math.round((await pageNow(page)) - l0);
    await page.getByTestId('insights-count').waitFor({ timeout: 600_000 });
    const insightsCall = calls.find((c) => c.method === 'inspections');
    // the largest finding of each kind that can open Insights (insights-first.ts decides on these)
    const largest: Record<string, number> = {};
    const answer = insightsCall?.text ? (JSON.parse(insightsCall.text) as { result?: { value?: { findings?: { kind: string; bytes: number }[] } } }) : null;
    for (const f of answer?.result?.value?.findings ?? []) if (['event-handler-leak', 'timer-held', 'finalization', 'accumulation-point'].includes(f.kind)) largest[f.kind] = Math.max(largest[f.kind] ?? 0, f.bytes);
    const insightsFirst = {
      typesSortedByUserBeforeInspections: true,
      largestLeakFindingBytes: largest,
      leakFindings: Number(await page.getByTestId('insights-count').textContent()),
      inspectionsRoundTripMs: insightsCall?.ms ?? null,
      inspectionsAnswerBytes: insightsCall?.bytes ?? null,
      viewAfterInspections: (await page.getByTestId('view-insights').getAttribute('aria-selected')) === 'true' ? 'insights' : 'not insights',
      typesStillSelected: (await page.getByTestId('view-types').getAttribute('aria-selected')) === 'true',
      longestTaskDuringLoadMs: Math.round(await longestSince(page, l0)),
    };

    // 1. the Sunburst view
    const view = page.getByTestId('sunburst-view');
    const crumbs = page.getByTestId('sunburst-crumb');
    const idle = async () => (await view.getAttribute('data-loading')) === 'false' && (await page.getByTestId('sunburst-center').count()) === 1;
    const steps: Step[] = [];
    steps.push(await timedStep(page, calls, 'open Sunburst (by object)', () => page.getByTestId('view-sunburst').click(), async () => (await page.getByTestId('sunburst-chart').locator('svg').count()) === 1 && (await idle())));
    steps.push(await timedStep(page, calls, 'By type', () => page.getByTestId('sunburst-mode-type').click(), async () => (await view.getAttribute('data-mode')) === 'type' && (await idle())));
    for (const n of [2, 3]) {
      // the largest ring-1 item that has a ring below it (a leaf would leave nothing to draw)
      const largest = page.locator('[data-testid="sunburst-row"]:not(.others):not([data-children="0"])').first();
      if ((await largest.count()) === 0) {
        steps.push({ step: `zoom into the largest ring (${n - 1}): no ring to zoom into`, ms: 0, longestTaskMs: 0, calls: [] });
        continue;
      }
      const label = (await largest.locator('.name').textContent()) ?? '';
      steps.push({ ...(await timedStep(page, calls, `zoom into the largest ring (${n - 1})`, () => largest.click(), async () => (await crumbs.count()) === n && (await idle()))), center: label });
    }
    steps.push(await timedStep(page, calls, 'back to the whole heap (breadcrumb)', () => crumbs.first().click(), async () => (await crumbs.count()) === 1 && (await idle())));
    steps.push(await timedStep(page, calls, 'Treemap', () => page.getByTestId('sunburst-kind-treemap').click(), async () => (await page.getByTestId('sunburst-chart').getAttribute('data-kind')) === 'treemap'));
    steps.push(await timedStep(page, calls, 'Sunburst again', () => page.getByTestId('sunburst-kind-sunburst').click(), async () => (await page.getByTestId('sunburst-chart').getAttribute('data-kind')) === 'sunburst'));
    steps.push(await timedStep(page, calls, 'By object', () => page.getByTestId('sunburst-mode-object').click(), async () => (await view.getAttribute('data-mode')) === 'object' && (await idle())));

    // 2. What if: ignore the reference into the largest real object of the rings (ring 1 holds the
    // root categories: center them until a row is an object) from its referrer on its first path
    const objectRow = page.locator('[data-testid="sunburst-row"][data-object-node]').filter({ hasNotText: /^\[/ }).first();
    for (let n = 2; n < 6 && (await objectRow.count()) === 0; n++) {
      await page.locator('[data-testid="sunburst-row"]:not(.others):not([data-children="0"])').first().click();
      await settled(page, async () => (await crumbs.count()) === n && (await idle()));
    }
    const ignoredObject = await objectRow.locator('.name').textContent();
    await objectRow.click({ button: 'right' });
    await page.getByTestId('menu-paths').click();
    const pathRows = page.getByTestId('path-row');
    await pathRows.nth(1).waitFor({ timeout: 600_000 });
    let referrer = '';
    for (let k = 1; k < 6 && !referrer; k++) {
      await pathRows.nth(k).click({ button: 'right' });
      await page.getByTestId('object-menu').waitFor();
      if ((await page.getByTestId('menu-ignore-reference').count()) === 1) referrer = (await pathRows.nth(k).locator('.label').textContent())?.trim() ?? '?';
      else await page.keyboard.press('Escape');
    }
    if (!referrer) throw new Error('no path row offers "Ignore this reference"');
    await page.waitForTimeout(500);
    const w0 = await pageNow(page);
    const wFirst = calls.length;
    await page.getByTestId('menu-ignore-reference').click();
    const count = page.getByTestId('whatif-banner').getByTestId('whatif-count');
    await count.waitFor({ timeout: 60_000 });
    const w1 = await settled(page, async () => (await count.textContent()) === 'numbers with 1 reference ignored:', 1_200_000);
    const whatIf = {
      ignoredReferenceInto: ignoredObject,
      referrer,
      numbersBackMs: Math.round(w1 - w0),
      longestTaskMs: Math.round(await longestSince(page, w0)),
    };
    const whatIfCalls = calls.slice(wFirst);
    const wDone = performance.now();
    const r0 = await pageNow(page);
    const rFirst = calls.length;
    await page.getByTestId('whatif-restore').click();
    const r1 = await settled(page, async () => (await page.getByTestId('whatif-banner').count()) === 0);
    const restore = { ms: Math.round(r1 - r0), longestTaskMs: Math.round(await longestSince(page, r0)), calls: calls.slice(rFirst).map((c) => ({ method: c.method, roundTripMs: c.ms, answerBytes: c.bytes })) };
    await page.waitForTimeout(2000); // the what-if's queries still in the worker answer late: report when
    // each of the what-if step's calls, with `afterNumbersMs` = answered that long after the numbers were back (0 = before)
    const whatIfWithCalls = { ...whatIf, calls: whatIfCalls.map((c) => ({ method: c.method, roundTripMs: c.ms, answerBytes: c.bytes, afterNumbersMs: c.ms === null ? null : Math.max(0, Math.round(c.sent + c.ms - wDone)) })) };
    return { analysedMs, insightsFirst, sunburst: steps, whatIf: whatIfWithCalls, restore, chromium: browser.version() };
  } finally {
    await browser.close();
    if (server) await stop(server.child);
  }
}

const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Step 3: the view's queries on the same heap in this process, wall and CPU. */
function cpuPart(): Record<string, unknown> {
  const g = makeSyntheticHeap({ objects: OBJECTS, seed: SEED });
  const file = { token: 't' as FileToken, name: 'bench', displayPath: 'bench', size: 0, modifiedMs: 0, source: 'path', formatHint: null, exists: true } satisfies FileEntry;
  const session = new SnapshotSession(g, { sessionId: 's' as SessionId, file, parseMs: 0 });
  const c0 = cpu();
  const t0 = performance.now();
  session.runAnalysis();
  const analysis = { wallMs: Math.round(performance.now() - t0), cpuMs: Math.round(cpu() - c0) };
  const rows: Record<string, unknown>[] = [];
  const run = (label: string, req: Omit<DominatorSunburstReq, 'sessionId'>): DominatorSunburst => {
    const c = cpu();
    const w = performance.now();
    const r = session.dominatorSunburst(req);
    rows.push({ query: label, wallMs: Math.round((performance.now() - w) * 10) / 10, cpuMs: Math.round((cpu() - c) * 10) / 10, items: r.items.length, jsonBytes: JSON.stringify(r).length });
    return r;
  };
  run('whole heap, by object', { node: null, mode: 'object' });
  const byType = run('whole heap, by type', { node: null, mode: 'type' });
  const g1 = byType.items.find((x) => x.depth === 1 && x.kind === 'group' && x.childCount > 0);
  if (g1) {
    const z1 = run('zoom 1: largest ring-1 group', { node: null, mode: 'type', typePath: [g1.typeIndex!] });
    const g2 = z1.items.find((x) => x.depth === 1 && x.kind === 'group' && x.childCount > 0);
    if (g2) run('zoom 2: its largest ring-1 group', { node: null, mode: 'type', typePath: [g1.typeIndex!, g2.typeIndex!] });
  }
  run('whole heap, by type (again)', { node: null, mode: 'type' });
  run('whole heap, by object (again)', { node: null, mode: 'object' });
  return { analysis, reachableBytes: byType.reachableSize, queries: rows };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'heapscope-sunburst-bench-'));
  try {
    const build = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '-c', 'vite.renderer.config.ts', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('renderer build failed');
    const file = join(tmpdir(), `synthetic-${OBJECTS}-seed${SEED}.gcdump`);
    if (!existsSync(file)) generateGcdump({ objects: OBJECTS, out: file, seed: SEED });
    const ui = await browserPart(file, work);
    const inProcess = CPU ? cpuPart() : null;
    process.stdout.write(`${JSON.stringify({ objects: OBJECTS, file, ...ui, workerQueriesInProcess: inProcess })}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();

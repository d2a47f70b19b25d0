/**
 * The object inspector on a hub object, in browser mode and Debian's Chromium (a benchmark, never
 * a test):
 *
 *   npx tsx test/perf/inspector-ui.bench.ts [--refs 1000000] [--objects 10000000]
 *
 * Writes a .gcdump whose one root-held array references R distinct small objects (R + 2 nodes;
 * with --objects N, N − R − 2 more objects in root-held chains of 10 over 100 types, so the hub
 * sits in a heap of N objects),
 * opens it, waits for the analysis, then opens the array in the inspector through Go to address
 * (Ctrl+G) and measures, from the Enter key to its first 200 outgoing references on screen (and
 * then to 200 more after "Show more"): the wall time and the longest main-thread task
 * (PerformanceObserver 'longtask', i.e. every task over 50 ms; 0 = none). The requirement is
 * ≤ 100 ms: only windows of rows cross to the page, never the hub's reference list.
 * Prints one JSON line.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { HeapGraphBuilder } from '../../shared/graph/heap-graph-builder.js';
import { emptyMetadata } from '../../shared/graph/metadata.js';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { startServer, stop } from '../helpers/heapscope-serve.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const i = process.argv.indexOf('--refs');
const REFS = i > 0 ? Number(process.argv[i + 1].replace(/_/g, '')) : 1_000_000;
const j = process.argv.indexOf('--objects');
const OBJECTS = j > 0 ? Number(process.argv[j + 1].replace(/_/g, '')) : REFS + 2;
const HUB_ADDRESS = 0x7f0010000000;
const CHAIN = 10;

/** root → hub (Object[] of R references) → R distinct leaves of 24 bytes; root → filler chains. */
/** Returns the graph's node count. */
function writeHub(path: string, refs: number, objects: number): number {
  const filler = Math.max(0, objects - refs - 2);
  const b = new HeapGraphBuilder({ expectedNodes: refs + 2 + filler, expectedEdges: refs + 1 + filler });
  const rootT = b.addType('[.NET Roots]');
  const hubT = b.addType('System.Object[]', 'System.Private.CoreLib.dll', -1);
  const leafT = b.addType('Bench.Leaf', 'Bench.dll', -1);
  const fillT = Array.from({ length: 100 }, (_, t) => b.addType(`Bench.Filler${t}`, 'Bench.dll', -1));
  const root = b.createNode();
  const hub = b.createNode();
  const first = b.createNodes(refs);
  const targets = new Uint32Array(refs);
  for (let k = 0; k < refs; k++) {
    targets[k] = first + k;
    b.setNode(first + k, leafT, 24, []);
    b.setAddress(first + k, HUB_ADDRESS + 0x1000_0000 + k * 24);
  }
  // filler: chains of CHAIN objects, each chain's head held by the root, addresses below the hub's
  const fill = filler > 0 ? b.createNodes(filler) : 0;
  const heads: number[] = [hub];
  for (let k = 0; k < filler; k++) {
    const next = (k + 1) % CHAIN !== 0 && k + 1 < filler ? [fill + k + 1] : [];
    if (k % CHAIN === 0) heads.push(fill + k);
    b.setNode(fill + k, fillT[Math.floor(k / CHAIN) % fillT.length], 24 + 8 * (k % 7), next);
    b.setAddress(fill + k, 0x10000 + k * 64);
  }
  b.setNode(root, rootT, 0, heads);
  b.setNode(hub, hubT, 24 + 8 * refs, targets);
  b.setAddress(hub, HUB_ADDRESS);
  b.setRoot(root);
  const meta = emptyMetadata('synthetic');
  meta.pointerSize = 8;
  const fd = openSync(path, 'w');
  try {
    const g = b.finish(meta);
    for (const c of writeGcdump(g)) for (let done = 0; done < c.length; ) done += writeSync(fd, c, done, c.length - done);
    return g.nodeCount;
  } finally {
    closeSync(fd);
  }
}

/** In-page clock of the first animation frame with `count` outgoing reference rows in the inspector. */
async function whenRows(page: Page, count: number): Promise<number> {
  const h = await page.waitForFunction((n: number) => (document.querySelectorAll('[data-testid="refs-outgoing"] [data-testid="ref-row"]').length >= n ? performance.now() : false), count, { polling: 'raf', timeout: 120_000 });
  return (await h.jsonValue()) as number;
}

async function longestSince(page: Page, since: number): Promise<number> {
  return page.evaluate((t) => (window as unknown as { __long: { start: number; duration: number }[] }).__long.filter((e) => e.start >= t).reduce((m, e) => Math.max(m, e.duration), 0), since);
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'heapscope-inspector-bench-'));
  let server: { url: string; child: ChildProcess } | null = null;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const build = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '-c', 'vite.renderer.config.ts', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('renderer build failed');
    const file = join(work, `hub-${REFS}.gcdump`);
    const nodes = writeHub(file, REFS, OBJECTS);
    server = await startServer([file], work);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.addInitScript(() => {
      const w = window as unknown as { __long: { start: number; duration: number }[] };
      w.__long = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__long.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
    });
    await page.goto(server.url);
    await page.getByTestId('cmdline-file').first().click();
    await page.getByTestId('types-grid').locator('.ag-row[row-index="0"] [col-id="type"]').waitFor({ timeout: 300_000 });
    await page.getByTestId('analysis-state').waitFor({ state: 'detached', timeout: 600_000 });

    await page.keyboard.press('Control+g');
    await page.getByTestId('goto-input').fill('0x' + HUB_ADDRESS.toString(16));
    const t0 = await page.evaluate(() => performance.now());
    await page.getByTestId('goto-input').press('Enter');
    const shown = await whenRows(page, 200);
    await page.getByTestId('refs-incoming').getByTestId('ref-row').first().waitFor();
    const openLongest = await longestSince(page, t0);
    const t1 = await page.evaluate(() => performance.now());
    await page.getByTestId('refs-outgoing').getByTestId('ref-show-more').click();
    const more = await whenRows(page, 400);
    const moreLongest = await longestSince(page, t1);
    const outgoing = await page.getByTestId('inspector-outgoing-count').textContent();
    process.stdout.write(
      `${JSON.stringify({
        refs: REFS,
        nodes,
        outgoingShown: outgoing,
        openInspectorMs: Math.round(shown - t0),
        openLongestMainThreadTaskMs: Math.round(openLongest),
        showMoreMs: Math.round(more - t1),
        showMoreLongestMainThreadTaskMs: Math.round(moreLongest),
        chromium: browser.version(),
      })}\n`,
    );
  } finally {
    await browser.close();
    if (server) await stop(server.child);
    rmSync(work, { recursive: true, force: true });
  }
}

await main();

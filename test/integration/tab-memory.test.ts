import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/host/backend.js';
import { collectGarbage } from '../../electron/workers/collect-garbage.js';
import type { SessionId } from '../../shared/ipc/contract.js';
import { generateGcdump } from '../tools/gen-gcdump.js';
import { testBackend } from '../helpers/test-backend.js';

/**
 * Closing a tab returns its memory (issue 17 item 5), measured in the back end the browser-mode
 * server and the desktop app share: a 2M-object synthetic heap (~150 MB with its analyses) is
 * opened, analysed and queried (sort caches), then closed. Workers are threads of this process,
 * so the process RSS covers them. RSS is noisy (allocator, GC timing), so the assertions are
 * ratios that a retained graph could not pass: the last tab of a worker (recycled) leaves at most
 * a quarter of what it added; a tab sharing its worker gives back at least a quarter (without
 * collect-garbage.ts it gave back nothing until another tab's query happened to start a GC).
 */
const OBJECTS = 2_000_000;
const SAMPLE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'electron', 'resources', 'sample.gcdump');

describe('closing a tab returns its memory', () => {
  let dir: string;
  let big: string;
  let backend: Backend;
  const rss = () => process.memoryUsage().rss;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-tab-memory-'));
    big = join(dir, 'big.gcdump');
    generateGcdump({ objects: OBJECTS, out: big, seed: 3 });
    backend = testBackend(join(dir, 'config')); // one worker: closing one tab must not wait for the worker to go
  }, 120_000);

  afterAll(async () => {
    await backend?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  async function openAnalysed(path: string): Promise<SessionId> {
    const file = await backend.service.registerPath({ path, via: 'typed' });
    const { sessionId } = await backend.service.open({ fileToken: file.token });
    for (;;) {
      const s = await backend.service.summary({ sessionId });
      if (s.analysis.state === 'done') break;
      if (s.analysis.state === 'failed' || s.analysis.state === 'cancelled') throw new Error(`analysis ${s.analysis.state}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // the views a user opens first: their sort orders are cached in the worker
    await backend.service.typeRows({ sessionId, sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 200 });
    await backend.service.typeRows({ sessionId, sort: { key: 'count', dir: 'desc' }, start: 0, end: 200 });
    return sessionId;
  }

  /** RSS once it has stopped falling (GC and unmapping are not instant), at most `ms` later. */
  async function settledRss(ms = 15_000): Promise<number> {
    collectGarbage(); // this thread's garbage (the generator's, the test's) is not what is measured
    const end = Date.now() + ms;
    let last = rss();
    while (Date.now() < end) {
      await new Promise((r) => setTimeout(r, 500));
      const now = rss();
      if (now > last - 2 * 2 ** 20) return Math.min(now, last);
      last = now;
    }
    return last;
  }

  /**
   * Waits until at most `kept` of what the tab added is still held. Terminating a worker and
   * unmapping its memory takes a moment, longer on a loaded machine: the generous timeout only
   * catches memory that never comes back.
   */
  async function expectReturned(label: string, before: number, loaded: number, kept: number): Promise<void> {
    const limit = before + (loaded - before) * kept;
    let after = rss();
    await expect
      .poll(
        () => {
          collectGarbage();
          after = rss();
          return after;
        },
        { interval: 500, timeout: 60_000 },
      )
      .toBeLessThan(limit)
      .catch((e: unknown) => {
        console.log(`tab memory, ${label}: before ${mb(before)}, loaded ${mb(loaded)}, still ${mb(after)} after 60 s`);
        throw e;
      });
    console.log(`tab memory, ${label}: before ${mb(before)}, loaded ${mb(loaded)}, after close ${mb(after)}`);
  }

  it('the last tab of a worker (which is then recycled): its memory is back', async () => {
    // Steady state first: a closed worker is replaced by an idle spare (an isolate of its own),
    // which the first open starts too; measured from there, the spare is in both numbers.
    await backend.service.close({ sessionId: await openAnalysed(SAMPLE) });
    const before = await settledRss();
    const id = await openAnalysed(big);
    const loaded = rss();
    expect(loaded - before).toBeGreaterThan(50 * 2 ** 20); // the tab really holds its heap
    await backend.service.close({ sessionId: id });
    await expectReturned('last tab', before, loaded, 1 / 4);
  }, 180_000);

  it('a tab sharing its worker with another: its memory is back while the other stays open', async () => {
    const other = await openAnalysed(big); // keeps the worker alive
    // Closing a small tab in the same worker collects the garbage of the other's load first.
    await backend.service.close({ sessionId: await openAnalysed(SAMPLE) });
    const before = await settledRss();
    const id = await openAnalysed(big);
    const loaded = rss();
    expect(loaded - before).toBeGreaterThan(50 * 2 ** 20);
    await backend.service.close({ sessionId: id });
    // The graph's buffers are freed at once (collect-garbage.ts), but glibc keeps part of what a
    // worker thread freed for reuse (its mmap threshold rises after large frees): 41–85% of the
    // tab's RSS came back in our runs, all of it with MALLOC_MMAP_THRESHOLD_=131072 in the
    // environment; without the collection, none until another tab's query started a GC.
    await expectReturned('shared worker', before, loaded, 3 / 4);
    // the other tab still answers
    const rows = await backend.service.typeRows({ sessionId: other, sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 5 });
    expect(rows.rows).toHaveLength(5);
    await backend.service.close({ sessionId: other });
  }, 180_000);
});

function mb(bytes: number): string {
  return `${Math.round(bytes / 2 ** 20)} MB`;
}

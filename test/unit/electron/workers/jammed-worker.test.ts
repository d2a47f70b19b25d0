import { copyFileSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, SessionId, TypeRow } from '../../../../shared/ipc/contract.js';
import { FileRegistry } from '../../../../electron/host/file-registry.js';
import { locateSample } from '../../../../electron/host/sample.js';
import { SessionManager } from '../../../../electron/host/session-manager.js';
import { devWorkerScripts } from '../../../../electron/workers/worker-scripts.js';
import { snapshotFacts, type SnapshotFacts } from '../../../helpers/sample-facts.js';
import { eventWaiter, type WaitForEvent } from '../../../helpers/event-waiter.js';

// Issue 13: a load that runs for minutes without answering jams its snapshot worker. Cancel and
// Close must still answer (a worker that does not answer within `unresponsiveAfterMs` is
// terminated and replaced), the jammed tab gets `worker/unresponsive`, and the other tabs on that
// worker are reopened from their files on a new worker without losing an answer.
//
// What jams the worker here is the test-only hook workers/debug-jam.ts (enabled by the
// `debugJam` option, triggered by a `<file>.jam` marker): a synchronous loop in the load, before
// the reader runs, that either never checks its token ('ignore-cancel': what a reader stuck in an
// unchecked loop does) or checks it like every long loop must ('observe-cancel'). It does not
// exercise any reader; it exercises the worker pool's and session manager's defences.
const SAMPLE = locateSample({ callerUrl: new URL('../../../../electron/host/sample.ts', import.meta.url).href });
const files = new FileRegistry();
let dir: string;
let facts: SnapshotFacts;
const managers: SessionManager[] = [];

interface Rig {
  mgr: SessionManager;
  events: { name: EventName; payload: unknown }[];
  open(path: string): Promise<SessionId>;
  waitFor: WaitForEvent;
  count(name: EventName, id: SessionId): number;
}

function rig(poolSize: number, scripts = devWorkerScripts()): Rig {
  const events: { name: EventName; payload: unknown }[] = [];
  const mgr = new SessionManager({ scripts, poolSize, debugJam: true, unresponsiveAfterMs: 1000, emit: (name, payload) => void events.push({ name, payload }) });
  managers.push(mgr);
  return {
    mgr,
    events,
    async open(path) {
      const file = await files.register(path, 'path');
      return mgr.open(file, path).sessionId;
    },
    waitFor: eventWaiter(events),
    count(name, id) {
      return events.filter((e) => e.name === name && (e.payload as { sessionId?: string }).sessionId === id).length;
    },
  };
}

const sleep = (ms: number) => new Promise<'slept'>((r) => setTimeout(() => r('slept'), ms));
const byCount = { sort: { key: 'count', dir: 'desc' }, start: 0, end: 8 } as const;
/** The columns a type row has before and after the analysis (retained sizes come later). */
const parsed = (rows: TypeRow[]) => rows.map((r) => [r.type, r.count, r.shallowSize]);

/** A copy of the sample that the hook jams (marker written), and one it leaves alone. */
function copies(tag: string, mode: 'ignore-cancel' | 'observe-cancel'): { jam: string; plain: string } {
  const jam = join(dir, `jam-${tag}.gcdump`);
  const plain = join(dir, `plain-${tag}.gcdump`);
  copyFileSync(SAMPLE!, jam);
  copyFileSync(SAMPLE!, plain);
  writeFileSync(`${jam}.jam`, mode);
  return { jam, plain };
}

beforeAll(async () => {
  if (SAMPLE) facts = await snapshotFacts(SAMPLE);
  dir = mkdtempSync(join(tmpdir(), 'heapscope-jam-'));
});

afterAll(async () => {
  await Promise.all(managers.map((m) => m.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!SAMPLE)('a jammed snapshot worker (sample missing: run test/tools/make-sample.ts)', () => {
  it('Cancel of a load that ignores cancellation: the worker is replaced, the tab gets worker/unresponsive, its neighbour is reopened and keeps answering', async () => {
    const r = rig(1); // one worker: the neighbour shares it with the jammed load
    const { jam, plain } = copies('cancel', 'ignore-cancel');
    const n = await r.open(plain);
    await r.mgr.summary(n);
    await r.waitFor('summary-updated', (p) => p.sessionId === n && p.summary.analysis.state === 'done');
    const rowsBefore = await r.mgr.query('typeRows', { sessionId: n, ...byCount });
    const domBefore = await r.mgr.query('dominatorChildren', { sessionId: n, node: null, start: 0, end: 5 });
    const w0 = r.mgr.pool.route(n);

    const j = await r.open(jam);
    expect(r.mgr.pool.route(j)).toBe(w0);
    const jSummary = r.mgr.summary(j).catch((e: unknown) => e);
    // the neighbour's call waits behind the spinning load: the jam the issue describes
    const pendingRows = r.mgr.query('typeRows', { sessionId: n, ...byCount });
    expect(await Promise.race([pendingRows, sleep(1500)])).toBe('slept');

    const t0 = Date.now();
    await r.mgr.cancel(j);
    // generous: the spin lasts ten minutes, so anything short of that means the watchdog acted
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(await jSummary).toMatchObject({ code: 'worker/unresponsive' });
    const failed = await r.waitFor('session-failed', (p) => p.sessionId === j);
    expect(failed.error.code).toBe('worker/unresponsive');
    expect(failed.error.message).toBe('the analysis did not stop when asked; its worker was restarted');
    expect(w0.alive).toBe(false); // terminated: no CPU burning on after the cancel
    expect(r.mgr.pool.allWorkers()).not.toContain(w0);

    // the neighbour: same session id, reopened from its file on a new worker, same answers
    const rowsAfter = await pendingRows;
    expect(parsed(rowsAfter.rows)).toEqual(parsed(rowsBefore.rows));
    expect(rowsAfter.total).toBe(rowsBefore.total);
    expect(r.mgr.pool.route(n)).not.toBe(w0);
    expect((await r.mgr.summary(n)).objects.count).toBe(facts.objectCount);
    expect(await r.mgr.query('dominatorChildren', { sessionId: n, node: null, start: 0, end: 5 })).toEqual(domBefore);
    expect(r.count('session-failed', n) + r.count('session-closed', n)).toBe(0);
    expect(r.mgr.list().map((s) => s.sessionId)).toEqual([n]);

    // the jammed tab can be reopened (here without the marker, so it loads)
    unlinkSync(`${jam}.jam`);
    const again = await r.open(jam);
    expect((await r.mgr.summary(again)).objects.count).toBe(facts.objectCount);
  });

  it('Close of a jammed tab answers and stops the worker; a neighbour in ANOTHER worker is kept as it is', async () => {
    const r = rig(2);
    const { jam, plain } = copies('close', 'ignore-cancel');
    const n = await r.open(plain);
    await r.mgr.summary(n);
    const wn = r.mgr.pool.route(n);
    const j = await r.open(jam);
    const wj = r.mgr.pool.route(j);
    expect(wj).not.toBe(wn);
    await sleep(300); // let the worker take the load and start spinning

    const t0 = Date.now();
    await r.mgr.close(j);
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(await r.waitFor('session-closed', (p) => p.sessionId === j)).toEqual({ sessionId: j, reason: 'user' });
    expect(r.count('session-failed', j)).toBe(0); // closed on purpose: not also reported as a failure
    expect(wj.alive).toBe(false);
    // the other worker's session was never touched: same worker, loaded once
    expect(r.mgr.pool.route(n)).toBe(wn);
    expect(wn.alive).toBe(true);
    expect(r.count('session-ready', n)).toBe(1);
    const rows = await r.mgr.query('typeRows', { sessionId: n, ...byCount });
    expect(rows.total).toBe((await r.mgr.summary(n)).typeCount);
  });

  it('Cancel of a long synchronous loop that checks its token reaches it through the shared flag: `cancelled`, and the worker is kept', async () => {
    const r = rig(1);
    const { jam, plain } = copies('observe', 'observe-cancel');
    const n = await r.open(plain);
    await r.mgr.summary(n);
    const w0 = r.mgr.pool.route(n);
    const j = await r.open(jam);
    const jSummary = r.mgr.summary(j).catch((e: unknown) => e);
    await sleep(300);

    await r.mgr.cancel(j);
    expect(await jSummary).toMatchObject({ code: 'cancelled' });
    expect((await r.waitFor('session-failed', (p) => p.sessionId === j)).error.code).toBe('cancelled');
    // no restart: the loop saw the flag although the worker's event loop was busy
    expect(w0.alive).toBe(true);
    expect(r.mgr.pool.route(n)).toBe(w0);
    expect(r.count('session-ready', n)).toBe(1);
    expect((await r.mgr.query('typeRows', { sessionId: n, ...byCount })).rows).toHaveLength(8);
  });

  it('a worker that is slow to start is not taken for a jammed one: the answer time counts from its `started` message', async () => {
    const dev = devWorkerScripts();
    const slow = { ...dev, snapshot: { ...dev.snapshot, tsEntry: pathToFileURL(join(import.meta.dirname, '../../../helpers/workers/slow-start-snapshot.worker.ts')).href } };
    const r = rig(1, slow); // its only worker needs 2.5 s before it listens; the limit is 1 s
    const { plain } = copies('slow', 'ignore-cancel');
    const id = await r.open(plain);
    const outcome = r.mgr.summary(id).catch((e: unknown) => e);
    await r.mgr.cancel(id); // sent at once: the worker is still starting
    expect(await outcome).toMatchObject({ code: 'cancelled' });
    expect((await r.waitFor('session-failed', (p) => p.sessionId === id)).error.code).toBe('cancelled');
    expect(r.events.filter((e) => e.name === 'session-failed')).toHaveLength(1);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, SessionId } from '../../../../shared/ipc/contract.js';
import { FileRegistry } from '../../../../electron/host/file-registry.js';
import { SessionManager } from '../../../../electron/host/session-manager.js';
import { devWorkerScripts } from '../../../../electron/workers/worker-scripts.js';
import { fixturePath, NO_FIXTURES } from '../../../helpers/fixtures.js';
import { generateGcdump } from '../../../tools/gen-gcdump.js';
import { eventWaiter } from '../../../helpers/event-waiter.js';

// setRetained end to end through real worker_threads: the figures of the golden run on a real
// heap, progress events, grid windows answered while a calculation runs, and cancellation.
const android = fixturePath('gcdump/mono_android_20231108_150515_31024.gcdump');
const events: { name: EventName; payload: unknown }[] = [];
let dir: string;
let big: string;
let mgr: SessionManager;
const files = new FileRegistry();

const waitFor = eventWaiter(events);

async function open(path: string): Promise<SessionId> {
  const file = await files.register(path, 'path');
  const id = mgr.open(file, path).sessionId;
  await mgr.summary(id);
  return id;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-setret-'));
  big = join(dir, 'big.gcdump');
  generateGcdump({ objects: 300_000, seed: 11, out: big });
  mgr = new SessionManager({ scripts: devWorkerScripts(), poolSize: 1, emit: (name, payload) => void events.push({ name, payload }) });
});

afterAll(async () => {
  await mgr?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!android)(`setRetained in the session worker${android ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('computes the golden figures, reports progress and shows them in the type rows', async () => {
    const id = await open(android!);
    const w = await mgr.query('typeRows', { sessionId: id, sort: { key: 'type', dir: 'asc' }, filter: 'VisualStateGroupList', start: 0, end: 5 });
    expect(w.rows.map((r) => [r.type, r.setRetainedSize])).toEqual([['Microsoft.Maui.Controls.VisualStateGroupList', null]]);
    const t = w.rows[0].typeIndex;
    const r = await mgr.setRetained({ sessionId: id, typeIndices: [t] });
    expect(r.rows).toEqual([{ typeIndex: t, setRetainedSize: 42_016 }]);
    const last = await waitFor('set-retained-progress', (p) => p.sessionId === id && p.done === 1);
    expect(last).toEqual({ sessionId: id, done: 1, total: 1, fraction: 1 });
    const after = await mgr.query('typeRows', { sessionId: id, sort: { key: 'type', dir: 'asc' }, filter: 'VisualStateGroupList', start: 0, end: 5 });
    expect(after.rows.map((x) => [x.retainedSize, x.setRetainedSize])).toEqual([[38_408, 42_016]]);
    await mgr.close(id);
  }, 120_000);
});

describe('setRetained on a 300k-object dump', () => {
  it('answers grid windows while it runs and stops with `cancelled` on cancelSetRetained', async () => {
    const id = await open(big);
    await waitFor('summary-updated', (p) => p.sessionId === id);
    const top = await mgr.query('typeRows', { sessionId: id, sort: { key: 'count', dir: 'desc' }, start: 0, end: 200 });
    const job = mgr.setRetained({ sessionId: id, typeIndices: top.rows.map((r) => r.typeIndex) });
    job.catch(() => undefined);
    await waitFor('set-retained-progress', (p) => p.sessionId === id && p.fraction > 0);
    // a grid window while the calculation runs: answered between slices
    const w = await mgr.query('typeRows', { sessionId: id, sort: { key: 'shallowSize', dir: 'desc' }, start: 0, end: 3 });
    expect(w.rows.length).toBe(3);
    await mgr.cancelSetRetained(id);
    await expect(job).rejects.toMatchObject({ code: 'cancelled' });
    // the session lives on, and a new call works
    const one = await mgr.setRetained({ sessionId: id, typeIndices: [top.rows[0].typeIndex] });
    expect(one.rows[0].setRetainedSize).toBeGreaterThanOrEqual(top.rows[0].retainedSize!);
    await mgr.close(id);
  }, 120_000);
});

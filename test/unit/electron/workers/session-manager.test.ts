import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, FileEntry, SessionId } from '../../../../shared/ipc/contract.js';
import { runCli } from '../../../../electron/cli/main.js';
import { FileRegistry } from '../../../../electron/host/file-registry.js';
import { SessionManager } from '../../../../electron/host/session-manager.js';
import { locateSample } from '../../../../electron/host/sample.js';
import { devWorkerScripts } from '../../../../electron/workers/worker-scripts.js';
import { captureIo } from '../../../helpers/capture-io.js';
import { fixturePath, NO_FIXTURES } from '../../../helpers/fixtures.js';
import '../../../../shared/formats/all-readers.js';
import { readSnapshot } from '../../../../shared/formats/read-snapshot.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { SnapshotSession } from '../../../../shared/session/snapshot-session.js';
import { generateGcdump } from '../../../tools/gen-gcdump.js';
import { snapshotFacts, type SnapshotFacts } from '../../../helpers/sample-facts.js';
import { eventWaiter } from '../../../helpers/event-waiter.js';

// Real worker_threads (through the tsx shim) on the committed sample and on a generated 200k-object
// dump that is big enough to cancel while it loads/analyses.
const SAMPLE = locateSample({ callerUrl: new URL('../../../../electron/host/sample.ts', import.meta.url).href });
const events: { name: EventName; payload: unknown }[] = [];
let dir: string;
let big: string;
let mgr: SessionManager;
const files = new FileRegistry();
/** The sample, opened by the first test and reused by later ones (each new worker costs a tsx start). */
let shared: SessionId;
/** The sample's numbers, computed in-process by the engine (the oracle for the worker's answers). */
let facts: SnapshotFacts;

const waitFor = eventWaiter(events);

async function open(path: string): Promise<{ id: SessionId; file: FileEntry }> {
  const file = await files.register(path, 'path');
  return { id: mgr.open(file, path).sessionId, file };
}

beforeAll(async () => {
  if (SAMPLE) facts = await snapshotFacts(SAMPLE);
  dir = mkdtempSync(join(tmpdir(), 'heapscope-pool-'));
  big = join(dir, 'big.gcdump');
  generateGcdump({ objects: 200_000, seed: 7, out: big });
  mgr = new SessionManager({ scripts: devWorkerScripts(), poolSize: 2, emit: (name, payload) => void events.push({ name, payload }) });
});

afterAll(async () => {
  await mgr?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!SAMPLE)('SessionManager + worker pool (sample missing: run test/tools/make-sample.ts)', () => {
  it('opens the sample in a worker: type rows first, retained sizes after the analysis', async () => {
    const { id } = await open(SAMPLE!);
    shared = id;
    const summary = await mgr.summary(id);
    expect(summary.objects.count).toBe(facts.objectCount);
    expect(summary.nodeCount).toBe(facts.nodeCount);
    const first = await mgr.query('typeRows', { sessionId: id, sort: { key: 'count', dir: 'desc' }, start: 0, end: 5 });
    expect(first.total).toBe(summary.typeCount);
    expect(first.rows).toHaveLength(5);
    const updated = await waitFor('summary-updated', (p) => p.sessionId === id);
    expect(updated.summary.analysis.state).toBe('done');
    // objects, not nodes: the worker's analysis says reachable, garbage and frozen-without-a-root apart
    const u = updated.summary;
    expect(u.reachable!.count + u.unreachable!.count + u.unreachableFrozen!.count).toBe(facts.objectCount);
    expect(u.pseudoNodeCount + u.undefinedNodeCount).toBe(facts.nodeCount - facts.objectCount);
    const dom = await mgr.query('dominatorChildren', { sessionId: id, node: null, start: 0, end: 3 });
    expect(dom.rows[0].retainedSize).toBeGreaterThanOrEqual(dom.rows[1].retainedSize);
    const retained = await mgr.query('typeRows', { sessionId: id, sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 1 });
    expect(retained.rows[0].retainedSize).not.toBeNull();
    expect(events.some((e) => e.name === 'load-progress' && (e.payload as { sessionId: string }).sessionId === id)).toBe(true);

    // The retainer index is built by its own child worker: the most referenced object's incoming
    // references must be exactly the graph's (computed here, in-process).
    const g = await readSnapshot(new MemoryByteSource(new Uint8Array(readFileSync(SAMPLE!))));
    const inDegree = new Uint32Array(g.nodeCount);
    for (let k = 0; k < g.edgeCount; k++) inDegree[g.edgeTarget[k]]++;
    let target = 0;
    for (let n = 0; n < g.nodeCount; n++) if (inDegree[n] > inDegree[target]) target = n;
    expect(inDegree[target]).toBeGreaterThan(1);
    const incoming = await mgr.query('references', { sessionId: id, node: target, direction: 'incoming', start: 0, end: 1 });
    expect(incoming.total).toBe(inDegree[target]);

    // Go to address is answered by the worker's session: the object of the highest address
    let top = -1;
    for (let n = 0; n < g.nodeCount; n++) if (g.address[n] !== 0n && (top < 0 || g.address[n] > g.address[top])) top = n;
    const hit = await mgr.query('objectAtAddress', { sessionId: id, address: '0x' + g.address[top].toString(16) });
    expect(hit).toMatchObject({ offset: 0, object: { node: top, addressKind: 'address' } });
    expect(await mgr.query('objectAtAddress', { sessionId: id, address: '0x1' })).toBeNull();
  });

  it('exports the whole types view as CSV equal to `heapscope report --format csv --sort retained`', async () => {
    const id = shared;
    const out = join(dir, 'types.csv');
    const r = await mgr.exportCsv({ sessionId: id, view: 'types', sort: { key: 'retainedSize', dir: 'desc' } }, out);
    const cap = captureIo();
    expect(await runCli(['report', SAMPLE!, '--format', 'csv', '--sort', 'retained', '--top', '0'], cap.io)).toBe(0);
    const mine = readFileSync(out, 'utf8');
    expect(r.rows).toBe(mine.split('\r\n').length - 2);
    expect(mine.replace(/\r\n/g, '\n')).toBe(cap.out.replace(/\r\n/g, '\n'));
  });

  it('cancels a load while parsing: the session fails with `cancelled` and is gone', async () => {
    const { id } = await open(big);
    await mgr.cancel(id);
    await expect(mgr.summary(id)).rejects.toMatchObject({ code: 'cancelled' });
    const failed = await waitFor('session-failed', (p) => p.sessionId === id);
    expect(failed.error.code).toBe('cancelled');
    expect(mgr.has(id)).toBe(false);
  });

  it('cancels the analysis only: the session stays and answers type rows', async () => {
    const { id } = await open(big);
    await mgr.summary(id);
    await mgr.cancel(id);
    const upd = await waitFor('summary-updated', (p) => p.sessionId === id);
    expect(upd.summary.analysis.state).toBe('cancelled');
    await expect(mgr.query('dominatorChildren', { sessionId: id, node: null, start: 0, end: 1 })).rejects.toMatchObject({ code: 'cancelled' });
    const rows = await mgr.query('typeRows', { sessionId: id, sort: { key: 'shallowSize', dir: 'desc' }, start: 0, end: 3 });
    expect(rows.rows).toHaveLength(3);
    await mgr.close(id);
  });

  // Issue 14: after "Cancel analysis" the session offers "Compute again" instead of a dead end.
  it('computes the analysis again after a cancel: same numbers as an in-process run', async () => {
    const { id } = await open(big);
    await mgr.summary(id);
    await mgr.cancel(id);
    await waitFor('summary-updated', (p) => p.sessionId === id && p.summary.analysis.state === 'cancelled');
    const again = await mgr.computeAgain(id);
    expect(again.analysis.state).toBe('running');
    expect(again.analysis.error).toBeNull();
    const done = await waitFor('summary-updated', (p) => p.sessionId === id && p.summary.analysis.state === 'done');
    const g = await readSnapshot(new MemoryByteSource(new Uint8Array(readFileSync(big))));
    const local = new SnapshotSession(g, { sessionId: id, file: done.summary.file, parseMs: 0 });
    local.runAnalysis();
    expect(await mgr.query('dominatorChildren', { sessionId: id, node: null, start: 0, end: 20 })).toEqual(local.dominatorChildren({ node: null, start: 0, end: 20 }));
    expect(await mgr.query('dominatorTypeGroups', { sessionId: id, start: 0, end: 50 })).toEqual(local.dominatorTypeGroups({ start: 0, end: 50 }));
    const t = local.dominatorTypeGroups({ start: 0, end: 1 }).rows[0].typeIndex;
    expect(await mgr.query('dominatorTypeInstances', { sessionId: id, typeIndex: t, start: 0, end: 30 })).toEqual(local.dominatorTypeInstances({ typeIndex: t, start: 0, end: 30 }));
    expect(await mgr.query('retainedBy', { sessionId: id, typeIndex: t })).toEqual(local.retainedBy({ typeIndex: t }));
    // done: a second call changes nothing
    expect((await mgr.computeAgain(id)).analysis.state).toBe('done');
    await mgr.close(id);
  });

  it('a killed worker fails only its own session; the pool respawns and the other session keeps working', async () => {
    const a = await open(SAMPLE!);
    const b = { id: shared };
    await Promise.all([mgr.summary(a.id), mgr.summary(b.id)]);
    const wa = mgr.pool.route(a.id);
    const wb = mgr.pool.route(b.id);
    expect(wa).not.toBe(wb);
    const pending = mgr.query('dominatorChildren', { sessionId: a.id, node: null, start: 0, end: 1 }).catch((e: unknown) => e);
    await wa.kill();
    const closed = await waitFor('session-closed', (p) => p.sessionId === a.id);
    expect(closed.reason).toBe('worker-crashed');
    const err = (await pending) as { code?: string };
    // the call either finished before the kill or was rejected by it, never left hanging
    if (!('rows' in (err as object))) expect(err.code).toBe('worker/crashed');
    expect(events.some((e) => e.name === 'session-closed' && (e.payload as { sessionId: string }).sessionId === b.id)).toBe(false);
    const rows = await mgr.query('typeRows', { sessionId: b.id, sort: { key: 'type', dir: 'asc' }, start: 0, end: 2 });
    expect(rows.rows).toHaveLength(2);
    expect(mgr.pool.workerCount).toBe(2); // b's worker + the respawned spare
    await expect(mgr.query('typeRows', { sessionId: a.id, sort: { key: 'type', dir: 'asc' }, start: 0, end: 2 })).rejects.toMatchObject({ code: 'session/not-found' });
  });

  it('diffs two sessions that live in different workers by exchanging type summaries', async () => {
    const a = { id: shared };
    const b = await open(SAMPLE!);
    const [sa] = await Promise.all([mgr.summary(a.id), mgr.summary(b.id)]);
    expect(mgr.pool.route(a.id)).not.toBe(mgr.pool.route(b.id));
    const d = await mgr.diff({ sessionId: b.id, baselineSessionId: a.id, sort: { key: 'count', dir: 'desc' }, start: 0, end: 3 });
    expect(d.total).toBe(facts.namesWithObjects); // diff rows are per type name
    expect(sa.typeCount).toBeGreaterThanOrEqual(facts.namesWithObjects);
    expect(d.totals).toMatchObject({ count: facts.objectCount, baselineCount: facts.objectCount, countDelta: 0, shallowDelta: 0, retainedDelta: 0 });
    expect(d.rows[0]).toMatchObject({ status: 'both', countDelta: 0 });
    expect(d.rows[0].count).toBeGreaterThanOrEqual(d.rows[1].count);
    const changed = await mgr.diff({ sessionId: b.id, baselineSessionId: a.id, sort: { key: 'type', dir: 'asc' }, changedOnly: true, start: 0, end: 3 });
    expect(changed.total).toBe(0);
    await mgr.close(b.id);
  });

  it('closing a session frees it: session-closed {user}, later calls fail with session/not-found', async () => {
    await mgr.close(shared);
    expect(events.some((e) => e.name === 'session-closed' && (e.payload as { sessionId: string; reason: string }).sessionId === shared && (e.payload as { reason: string }).reason === 'user')).toBe(true);
    await expect(mgr.summary(shared)).rejects.toMatchObject({ code: 'session/not-found' });
    expect(mgr.list()).toEqual([]);
  });
});

const TRACE = fixturePath('nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace');
describe.skipIf(!TRACE)(`a trace without a heap snapshot opens as a GC timeline${TRACE ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('loads with a no-heap-dump warning, empty heap views, and the 478 GCs of the trace', async () => {
    const { id } = await open(TRACE!);
    const s = await mgr.summary(id);
    expect(s.warnings[0].code).toBe('no-heap-dump');
    expect(s.objects.count).toBe(0);
    expect((await mgr.query('typeRows', { sessionId: id, sort: { key: 'count', dir: 'desc' }, start: 0, end: 10 })).total).toBe(0);
    const t = await mgr.query('gcTimeline', { sessionId: id });
    expect(t.available).toBe(true);
    expect(t.events).toHaveLength(478);
    expect(t.summary!.gcCount).toBe(478);
    expect(t.events.map((e) => e.index)).toEqual(Array.from({ length: 478 }, (_, i) => i + 1));
    expect(t.events[0].heapSizeAfter).toBe(t.events[0].sizesAfter!.reduce((a, b) => a + b, 0));
    await mgr.close(id);
  });

  it('says why a .gcdump has no timeline', async () => {
    if (!SAMPLE) return;
    const { id } = await open(SAMPLE);
    await mgr.summary(id);
    const t = await mgr.query('gcTimeline', { sessionId: id });
    expect(t).toEqual({ available: false, reason: 'a gcdump snapshot carries no GC events (only .nettrace traces do)', events: [], summary: null });
    await mgr.close(id);
  });
});

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, HeapscopeEvents, SessionId, SnapshotSummary } from '../../../../shared/ipc/contract.js';
import { FileRegistry } from '../../../../electron/host/file-registry.js';
import { SessionManager } from '../../../../electron/host/session-manager.js';
import { devWorkerScripts } from '../../../../electron/workers/worker-scripts.js';
import { eventWaiter } from '../../../helpers/event-waiter.js';

// "What if" (issue 16) end to end through real worker_threads on the bundled sample: ignoring the
// PriceFeed → PriceChanged reference recomputes every view without it (the exact drop is checked
// against the original analysis in test/unit/shared/analysis/ignored-edges.test.ts), and an empty
// list restores the original numbers at once.
const SAMPLE = join(__dirname, '../../../../electron/resources/sample.gcdump');
const events: { name: EventName; payload: unknown }[] = [];
let mgr: SessionManager;
const files = new FileRegistry();

const waitFor = eventWaiter(events);

beforeAll(() => {
  mgr = new SessionManager({ scripts: devWorkerScripts(), poolSize: 1, emit: (name, payload) => void events.push({ name, payload }) });
});

afterAll(async () => {
  await mgr?.dispose();
});

const typeRow = async (id: SessionId, name: string) => {
  const w = await mgr.query('typeRows', { sessionId: id, sort: { key: 'type', dir: 'asc' }, filter: name, start: 0, end: 5 });
  return w.rows.find((r) => r.type === name)!;
};

describe('what if: ignored references in the session worker', () => {
  it('recomputes every view without the PriceChanged reference, and restores the original at once', async () => {
    const file = await files.register(SAMPLE, 'path');
    const id = mgr.open(file, SAMPLE).sessionId;
    await mgr.summary(id);
    const first = await waitFor('summary-updated', (p) => p.sessionId === id && p.summary.analysis.state === 'done');
    const before = first.summary;
    expect((await typeRow(id, 'SampleShop.ReportView')).retainedSize).toBe(166_800);

    const feedType = await typeRow(id, 'SampleShop.PriceFeed');
    const feed = (await mgr.query('objectRows', { sessionId: id, typeIndex: feedType.typeIndex, sort: { key: 'address', dir: 'asc' }, start: 0, end: 1 })).rows[0].node;
    const out = await mgr.query('references', { sessionId: id, node: feed, direction: 'outgoing', start: 0, end: 10 });
    expect(out.rows.map((r) => r.type)).toEqual(['System.Action<SampleShop.Product>']);
    const delegate = out.rows[0].node;
    expect(out.rows[0].retainedSize).toBe(178_536);

    events.length = 0;
    const started = await mgr.setIgnored({ sessionId: id, rules: [{ kind: 'reference', from: feed, to: delegate }] });
    expect(started.ignored?.references).toBe(1);
    expect(started.ignored?.items.map((x) => [x.rule, x.references])).toEqual([[{ kind: 'reference', from: feed, to: delegate }, 1]]);
    expect(started.ignored?.items[0].label).toMatch(/^SampleShop\.PriceFeed 0x[0-9a-f]+ → System\.Action<SampleShop\.Product> 0x[0-9a-f]+$/);
    expect(started.edgeCount).toBe(before.edgeCount);

    const done = (await waitFor('summary-updated', (p) => p.sessionId === id && p.summary.analysis.state === 'done')).summary;
    expect(done.ignored?.references).toBe(1);
    expect(done.reachable!.size).toBe(before.reachable!.size - 178_536);
    expect(events.some((e) => e.name === 'load-progress' && (e.payload as HeapscopeEvents['load-progress']).stage === 'analysis')).toBe(true);
    // every view answers from the recomputed analysis
    expect((await typeRow(id, 'SampleShop.ReportView')).retainedSize).toBe(0);
    const feedInfo = await mgr.query('objectInfo', { sessionId: id, node: feed });
    expect(feedInfo.retainedSize).toBe((await mgr.query('objectInfo', { sessionId: id, node: feed })).size);
    const paths = await mgr.query('pathsToRoots', { sessionId: id, target: { kind: 'object', node: delegate } });
    expect(paths.kind === 'object' && paths.reachable).toBe(false);
    expect((await mgr.summary(id)).ignored?.references).toBe(1);

    // a rule that names nothing: one coded error, the what-if stays
    await expect(mgr.setIgnored({ sessionId: id, rules: [{ kind: 'reference', from: delegate, to: feed }] })).rejects.toMatchObject({ code: 'usage/bad-argument' });
    expect((await mgr.summary(id)).ignored?.references).toBe(1);

    // restore: the original analysis, no recompute
    const restored: SnapshotSummary = await mgr.setIgnored({ sessionId: id, rules: [] });
    expect(restored.ignored ?? null).toBeNull();
    expect(restored.analysis.state).toBe('done');
    expect(restored.reachable).toEqual(before.reachable);
    expect((await typeRow(id, 'SampleShop.ReportView')).retainedSize).toBe(166_800);
    await mgr.close(id);
  }, 120_000);
  it('ignoring the root category [static vars]: the statics storage array becomes the only retainer of their values', async () => {
    // CoreCLR keeps each static's value in an Object[] held by a strong handle as well, so nothing
    // is freed: the array's type goes from 187,592 to 5,986,844 retained bytes (the CLI's
    // `report --ignore-root "[static vars]"` gives the same) and PriceFeed keeps its 178,560.
    const file = await files.register(SAMPLE, 'path');
    const id = mgr.open(file, SAMPLE).sessionId;
    events.length = 0;
    await mgr.summary(id);
    const before = (await waitFor('summary-updated', (p) => p.sessionId === id && p.summary.analysis.state === 'done')).summary;
    const feedType = await typeRow(id, 'SampleShop.PriceFeed');
    const feed = (await mgr.query('objectRows', { sessionId: id, typeIndex: feedType.typeIndex, sort: { key: 'address', dir: 'asc' }, start: 0, end: 1 })).rows[0].node;
    const paths = await mgr.query('pathsToRoots', { sessionId: id, target: { kind: 'object', node: feed } });
    const steps = paths.kind === 'object' ? paths.paths.flatMap((p) => p.steps) : [];
    const root = steps.find((s) => s.type === '[static vars]')!.node;
    expect((await typeRow(id, 'System.Object[] (Bytes > 1K)')).retainedSize).toBe(187_592);

    events.length = 0;
    await mgr.setIgnored({ sessionId: id, rules: [{ kind: 'root', node: root }] });
    const done = (await waitFor('summary-updated', (p) => p.sessionId === id && p.summary.analysis.state === 'done')).summary;
    expect(done.ignored?.references).toBe(83);
    expect(done.reachable).toEqual(before.reachable);
    expect((await typeRow(id, 'System.Object[] (Bytes > 1K)')).retainedSize).toBe(5_986_844);
    expect((await typeRow(id, 'SampleShop.PriceFeed')).retainedSize).toBe(178_560);
    const after = await mgr.query('pathsToRoots', { sessionId: id, target: { kind: 'object', node: feed } });
    expect(after.kind === 'object' && after.paths.map((p) => p.rootDetail)).toEqual(['[strong Handles]']);
    await mgr.close(id);
  }, 120_000);
});

import { describe, expect, it } from 'vitest';
import type { SnapshotSummary } from '../../../../shared/ipc/contract.js';
import { openSampleHost } from '../../../helpers/sample-host.js';

// "What if" (issue 16) in a SnapshotHost driven in-process, its analyses inline (one macrotask
// after they start): cancelling a recompute, computing it again, replacing it while it runs, and
// closing the session with one running. Deterministic: the inline analysis cannot start before the
// cancel that follows the call.
const openHost = () => openSampleHost();

describe('what if in the snapshot host', () => {
  it('cancel stops the recompute only; Compute again runs it; Restore is the original', async () => {
    const { host, sessionId, settled } = await openHost();
    const before = await host.summary({ sessionId });
    const finalizer = before.rootsByCategory.findIndex((c) => c.category === '[other roots]/[finalizer Handles]');
    expect(finalizer).toBeGreaterThanOrEqual(0);
    const types = await host.typeRows({ sessionId, sort: { key: 'type', dir: 'asc' }, filter: 'SampleShop.PriceFeed', start: 0, end: 1 });
    const rule = { kind: 'type' as const, typeIndex: types.rows[0].typeIndex };

    const started = await host.setIgnored({ sessionId, rules: [rule] });
    expect(started.analysis.state).toBe('running');
    await host.cancelLoad({ sessionId });
    const cancelled = await settled();
    expect([cancelled.analysis.state, cancelled.ignored?.references]).toEqual(['cancelled', 1]);
    await expect(host.dominatorChildren({ sessionId, node: null, start: 0, end: 1 })).rejects.toMatchObject({ code: 'cancelled' });
    // types still answer (they need no analysis)
    expect((await host.typeRows({ sessionId, sort: { key: 'type', dir: 'asc' }, start: 0, end: 1 })).rows).toHaveLength(1);

    await host.reanalyze({ sessionId });
    const done = await settled();
    expect(done.analysis.state).toBe('done');
    expect(done.reachable!.size).toBe(before.reachable!.size - 178_536); // PriceFeed keeps its 24 bytes, not its delegate's 178,536

    const restored = await host.setIgnored({ sessionId, rules: [] });
    expect(restored).toEqual(before);
  });

  it('a new list replaces a running recompute; close stops one', async () => {
    const { host, sessionId, settled, events } = await openHost();
    const before = await host.summary({ sessionId });
    const t = (await host.typeRows({ sessionId, sort: { key: 'type', dir: 'asc' }, filter: 'SampleShop.PriceFeed', start: 0, end: 1 })).rows[0].typeIndex;
    const v = (await host.typeRows({ sessionId, sort: { key: 'type', dir: 'asc' }, filter: 'System.Action<SampleShop.Product>', start: 0, end: 1 })).rows[0].typeIndex;
    events.length = 0;
    await host.setIgnored({ sessionId, rules: [{ kind: 'type', typeIndex: t }] });
    await host.setIgnored({ sessionId, rules: [{ kind: 'type', typeIndex: v }] });
    const s: SnapshotSummary = await settled();
    expect([s.analysis.state, s.ignored?.items.map((x) => x.label)]).toEqual(['done', ['references from System.Action<SampleShop.Product>']]);
    expect(s.reachable!.size).toBe(before.reachable!.size - 178_472);
    // only the current list announced its end
    const updates = events.filter((e) => e.name === 'summary-updated');
    expect(updates.map((e) => (e.payload as { summary: SnapshotSummary }).summary.ignored?.items[0].label)).toEqual(['references from System.Action<SampleShop.Product>']);

    await host.setIgnored({ sessionId, rules: [{ kind: 'type', typeIndex: t }] });
    await host.close({ sessionId });
    await expect(host.summary({ sessionId })).rejects.toMatchObject({ code: 'session/not-found' });
    await new Promise((r) => setTimeout(r, 50));
    expect((await host.stats()).sessions).toBe(0);
  });
});

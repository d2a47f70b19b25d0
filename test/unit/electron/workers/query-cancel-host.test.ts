import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SessionId } from '../../../../shared/ipc/contract.js';
import { newCancelFlag, raiseRestore } from '../../../../electron/workers/shared-cancel.js';
import { openSampleHost } from '../../../helpers/sample-host.js';

// Issue 16: long queries in a SnapshotHost driven in-process take turns with the tab's other
// calls; a newer request of the same view cancels the older one; Restore (setIgnored []) is
// answered before the what-if's queries in flight, which then fail with `cancelled`. Ordered by
// the answers' arrival, never timed: slices of 0 ms and a checkpoint per 1 child read make the
// sample's sunburst pause hundreds of times.
const sessionId = 's1' as SessionId;

/** The sample in a host whose long queries pause at every child read, in 0 ms slices. */
const openHost = (cancelFlag?: SharedArrayBuffer) => openSampleHost({ cancelFlag, schedule: { sliceMs: 0, checkEvery: 1 } });

/** Records the order in which calls are answered (ok or failed with their code). */
function recorder() {
  const order: string[] = [];
  const track = <T>(name: string, p: Promise<T>): Promise<T> => {
    p.then(
      () => order.push(name),
      (e: { code?: string }) => order.push(`${name}:${e.code}`),
    );
    return p;
  };
  return { order, track };
}

describe('long queries in the snapshot host', () => {
  it('a by-type sunburst lets other calls through, and a newer one of the same view cancels it', async () => {
    const { host } = await openHost();
    const { order, track } = recorder();
    const byType = { sessionId, node: null, mode: 'type' as const, supersedeKey: 'sunburst:d1' };
    const first = track('sunburst-1', host.dominatorSunburst(byType));
    await new Promise((r) => setImmediate(r)); // it has started (past its first macrotask)
    const rows = track('typeRows', host.typeRows({ sessionId, sort: { key: 'type', dir: 'asc' }, start: 0, end: 5 }));
    const children = track('dominatorChildren', host.dominatorChildren({ sessionId, node: null, start: 0, end: 5 }));
    await Promise.all([rows, children]);
    expect(order).toEqual(['typeRows', 'dominatorChildren']);

    const second = track('sunburst-2', host.dominatorSunburst({ ...byType, mode: 'object' }));
    const other = track('other-view', host.dominatorSunburst({ ...byType, supersedeKey: 'sunburst:d2', depth: 3 }));
    await expect(first).rejects.toMatchObject({ code: 'cancelled' });
    const [b, c] = await Promise.all([second, other]);
    expect(order).toEqual(['typeRows', 'dominatorChildren', 'sunburst-1:cancelled', 'sunburst-2', 'other-view']);
    // the answers are the ones of the same requests made alone
    expect([b.mode, c.mode, c.depth, c.items[0].retainedSize]).toEqual(['object', 'type', 3, b.items[0].retainedSize]);
    const { host: fresh } = await openHost();
    expect(await fresh.dominatorSunburst({ sessionId, node: null, mode: 'object' })).toEqual(b);
  });

  it('Restore is answered before the what-if queries in flight, which are cancelled', async () => {
    const { host, settled } = await openHost();
    const before = await host.summary({ sessionId });
    const inspectionsBefore = await host.inspections({ sessionId });
    const t = (await host.typeRows({ sessionId, sort: { key: 'type', dir: 'asc' }, filter: 'SampleShop.PriceFeed', start: 0, end: 1 })).rows[0].typeIndex;
    await host.setIgnored({ sessionId, rules: [{ kind: 'type', typeIndex: t }] });
    expect((await settled()).ignored?.references).toBe(1);

    // what the views of the recomputed numbers ask for, then Restore
    const { order, track } = recorder();
    const sunburst = track('sunburst', host.dominatorSunburst({ sessionId, node: null, mode: 'type', supersedeKey: 'sunburst:d1' }));
    await new Promise((r) => setImmediate(r)); // computing
    const inspections = track('inspections', host.inspections({ sessionId }));
    const paths = track('pathsToRoots', host.pathsToRoots({ sessionId, target: { kind: 'type', typeIndex: t } }));
    const restore = track('restore', host.setIgnored({ sessionId, rules: [] }));
    expect(await restore).toEqual(before);
    await Promise.allSettled([sunburst, inspections, paths]);
    expect(order[0]).toBe('restore');
    expect(order.slice(1).sort()).toEqual(['inspections:cancelled', 'pathsToRoots:cancelled', 'sunburst:cancelled']);

    // the restored tab answers as before
    expect(await host.inspections({ sessionId })).toEqual(inspectionsBefore);
  });

  it('queries that wait for a recompute (and a set retained job) are cancelled when Restore drops it', async () => {
    const { host } = await openHost();
    const t = (await host.typeRows({ sessionId, sort: { key: 'type', dir: 'asc' }, filter: 'SampleShop.PriceFeed', start: 0, end: 1 })).rows[0].typeIndex;
    const { order, track } = recorder();
    await host.setIgnored({ sessionId, rules: [{ kind: 'type', typeIndex: t }] }); // recompute running (inline, a macrotask away)
    const waiting = track('inspections', host.inspections({ sessionId }));
    const setRetained = track('setRetained', host.setRetained({ sessionId, typeIndices: [t] }));
    const restore = track('restore', host.setIgnored({ sessionId, rules: [] }));
    await restore;
    await expect(waiting).rejects.toMatchObject({ code: 'cancelled' });
    await expect(setRetained).rejects.toMatchObject({ code: 'cancelled' });
    expect(order).toEqual(['restore', 'inspections:cancelled', 'setRetained:cancelled']);
    // the original's set retained size is computed as usual
    expect((await host.setRetained({ sessionId, typeIndices: [t] })).rows).toHaveLength(1);
  });

  it("the what-if's type summary, diff, retainers and suspects baseline are cancelled by Restore, then answered as before", async () => {
    const { host, settled } = await openHost();
    const baseline = await host.typeSummary({ sessionId });
    const diffReq = { sessionId, baselineSessionId: 'b' as SessionId, baseline, sort: { key: 'type' as const, dir: 'asc' as const }, start: 0, end: 5 };
    const before = {
      retainers: await host.retainers({ sessionId, minBytes: null, maxDepth: 4 }),
      diff: await host.diff(diffReq),
      suspects: await host.suspectsBaseline({ sessionId }),
    };
    const t = (await host.typeRows({ sessionId, sort: { key: 'type', dir: 'asc' }, filter: 'SampleShop.PriceFeed', start: 0, end: 1 })).rows[0].typeIndex;
    await host.setIgnored({ sessionId, rules: [{ kind: 'type', typeIndex: t }] });
    await settled();

    const { order, track } = recorder();
    const calls = [
      track('typeSummary', host.typeSummary({ sessionId })),
      track('diff', host.diff(diffReq)),
      track('retainers', host.retainers({ sessionId, minBytes: null, maxDepth: 4 })),
      track('suspectsBaseline', host.suspectsBaseline({ sessionId })),
    ];
    const restore = track('restore', host.setIgnored({ sessionId, rules: [] }));
    await restore;
    await Promise.allSettled(calls);
    expect(order[0]).toBe('restore');
    expect(order.slice(1).sort()).toEqual(['diff:cancelled', 'retainers:cancelled', 'suspectsBaseline:cancelled', 'typeSummary:cancelled']);

    // the restored tab answers as before
    expect(await host.typeSummary({ sessionId })).toEqual(baseline);
    expect(await host.diff(diffReq)).toEqual(before.diff);
    expect(await host.retainers({ sessionId, minBytes: null, maxDepth: 4 })).toEqual(before.retainers);
    expect(await host.suspectsBaseline({ sessionId })).toEqual(before.suspects);
  });

  afterEach(() => vi.restoreAllMocks());

  it("a what-if's synchronous query stops at its next check once main raised Restore; the original's queries do not", async () => {
    const flag = newCancelFlag();
    const { host, settled } = await openHost(flag);
    const inspectionsBefore = await host.inspections({ sessionId });
    const t = (await host.typeRows({ sessionId, sort: { key: 'type', dir: 'asc' }, filter: 'SampleShop.PriceFeed', start: 0, end: 1 })).rows[0].typeIndex;
    await host.setIgnored({ sessionId, rules: [{ kind: 'type', typeIndex: t }] });
    await settled();
    const whatIfInspections = await host.inspections({ sessionId });
    expect(whatIfInspections).not.toEqual(inspectionsBefore);

    // main raises Restore while the inspections run (in one synchronous stretch): at the query's
    // third read of the Restore count, i.e. its first token check inside the inspections' loops
    const load = Atomics.load.bind(Atomics);
    let reads = 0;
    vi.spyOn(Atomics, 'load').mockImplementation(((arr: Int32Array, i: number) => {
      if (arr.buffer === flag && i === 1 && ++reads === 3) raiseRestore(flag);
      return load(arr, i);
    }) as typeof Atomics.load);
    await expect(host.inspections({ sessionId, top: 7 })).rejects.toMatchObject({ code: 'cancelled' });
    expect(reads).toBe(3); // it stopped at the check that saw the flag
    vi.restoreAllMocks();
    expect((await host.setIgnored({ sessionId, rules: [] })).ignored ?? null).toBeNull();

    // no what-if: a Restore raised again (a second click) leaves the original's queries alone
    raiseRestore(flag);
    expect(await host.inspections({ sessionId })).toEqual(inspectionsBefore);
  });
});

import { describe, expect, it } from 'vitest';
import type { SessionId } from '../../../../shared/ipc/contract.js';
import { runCli } from '../../../../electron/cli/main.js';
import { captureIo } from '../../../helpers/capture-io.js';
import { fixturePath, NO_FIXTURES } from '../../../helpers/fixtures.js';
import { sessionManagerRig } from '../../../helpers/session-manager-rig.js';

// Issue 16: the app's dominator-level trend (SessionManager.trendDominators: retainers listed in
// two real workers, matched in main) against the CLI's `trend --dominators --format json` on the
// two Android dumps of one process.
const A1 = fixturePath('gcdump/mono_android_20231108_150515_31024.gcdump');
const A2 = fixturePath('gcdump/mono_android_20231108_150644_31024.gcdump');
const rig = sessionManagerRig({ poolSize: 2 });
const { open } = rig;

interface CliRow {
  signature: string;
  retained: number[];
  growthRank: number;
  steadinessRank: number;
  address: string | null;
}

describe.skipIf(!A1 || !A2)(`trendDominators of open sessions${A1 && A2 ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('equals the CLI, sessions in two workers; one threshold for all', async () => {
    const a = await open(A1!);
    const b = await open(A2!);
    expect(rig.mgr.pool.route(a)).not.toBe(rig.mgr.pool.route(b));
    const got = await rig.mgr.trendDominators({ sessionIds: [a, b] });
    const cap = captureIo();
    expect(await runCli(['trend', A1!, A2!, '--dominators', '--format', 'json', '--top', '0'], cap.io)).toBe(0);
    const cli = JSON.parse(cap.out) as { snapshots: string[]; minBytes: number; maxDepth: number; retainersSeen: number; growing: number; rows: CliRow[] };
    expect(got.snapshots.map((s) => s.label)).toEqual(cli.snapshots);
    expect([got.minBytes, got.maxDepth, got.retainersSeen, got.growing]).toEqual([cli.minBytes, cli.maxDepth, cli.retainersSeen, cli.growing]);
    expect(got.rows.map((r) => [r.signature, r.retained, r.growthRank, r.steadinessRank, r.lastAddress])).toEqual(cli.rows.map((r) => [r.signature, r.retained, r.growthRank, r.steadinessRank, r.address]));
    expect([got.minBytes, got.retainersSeen, got.growing]).toEqual([1024, 434, 28]);

    const custom = await rig.mgr.trendDominators({ sessionIds: [a, b], minBytes: 5_000, maxDepth: 3 });
    expect([custom.minBytes, custom.maxDepth, custom.growing]).toEqual([5_000, 3, 10]);
    expect(custom.rows.slice(0, 4).map((r) => [r.signature, r.depth, r.retained])).toEqual([
      ['[static vars] › [static var System.Threading.PortableThreadPool.HillClimbing.ThreadPoolHillClimber] › System.Threading.PortableThreadPool.HillClimbing', 3, [0, 6_320]],
      ['[static vars] › Microsoft.Extensions.DependencyInjection.ServiceProvider › Microsoft.Extensions.DependencyInjection.ServiceLookup.CallSiteFactory', 3, [15_608, 17_040]],
      ['[static vars] › Microsoft.Extensions.DependencyInjection.ServiceProvider', 2, [31_264, 31_864]],
      ['Android.Runtime.AndroidValueManager', 1, [14_808, 15_088]],
    ]);
    for (const r of custom.rows) for (const v of r.retained) expect(v === 0 || v >= 5_000).toBe(true);
  });

  it('refuses an unknown session with a coded error', async () => {
    const a = await open(A1!);
    await expect(rig.mgr.trendDominators({ sessionIds: [a, 's-nope' as SessionId] })).rejects.toMatchObject({ code: 'session/not-found' });
    await expect(rig.mgr.trendDominators({ sessionIds: [a, a] })).rejects.toMatchObject({ code: 'usage/bad-argument' });
  });
});

import { describe, expect, it } from 'vitest';
import type { SessionId } from '../../../../shared/ipc/contract.js';
import { runCli } from '../../../../electron/cli/main.js';
import { captureIo } from '../../../helpers/capture-io.js';
import { fixturePath, NO_FIXTURES } from '../../../helpers/fixtures.js';
import { sessionManagerRig } from '../../../helpers/session-manager-rig.js';

// The app's trend (SessionManager.trend over sessions in two real workers) against the CLI's
// `trend --format json` on the two Android dumps of one process (150515 then 150644).
const A1 = fixturePath('gcdump/mono_android_20231108_150515_31024.gcdump');
const A2 = fixturePath('gcdump/mono_android_20231108_150644_31024.gcdump');
const TRACE = fixturePath('nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace');
const rig = sessionManagerRig({ poolSize: 2 });
const { open } = rig;

describe.skipIf(!A1 || !A2 || !TRACE)(`trend of open sessions${A1 && A2 && TRACE ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('equals the CLI trend of the two Android dumps, sessions in two workers', async () => {
    const a = await open(A1!);
    const b = await open(A2!);
    expect(rig.mgr.pool.route(a)).not.toBe(rig.mgr.pool.route(b));
    const got = await rig.mgr.trend({ sessionIds: [a, b] });

    const cap = captureIo();
    expect(await runCli(['trend', A1!, A2!, '--format', 'json', '--top', '0'], cap.io)).toBe(0);
    const cli = JSON.parse(cap.out) as { snapshots: string[]; typesSeen: number; growing: number; rows: unknown[] };

    expect(got.snapshots.map((s) => s.label)).toEqual(cli.snapshots);
    expect(got.snapshots.map((s) => s.sessionId)).toEqual([a, b]);
    expect(got.snapshots.map((s) => s.timeCollected)).toEqual([null, null]); // these dumps carry no capture time
    expect([got.typesSeen, got.rows.length]).toEqual([cli.typesSeen, cli.growing]);
    expect(got.rows).toEqual(cli.rows);
    // numbers that do not come from the CLI: pinned so a change in both would still be seen
    expect([got.typesSeen, got.rows.length]).toEqual([1_460, 97]);
    expect(got.rows[0]).toMatchObject({ type: 'System.String', countGrows: true, retainedGrows: true, counts: [4_174, 4_230], retained: [285_248, 292_088], retainedGrowth: 6_840 });
    expect(got.rows[1]).toMatchObject({ type: 'System.Threading.PortableThreadPool.HillClimbing', counts: [0, 1], retained: [0, 6_320] });
  });

  it('refuses a GC-only trace and an unknown session with coded errors', async () => {
    const a = await open(A1!);
    const t = await open(TRACE!);
    await expect(rig.mgr.trend({ sessionIds: [a, t] })).rejects.toMatchObject({ code: 'usage/bad-argument' });
    await expect(rig.mgr.trend({ sessionIds: [a, 's-nope' as SessionId] })).rejects.toMatchObject({ code: 'session/not-found' });
  });
});

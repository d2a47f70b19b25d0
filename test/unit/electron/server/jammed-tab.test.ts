import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileEntry, RowWindow, SessionInfo, SnapshotSummary, TypeRow } from '../../../../shared/ipc/contract.js';
import type { Result } from '../../../../shared/ipc/result.js';
import { locateSample } from '../../../../electron/host/sample.js';
import { serveBrowserMode, type Serving } from '../../../../electron/server/serve.js';
import { devWorkerScripts } from '../../../../electron/workers/worker-scripts.js';
import { openWsPage, type WsPage } from '../../../helpers/ws-page.js';

// Issue 13 in browser mode: two browser tabs (two WebSockets) whose sessions share the server's
// only snapshot worker; one opens a file whose load spins without looking at cancellation (the
// test-only hook workers/debug-jam.ts, switched on by HEAPSCOPE_DEBUG_JAM=1 as an e2e run would).
// Cancel must answer, the jammed tab must get `worker/unresponsive`, and the other tab's call that
// was stuck behind the jam must be answered from its reopened session.
const SAMPLE = locateSample({ callerUrl: new URL('../../../../electron/host/sample.ts', import.meta.url).href });
let dir: string;
let serving: Serving;

type Tab = WsPage<{ sessionId?: string; error?: { code: string; message: string } }>;
const tab = (): Promise<Tab> => openWsPage(serving.server.port, serving.server.token);

const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
};
const sleep = (ms: number) => new Promise<'slept'>((r) => setTimeout(() => r('slept'), ms));

async function openPath(t: Tab, path: string): Promise<SessionInfo> {
  const file = value(await t.call<FileEntry>('registerPath', { path, via: 'typed' }));
  return value(await t.call<SessionInfo>('open', { fileToken: file.token }));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-jamtab-'));
  const saved = process.env.HEAPSCOPE_DEBUG_JAM;
  process.env.HEAPSCOPE_DEBUG_JAM = '1';
  try {
    serving = await serveBrowserMode({
      files: [],
      open: false,
      rendererDir: null,
      scripts: devWorkerScripts(),
      stdout: { write: () => undefined },
      stderr: { write: () => undefined },
      configDir: join(dir, 'config'),
      poolSize: 1,
    });
  } finally {
    if (saved === undefined) delete process.env.HEAPSCOPE_DEBUG_JAM;
    else process.env.HEAPSCOPE_DEBUG_JAM = saved;
  }
});

afterAll(async () => {
  await serving?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!SAMPLE)('browser mode: a tab whose load jams the shared worker', () => {
  it('Cancel answers, the tab gets worker/unresponsive, and the other tab keeps answering', async () => {
    const plain = join(dir, 'plain.gcdump');
    const jam = join(dir, 'jam.gcdump');
    copyFileSync(SAMPLE!, plain);
    copyFileSync(SAMPLE!, jam);
    writeFileSync(`${jam}.jam`, 'ignore-cancel');
    const [one, two] = [await tab(), await tab()];

    const s1 = await openPath(one, plain);
    const summary = value(await one.call<SnapshotSummary>('summary', { sessionId: s1.sessionId }));
    const req = { sessionId: s1.sessionId, sort: { key: 'count', dir: 'desc' }, start: 0, end: 5 };
    const before = value(await one.call<RowWindow<TypeRow>>('typeRows', req));

    const s2 = await openPath(two, jam);
    const stuck = one.call<RowWindow<TypeRow>>('typeRows', req);
    expect(await Promise.race([stuck, sleep(1500)])).toBe('slept'); // the jam: tab one waits too

    const cancelled = await Promise.race([two.call('cancel', { sessionId: s2.sessionId }), sleep(20_000)]);
    expect(cancelled).toEqual({ ok: true, value: undefined });
    expect(value(await stuck).rows.map((r) => [r.type, r.count, r.shallowSize])).toEqual(before.rows.map((r) => [r.type, r.count, r.shallowSize]));
    expect(value(await one.call<SnapshotSummary>('summary', { sessionId: s1.sessionId })).objects.count).toBe(summary.objects.count);

    // every tab hears the events; the jammed session failed with the coded error, the other never did
    const failed = two.events.find((e) => e.name === 'session-failed' && e.payload.sessionId === s2.sessionId);
    expect(failed?.payload.error).toEqual({ code: 'worker/unresponsive', message: 'the analysis did not stop when asked; its worker was restarted' });
    expect(one.events.some((e) => (e.name === 'session-failed' || e.name === 'session-closed') && e.payload.sessionId === s1.sessionId)).toBe(false);
    const sessions = value(await two.call<SessionInfo[]>('listSessions', {}));
    expect(sessions.map((s) => s.sessionId)).toEqual([s1.sessionId]);
    // and the jammed tab's session is gone, with a coded error rather than a hang
    expect(await two.call('summary', { sessionId: s2.sessionId })).toMatchObject({ ok: false, error: { code: 'session/not-found' } });
    one.ws.close();
    two.ws.close();
  });
});

import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, HeapscopeEvents, MonitorId, SessionId } from '../../shared/ipc/contract.js';
import { createBackend, type Backend } from '../../electron/host/backend.js';
import { dispatch } from '../../electron/host/dispatch.js';
import type { Shell } from '../../electron/host/heapscope-service.js';
import { devWorkerScripts } from '../../electron/workers/worker-scripts.js';
import { GC_COLUMNS } from '../../electron/cli/commands/gc-timeline.js';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from '../helpers/dotnet-app.js';
import { eventWaiter } from '../helpers/event-waiter.js';

/**
 * The app's back end (the same object Electron main and `heapscope serve` use) on real .NET
 * processes: LeakyApp (test/dotnet/LeakyApp) keeps exactly 1,000 HeapscopeTest.LeakyPage objects
 * alive; `--churn` makes it collect garbage continuously; `--objects N` makes its heap walk long
 * enough to cancel. Sessions run in real worker_threads (through the tsx shim).
 */
const LEAKY_PAGE = 'HeapscopeTest.LeakyPage';

describe.skipIf(!HAS_DOTNET)(`live capture and GC monitoring through the app back end (${HAS_DOTNET ? 'dotnet found' : DOTNET_MISSING})`, () => {
  let dir: string;
  let backend: Backend;
  let leaky: RunningApp;
  let churn: RunningApp;
  const events: { name: EventName; payload: unknown }[] = [];
  const saved: string[] = [];

  const waitFor = eventWaiter(events, 20);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-app-live-'));
    const dll = buildDotnetApp('LeakyApp');
    [leaky, churn] = await Promise.all([startDotnetApp(dll), startDotnetApp(dll, ['--churn'])]);
    const shell: Shell = {
      mode: 'browser',
      canTypePath: true,
      async exportTarget(name) {
        const path = join(dir, 'saved', `${saved.length}-${name}`);
        saved.push(path);
        await import('node:fs/promises').then((fs) => fs.mkdir(dirname(path), { recursive: true }));
        return { path, outcome: 'saved' };
      },
    };
    backend = createBackend({ version: 'test', shell, configDir: join(dir, 'config'), samplePath: null, scripts: devWorkerScripts(), poolSize: 2 });
    backend.events.subscribe((name, payload) => void events.push({ name, payload }));
  }, 300_000);

  afterAll(async () => {
    await backend?.dispose();
    await Promise.all([leaky?.stop(), churn?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the running LeakyApp with its name, runtime version and command line', async () => {
    const procs = await backend.service.listProcesses({});
    const me = procs.find((p) => p.pid === leaky.pid);
    expect(me).toBeDefined();
    expect(me!.name).toBe('LeakyApp');
    expect(me!.runtimeVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(me!.commandLine).toContain('LeakyApp.dll');
    expect(me!.note).toBeNull();
    expect(procs.some((p) => p.pid === churn.pid)).toBe(true);
  });

  it('captures the heap into a session whose type rows hold exactly 1,000 LeakyPage objects; the saved .gcdump reopens with the same numbers', async () => {
    const info = await backend.service.captureProcess({ pid: leaky.pid });
    expect(info.state).toBe('loading');
    expect(info.file.source).toBe('capture');
    expect(info.file.name).toMatch(new RegExp(`^LeakyApp_\\d{8}_\\d{6}_${leaky.pid}\\.gcdump$`));
    const summary = await backend.service.summary({ sessionId: info.sessionId });
    const phases = events
      .filter((e) => e.name === 'capture-progress' && (e.payload as HeapscopeEvents['capture-progress']).sessionId === info.sessionId)
      .map((e) => (e.payload as HeapscopeEvents['capture-progress']).phase);
    expect([...new Set(phases)]).toEqual(['connecting', 'flushing types', 'walking heap', 'reading rundown', 'building graph', 'saving']);
    const walked = events.filter((e) => e.name === 'capture-progress' && (e.payload as HeapscopeEvents['capture-progress']).phase === 'saving');
    expect((walked.at(-1)!.payload as HeapscopeEvents['capture-progress']).bytes).toBeGreaterThan(100_000);

    // the session reads the saved file: same size, exists, in the capture cache
    expect(summary.file.exists).toBe(true);
    expect(summary.file.size).toBe(statSync(summary.file.displayPath).size);
    expect(dirname(summary.file.displayPath)).toBe(backend.captures.dir);
    expect(summary.metadata.format).toBe('gcdump');
    expect(summary.hasGenerations).toBe(true);

    const pages = async (sessionId: SessionId) => {
      const w = await backend.service.typeRows({ sessionId, sort: { key: 'count', dir: 'desc' }, filter: LEAKY_PAGE, start: 0, end: 100 });
      return w.rows.filter((r) => r.type === LEAKY_PAGE);
    };
    const rows = await pages(info.sessionId);
    expect(rows).toHaveLength(1);
    expect(rows[0].count).toBe(1000);

    // reopen the cached file as an ordinary file session
    const again = await backend.service.open({ fileToken: summary.file.token });
    const s2 = await backend.service.summary({ sessionId: again.sessionId });
    expect([s2.nodeCount, s2.edgeCount, s2.objects.count, s2.objects.size]).toEqual([summary.nodeCount, summary.edgeCount, summary.objects.count, summary.objects.size]);
    expect((await pages(again.sessionId))[0].count).toBe(1000);
    // it is in Recent files (reopenable after a restart)
    expect((await backend.service.listFiles({})).recent.map((f) => f.displayPath)).toContain(summary.file.displayPath);

    // Save snapshot as…: a byte-identical copy where the shell says
    const r = await backend.service.saveSnapshot({ sessionId: info.sessionId });
    expect(r.outcome).toBe('saved');
    expect(r.bytes).toBe(summary.file.size);
    expect(readFileSync(saved.at(-1)!).equals(readFileSync(summary.file.displayPath))).toBe(true);
    await backend.service.close({ sessionId: again.sessionId });
    await backend.service.close({ sessionId: info.sessionId });
  });

  it('cancels a capture in the middle of the heap walk: session-failed with `cancelled`, the process unharmed', async () => {
    const bulky = await startDotnetApp(buildDotnetApp('LeakyApp'), ['--objects', '2000000']);
    try {
      const info = await backend.service.captureProcess({ pid: bulky.pid });
      await waitFor('capture-progress', (p) => p.sessionId === info.sessionId && p.phase === 'walking heap' && p.bytes > 0);
      await backend.service.cancel({ sessionId: info.sessionId });
      await expect(backend.service.summary({ sessionId: info.sessionId })).rejects.toMatchObject({ code: 'cancelled' });
      const failed = await waitFor('session-failed', (p) => p.sessionId === info.sessionId);
      expect(failed.error.code).toBe('cancelled');
      expect(backend.sessions.has(info.sessionId)).toBe(false);
      expect(bulky.child.exitCode).toBeNull();
      // nothing half-written is left under the capture's name
      expect(() => statSync(info.file.displayPath)).toThrow();
    } finally {
      await bulky.stop();
    }
  });

  it('refuses a pid that does not exist (process/not-found) and a process that is not .NET (process/not-dotnet)', async () => {
    let ghost = 999_999;
    for (;;) {
      try {
        process.kill(ghost, 0);
        ghost--;
      } catch {
        break;
      }
    }
    await expect(backend.service.captureProcess({ pid: ghost })).rejects.toMatchObject({ code: 'process/not-found' });
    const r = await dispatch(backend.service, 'captureProcess', { pid: ghost });
    expect(r).toMatchObject({ ok: false, error: { code: 'process/not-found' } });
    await expect(backend.service.captureProcess({ pid: process.pid })).rejects.toMatchObject({ code: 'process/not-dotnet' });
    await expect(backend.service.startGcMonitor({ pid: ghost })).rejects.toMatchObject({ code: 'process/not-found' });
    // and no session was opened for them
    expect((await backend.service.listSessions({})).length).toBe(0);
  });

  it('monitors the GCs of a churning app: rows within seconds, the same rows on request and in the CSV export, then a clean stop', async () => {
    const info = await backend.service.startGcMonitor({ pid: churn.pid });
    expect(info.pid).toBe(churn.pid);
    expect(info.name).toBe('LeakyApp');
    const batch = await waitFor('gc-monitor-rows', (p) => p.monitorId === info.monitorId && p.rows.length >= 1, 15_000);
    expect(batch.from).toBe(0);
    expect(batch.summary.gcCount).toBeGreaterThanOrEqual(batch.rows.length);
    const first = batch.rows[0];
    expect(first.generation).toBeGreaterThanOrEqual(0);
    expect(first.generation).toBeLessThanOrEqual(2);
    expect(first.heapSizeAfter).toBeGreaterThan(0);

    const status = await backend.service.stopGcMonitor({ monitorId: info.monitorId });
    expect(status).toMatchObject({ state: 'stopped', stopReason: 'user', error: null });
    expect(status.total).toBeGreaterThanOrEqual(1);
    const stopped = await waitFor('gc-monitor-stopped', (p) => p.monitorId === info.monitorId);
    expect(stopped.status.total).toBe(status.total);
    // no more rows after the stop
    const n = events.filter((e) => e.name === 'gc-monitor-rows' && (e.payload as { monitorId: MonitorId }).monitorId === info.monitorId).length;
    await new Promise((r) => setTimeout(r, 600));
    expect(events.filter((e) => e.name === 'gc-monitor-rows' && (e.payload as { monitorId: MonitorId }).monitorId === info.monitorId).length).toBe(n);

    // all rows ever streamed = the rows the back end still holds (fewer than maxRows here)
    const streamed = events
      .filter((e) => e.name === 'gc-monitor-rows' && (e.payload as { monitorId: MonitorId }).monitorId === info.monitorId)
      .flatMap((e) => (e.payload as HeapscopeEvents['gc-monitor-rows']).rows);
    const kept = await backend.service.gcMonitorRows({ monitorId: info.monitorId, start: 0, end: 10_000 });
    expect(kept.total).toBe(status.total);
    expect(kept.rows).toEqual(streamed);

    const ex = await backend.service.exportCsv({ view: 'gc-monitor', monitorId: info.monitorId });
    expect(ex.rows).toBe(status.total);
    const lines = readFileSync(saved.at(-1)!, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe(GC_COLUMNS.map((c) => c.key).join(',')); // the header of `heapscope gc-timeline --format csv`
    expect(lines.length - 1).toBe(status.total);
    expect(lines.slice(1).map((l) => Number(l.split(',')[0]))).toEqual(streamed.map((r) => r.index));
  });

  it('ends a monitor with reason "exited" when the process exits', async () => {
    const shortLived = await startDotnetApp(buildDotnetApp('LeakyApp'), ['--churn']);
    const info = await backend.service.startGcMonitor({ pid: shortLived.pid });
    await shortLived.stop();
    const stopped = await waitFor('gc-monitor-stopped', (p) => p.monitorId === info.monitorId, 20_000);
    expect(stopped.status).toMatchObject({ state: 'stopped', stopReason: 'exited', error: null });
    expect((await backend.service.gcMonitorStatus({ monitorId: info.monitorId })).state).toBe('stopped');
  });
});

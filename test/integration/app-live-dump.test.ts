import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, HeapscopeEvents } from '../../shared/ipc/contract.js';
import { findDumpHelper } from '../../electron/dump-reader/helper-process.js';
import type { Backend } from '../../electron/host/backend.js';
import { dispatch } from '../../electron/host/dispatch.js';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from '../helpers/dotnet-app.js';
import { stopDumped } from '../helpers/process-dump.js';
import { testBackend } from '../helpers/test-backend.js';

/**
 * "Capture from process… → Full dump" through the app back end: `captureDump` has LeakyApp's
 * runtime write a WithHeap dump into the capture folder and lists it under Recent files; opening
 * it reads it through the dump helper (exactly 1,000 HeapscopeTest.LeakyPage in its type rows), or
 * fails with dump/helper-missing when the helper is not built (npm run build:dump-reader).
 */
const DUMP_HELPER = findDumpHelper();
const LEAKY_PAGE = 'HeapscopeTest.LeakyPage';
describe.skipIf(!HAS_DOTNET || process.platform !== 'linux')(`captureDump through the app back end (${HAS_DOTNET ? 'dotnet found' : DOTNET_MISSING})`, () => {
  let dir: string;
  let backend: Backend;
  let leaky: RunningApp;
  const events: { name: EventName; payload: unknown }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-app-dump-'));
    leaky = await startDotnetApp(buildDotnetApp('LeakyApp'));
    backend = testBackend(join(dir, 'config'));
    backend.events.subscribe((name, payload) => void events.push({ name, payload }));
  }, 300_000);

  afterAll(async () => {
    await backend?.dispose();
    // After createdump has attached, Node does not see this child's exit (see test/helpers/process-dump.ts): stopDumped polls /proc.
    if (leaky) await stopDumped(leaky);
    rmSync(dir, { recursive: true, force: true });
  });

  it(`writes the dump into the capture folder, lists it, and opens it: 1,000 LeakyPage objects (${DUMP_HELPER ? 'dump reader built' : 'dump reader not built: expects dump/helper-missing'})`, async () => {
    const r = await backend.service.captureDump({ pid: leaky.pid });
    const captures = join(dir, 'config', 'captures');
    expect(r.kind).toBe('heap');
    expect(r.pid).toBe(leaky.pid);
    expect(r.file.name).toMatch(new RegExp(`^LeakyApp_${leaky.pid}_\\d{8}_\\d{6}\\.dmp$`));
    expect(r.file.displayPath).toBe(join(captures, r.file.name));
    expect(r.file.source).toBe('capture');
    expect(r.bytes).toBe(statSync(r.file.displayPath).size);
    expect(r.file.size).toBe(r.bytes);
    expect(readdirSync(captures)).toEqual([r.file.name]);

    const lists = await backend.service.listFiles({});
    expect(lists.recent.map((f) => f.displayPath)).toContain(r.file.displayPath);

    // The dump opens like any snapshot file (what the Full dump button does next: a file tab).
    const recent = lists.recent.find((f) => f.displayPath === r.file.displayPath)!;
    const info = await backend.service.open({ fileToken: recent.token });
    if (!DUMP_HELPER) {
      await expect(backend.service.summary({ sessionId: info.sessionId })).rejects.toMatchObject({ code: 'dump/helper-missing' });
      const failed = events.find((e) => e.name === 'session-failed' && (e.payload as HeapscopeEvents['session-failed']).sessionId === info.sessionId);
      expect((failed?.payload as HeapscopeEvents['session-failed'] | undefined)?.error.message).toContain('npm run build:dump-reader');
      return;
    }
    const summary = await backend.service.summary({ sessionId: info.sessionId });
    expect(summary.metadata.format).toBe('dump');
    expect(summary.metadata.processId).toBe(leaky.pid);
    expect(summary.file.displayPath).toBe(r.file.displayPath);
    const w = await backend.service.typeRows({ sessionId: info.sessionId, sort: { key: 'count', dir: 'desc' }, filter: LEAKY_PAGE, start: 0, end: 100 });
    const pages = w.rows.filter((row) => row.type === LEAKY_PAGE);
    expect(pages.map((row) => [row.count, row.shallowSize])).toEqual([[1000, 32_000]]);
    await backend.service.close({ sessionId: info.sessionId });
  }, 180_000);

  it('coded errors for a missing or non-.NET process', async () => {
    const ghost = await dispatch(backend.service, 'captureDump', { pid: 999_999_999 });
    expect(ghost).toMatchObject({ ok: false, error: { code: 'process/not-found' } });
    const notDotnet = await dispatch(backend.service, 'captureDump', { pid: process.pid });
    expect(notDotnet).toMatchObject({ ok: false, error: { code: 'process/not-dotnet' } });
  });
});

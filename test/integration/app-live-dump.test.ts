import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, HeapscopeEvents } from '../../shared/ipc/contract.js';
import { createBackend, type Backend } from '../../electron/host/backend.js';
import { dispatch } from '../../electron/host/dispatch.js';
import { devWorkerScripts } from '../../electron/workers/worker-scripts.js';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from '../helpers/dotnet-app.js';

/**
 * "Capture from process… → Full dump" through the app back end: `captureDump` has LeakyApp's
 * runtime write a WithHeap dump into the capture folder and lists it under Recent files; opening
 * it fails with the coded "not readable yet" error until the dump reader lands.
 */
function alive(pid: number): boolean {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return st.slice(st.lastIndexOf(')') + 2, st.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe.skipIf(!HAS_DOTNET || process.platform !== 'linux')(`captureDump through the app back end (${HAS_DOTNET ? 'dotnet found' : DOTNET_MISSING})`, () => {
  let dir: string;
  let backend: Backend;
  let leaky: RunningApp;
  const events: { name: EventName; payload: unknown }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-app-dump-'));
    leaky = await startDotnetApp(buildDotnetApp('LeakyApp'));
    backend = createBackend({
      version: 'test',
      shell: { mode: 'browser', canTypePath: true, exportTarget: async () => null },
      configDir: join(dir, 'config'),
      samplePath: null,
      scripts: devWorkerScripts(),
      poolSize: 1,
    });
    backend.events.subscribe((name, payload) => void events.push({ name, payload }));
  }, 300_000);

  afterAll(async () => {
    await backend?.dispose();
    if (leaky) {
      // After createdump has attached, Node does not see this child's exit (see live-dump.test.ts): poll /proc.
      leaky.child.stdin?.end();
      for (let i = 0; alive(leaky.pid) && i < 200; i++) {
        if (i === 100) leaky.child.kill('SIGKILL');
        await new Promise((r) => setTimeout(r, 100));
      }
      leaky.child.stdout?.destroy();
      leaky.child.unref();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the dump into the capture folder, lists it, and opening it says dumps are not readable yet', async () => {
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

    const recent = lists.recent.find((f) => f.displayPath === r.file.displayPath)!;
    const info = await backend.service.open({ fileToken: recent.token });
    const t0 = Date.now();
    let failed: HeapscopeEvents['session-failed'] | undefined;
    while (!failed && Date.now() - t0 < 60_000) {
      failed = events.find((e) => e.name === 'session-failed' && (e.payload as HeapscopeEvents['session-failed']).sessionId === info.sessionId)
        ?.payload as HeapscopeEvents['session-failed'] | undefined;
      await new Promise((res) => setTimeout(res, 20));
    }
    expect(failed?.error.code).toBe('format/dump-unsupported');
    expect(failed?.error.message).toBe(`${r.file.name} is a process dump; Heapscope cannot read process dumps yet (open it with dotnet-dump analyze)`);
  }, 180_000);

  it('coded errors for a missing or non-.NET process', async () => {
    const ghost = await dispatch(backend.service, 'captureDump', { pid: 999_999_999 });
    expect(ghost).toMatchObject({ ok: false, error: { code: 'process/not-found' } });
    const notDotnet = await dispatch(backend.service, 'captureDump', { pid: process.pid });
    expect(notDotnet).toMatchObject({ ok: false, error: { code: 'process/not-dotnet' } });
  });
});

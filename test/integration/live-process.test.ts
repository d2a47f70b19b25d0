import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDotnetProcesses, findEndpoint, startTimeKey } from '../../electron/diagnostics/endpoints.js';
import { endpointFor, queryProcessInfo } from '../../electron/diagnostics/process-info.js';
import { runCli } from '../../electron/cli/main.js';
import { AppError } from '../../shared/errors.js';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from '../helpers/dotnet-app.js';
import { captureIo } from '../helpers/capture-io.js';

describe.skipIf(!HAS_DOTNET)(`live .NET process discovery (${HAS_DOTNET ? 'dotnet found' : DOTNET_MISSING})`, () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startDotnetApp(buildDotnetApp('LeakyApp'));
  }, 300_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('finds the endpoint and answers ProcessInfo with the runtime details', async () => {
    const ep = await findEndpoint(app.pid);
    expect(ep).toMatch(new RegExp(`dotnet-diagnostic-${app.pid}-\\d+-socket$`));
    // the runtime's key is its start time from /proc/{pid}/stat: what tells a stale socket apart
    if (process.platform === 'linux') expect(ep).toContain(`-${await startTimeKey(app.pid)}-socket`);
    const procs = await listDotnetProcesses();
    expect(procs.map((p) => p.pid)).toContain(app.pid);
    const info = await queryProcessInfo(ep!);
    expect(info.processId).toBe(app.pid);
    expect(info.entrypointAssembly).toBe('LeakyApp');
    expect(info.commandLine).toContain('LeakyApp.dll');
    expect(info.clrVersion).toMatch(/^\d+\.\d+/);
  });

  it('heapscope ps lists it as JSON', async () => {
    const c = captureIo();
    expect(await runCli(['ps', '--format', 'json'], c.io)).toBe(0);
    const rows = JSON.parse(c.out) as { pid: number; name: string }[];
    const me = rows.find((r) => r.pid === app.pid);
    expect(me?.name).toBe('LeakyApp');
  });

  it('gives coded errors for a missing process and a non-.NET process', async () => {
    await expect(endpointFor(2 ** 22 + 12345)).rejects.toMatchObject({ code: 'process/not-found' });
    // this test runner is Node, not .NET: alive but without a diagnostics endpoint
    const e = await endpointFor(process.pid).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe('process/not-dotnet');
  });
});

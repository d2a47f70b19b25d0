import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from '../helpers/dotnet-app.js';
import { captureIo } from '../helpers/capture-io.js';

interface Row {
  number: number;
  generation: number;
  type: string;
  reason: string;
  startMs: number;
  pauseMs: number | null;
  durationMs: number | null;
  gen2After: number | null;
}

/** A GC-busy process (LeakyApp --churn allocates ~4 MB every 5 ms) watched live, and a captured trace's timeline. */
describe.skipIf(!HAS_DOTNET)(`live GC timeline (${HAS_DOTNET ? 'dotnet found' : DOTNET_MISSING})`, () => {
  let app: RunningApp;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-monitor-'));
    app = await startDotnetApp(buildDotnetApp('LeakyApp'), ['--churn']);
  }, 300_000);
  afterAll(async () => {
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('heapscope monitor streams one JSON row per GC, then a summary that agrees with the rows', async () => {
    const c = captureIo();
    expect(await runCli(['monitor', '-p', String(app.pid), '--duration', '3', '--format', 'json'], c.io)).toBe(0);
    const lines = c.out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const summary = lines.pop() as { summary: { gcCount: number; byGeneration: number[]; pause: { count: number; max: number } } };
    const rows = lines as unknown as Row[];
    expect(rows.length).toBeGreaterThan(3); // a churning app collects many times in 3 s
    expect(summary.summary.gcCount).toBe(rows.length);
    expect(summary.summary.byGeneration.reduce((a, b) => a + b, 0)).toBe(rows.length);
    const numbers = rows.map((r) => r.number).sort((a, b) => a - b);
    expect(new Set(numbers).size).toBe(rows.length); // each GC once
    for (const r of rows) {
      expect([0, 1, 2]).toContain(r.generation);
      expect(['NonConcurrent', 'Background', 'Foreground']).toContain(r.type);
      expect(r.reason).toMatch(/^[A-Za-z]+$/);
    }
    const complete = rows.filter((r) => r.durationMs !== null && r.pauseMs !== null);
    expect(complete.length).toBeGreaterThan(0);
    for (const r of complete) {
      expect(r.pauseMs!).toBeGreaterThanOrEqual(0);
      expect(r.pauseMs!).toBeLessThan(10_000);
      expect(r.gen2After).not.toBeNull();
    }
    // rows carry pauses rounded to the microsecond; the summary keeps full precision
    expect(summary.summary.pause.max).toBeCloseTo(Math.max(...rows.map((r) => r.pauseMs ?? 0)), 3);
  }, 60_000);

  it('the trace of a capture has one induced, blocking gen-2 GC in its timeline', async () => {
    const trace = join(dir, 'capture.nettrace');
    const c = captureIo();
    expect(await runCli(['collect', '-p', String(app.pid), '-o', join(dir, 'x.gcdump'), '--trace-out', trace], c.io)).toBe(0);
    const t = captureIo();
    expect(await runCli(['gc-timeline', trace, '--format', 'json'], t.io)).toBe(0);
    const out = JSON.parse(t.out) as { gcs: Row[] };
    const induced = out.gcs.filter((r) => r.reason === 'Induced');
    expect(induced.length).toBeGreaterThanOrEqual(1);
    expect(induced[0].generation).toBe(2);
    expect(induced[0].type).toBe('NonConcurrent');
  }, 60_000);
});

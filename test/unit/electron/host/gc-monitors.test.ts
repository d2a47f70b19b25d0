import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GcRow, GcTimeline } from '../../../../shared/analysis/gc-timeline.js';
import { AppError } from '../../../../shared/errors.js';
import type { EventName, HeapscopeEvents } from '../../../../shared/ipc/contract.js';
import type { CancellationToken } from '../../../../shared/util/cancellation.js';
import { GcMonitors, LiveStats } from '../../../../electron/host/gc-monitors.js';
import type { GcMonitorOptions } from '../../../../electron/diagnostics/gc-monitor.js';
import { mulberry32 } from '../../../helpers/random-graph.js';

// GcMonitors with a scripted monitorGcs (the live one is covered by test/integration/app-live-capture.test.ts):
// batching, positions, the bounded buffer, catching up, stop reasons and the summary against a naive oracle.

const row = (n: number, over: Partial<GcRow> = {}): GcRow => ({
  number: n,
  generation: n % 3,
  type: 'NonConcurrent',
  reason: n % 5 === 0 ? 'Induced' : 'AllocSmall',
  startMs: n * 10,
  durationMs: 2,
  pauseMs: (n % 7) + 0.5,
  sizesAfter: [100 * n, 10, 20, 30, 0],
  promotedBytes: 5,
  mode: 'compacting',
  ...over,
});

/** A fake EventPipe monitor: the test pushes rows and ends it; cancellation ends it like the real one. */
function scripted() {
  let opts: GcMonitorOptions | null = null;
  let finish: (t: GcTimeline) => void = () => {};
  let fail: (e: unknown) => void = () => {};
  const rows: GcRow[] = [];
  const monitor = (o: GcMonitorOptions) =>
    new Promise<GcTimeline>((resolve, reject) => {
      opts = o;
      finish = resolve;
      fail = reject;
      o.onStarted?.('CollectTracing2');
      const watch = setInterval(() => {
        if ((o.token as CancellationToken).isCancelled) {
          clearInterval(watch);
          resolve(timeline());
        }
      }, 5);
    });
  const timeline = (): GcTimeline => ({
    gcs: rows,
    summary: {
      gcCount: rows.length,
      byGeneration: [0, 0, 0],
      byType: { NonConcurrent: 0, Background: 0, Foreground: 0 },
      induced: 0,
      pause: { count: 0, totalMs: 0, p50: 0, p90: 0, p99: 0, max: 0 },
      traceDurationMs: 1234,
      pausedPercent: 0,
      otherSuspensions: { count: 0, totalMs: 0 },
      suspensions: { count: 0, totalMs: 0 },
    },
  });
  return {
    monitor,
    push(r: GcRow) {
      rows.push(r);
      opts!.onRow(r);
    },
    end: () => finish(timeline()),
    fail: (e: unknown) => fail(e),
  };
}

let events: { name: EventName; payload: unknown }[];
let dir: string;
const emit = (name: EventName, payload: unknown) => void events.push({ name, payload });
const describeOk = async () => ({ name: 'App', runtimeVersion: '10.0.0' });
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const batches = () => events.filter((e) => e.name === 'gc-monitor-rows').map((e) => e.payload as HeapscopeEvents['gc-monitor-rows']);

beforeEach(() => {
  events = [];
  dir = mkdtempSync(join(tmpdir(), 'heapscope-gcmon-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('GcMonitors', () => {
  it('batches rows with their positions, keeps the newest maxRows, and answers windows by position', async () => {
    const s = scripted();
    const mons = new GcMonitors({ emit: emit as never, maxRows: 10, flushMs: 20, monitor: s.monitor, describe: describeOk });
    const info = await mons.start(process.pid);
    expect(info).toMatchObject({ pid: process.pid, name: 'App', runtimeVersion: '10.0.0', maxRows: 10 });
    for (let i = 1; i <= 4; i++) s.push(row(i));
    await wait(60);
    for (let i = 5; i <= 25; i++) s.push(row(i));
    await wait(60);
    const b = batches();
    expect(b.map((x) => [x.from, x.rows.length, x.total])).toEqual([
      [0, 4, 4],
      [4, 21, 25],
    ]);
    expect(b.flatMap((x) => x.rows.map((r) => r.index))).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    // 25 rows > 10 + 10 %: the 15 oldest were dropped
    const w = mons.rows(info.monitorId, 0, 100);
    expect([w.start, w.end, w.total]).toEqual([15, 25, 25]);
    expect(w.rows.map((r) => r.index)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    const mid = mons.rows(info.monitorId, 20, 22);
    expect(mid.rows.map((r) => r.index)).toEqual([21, 22]);
    expect(mons.status(info.monitorId)).toMatchObject({ state: 'running', total: 25, firstKept: 15 });

    const st = await mons.stop(info.monitorId);
    expect(st).toMatchObject({ state: 'stopped', stopReason: 'user', error: null, total: 25 });
    // the collector's own final summary replaces the live one
    expect(st.summary.traceDurationMs).toBe(1234);
    const stopped = events.filter((e) => e.name === 'gc-monitor-stopped');
    expect(stopped).toHaveLength(1);
    // stop is idempotent
    expect((await mons.stop(info.monitorId)).total).toBe(25);
    expect(events.filter((e) => e.name === 'gc-monitor-stopped')).toHaveLength(1);
    await mons.dispose();
  });

  it('exports the kept rows as CSV in the gc-timeline layout', async () => {
    const s = scripted();
    const mons = new GcMonitors({ emit: emit as never, flushMs: 10, monitor: s.monitor, describe: describeOk });
    const info = await mons.start(process.pid);
    s.push(row(7, { reason: '=cmd', pauseMs: null, sizesAfter: null, promotedBytes: null, mode: null, durationMs: 1.23456 }));
    s.push(row(8));
    const out = join(dir, 'x.csv');
    expect(await mons.exportCsv(info.monitorId, out)).toEqual({ rows: 2, bytes: readFileSync(out).length });
    expect(readFileSync(out, 'utf8')).toBe(
      'number,generation,type,reason,startMs,pauseMs,durationMs,gen0After,gen1After,gen2After,lohAfter,pohAfter,promotedBytes,mode\r\n' +
        "7,1,NonConcurrent,'=cmd,70,,1.235,,,,,,,\r\n" +
        '8,2,NonConcurrent,AllocSmall,80,1.5,2,800,10,20,30,0,5,compacting\r\n',
    );
    expect(mons.exportFileName(info.monitorId)).toBe(`App-${process.pid}-gc-monitor.csv`);
    await mons.dispose();
  });

  it('rejects with the coded error when the session never starts, and reports a later failure as stopReason "failed"', async () => {
    const refused = new GcMonitors({
      emit: emit as never,
      describe: describeOk,
      monitor: async () => {
        throw new AppError('process/denied', 'permission denied');
      },
    });
    await expect(refused.start(process.pid)).rejects.toMatchObject({ code: 'process/denied' });
    expect(events).toEqual([]);

    const s = scripted();
    const mons = new GcMonitors({ emit: emit as never, flushMs: 10, monitor: s.monitor, describe: describeOk });
    const info = await mons.start(process.pid);
    s.push(row(1));
    s.fail(new AppError('process/protocol', 'stream broke'));
    await wait(30);
    const st = mons.status(info.monitorId);
    expect(st).toMatchObject({ state: 'stopped', stopReason: 'failed', error: { code: 'process/protocol', message: 'stream broke' }, total: 1 });
    expect(events.at(-1)).toMatchObject({ name: 'gc-monitor-stopped', payload: { monitorId: info.monitorId, status: { stopReason: 'failed' } } });
  });

  it('says "exited" when the session ends because the process is gone', async () => {
    const s = scripted();
    const mons = new GcMonitors({ emit: emit as never, flushMs: 10, monitor: s.monitor, describe: describeOk });
    // a pid that is certainly not running
    let ghost = 999_999;
    for (;;) {
      try {
        process.kill(ghost, 0);
        ghost--;
      } catch {
        break;
      }
    }
    const info = await mons.start(ghost);
    s.end();
    await wait(20);
    expect(mons.status(info.monitorId)).toMatchObject({ state: 'stopped', stopReason: 'exited', error: null });
  });

  it('refuses more running monitors than maxRunning, and forgets the oldest stopped ones beyond maxStopped', async () => {
    const runs = [scripted(), scripted(), scripted()];
    let k = 0;
    const mons = new GcMonitors({ emit: emit as never, maxRunning: 2, maxStopped: 1, monitor: (o) => runs[k++].monitor(o), describe: describeOk });
    const a = await mons.start(process.pid);
    const b = await mons.start(process.pid);
    await expect(mons.start(process.pid)).rejects.toMatchObject({ code: 'usage/bad-argument' });
    await mons.stop(a.monitorId);
    const c = await mons.start(process.pid);
    await mons.stop(b.monitorId);
    expect(mons.has(a.monitorId)).toBe(false); // evicted: b is the one stopped monitor kept
    expect(mons.has(b.monitorId)).toBe(true);
    expect(() => mons.status(a.monitorId)).toThrow(/no GC monitor/);
    await mons.stop(c.monitorId);
  });
});

describe('LiveStats', () => {
  it('matches a naive summary of random rows (nearest-rank percentiles, per-generation counts, induced)', () => {
    const rnd = mulberry32(42);
    for (let trial = 0; trial < 20; trial++) {
      const stats = new LiveStats();
      const pauses: number[] = [];
      const gens = [0, 0, 0];
      let induced = 0;
      const n = 1 + Math.floor(rnd() * 300);
      for (let i = 0; i < n; i++) {
        const hasPause = rnd() < 0.9;
        const pause = Math.round(rnd() * 5000) / 100;
        const gen = Math.floor(rnd() * 3);
        const reason = rnd() < 0.2 ? 'InducedNotForced' : 'AllocSmall';
        stats.add({ index: i, generation: gen, reason, kind: 'NonConcurrent', startMs: i, durationMs: 1, pauseMs: hasPause ? pause : null, heapSizeBefore: null, heapSizeAfter: null, sizesAfter: null, promotedBytes: null, mode: null });
        if (hasPause) pauses.push(pause);
        gens[gen]++;
        if (reason.startsWith('Induced')) induced++;
        if (i % 50 === 0) stats.summary(0, 1); // summaries in between must not disturb later ones
      }
      const sorted = [...pauses].sort((a, b) => a - b);
      const rank = (p: number) => (sorted.length ? sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] : 0);
      const total = pauses.reduce((a, b) => a + b, 0);
      const s = stats.summary(1000, 5000);
      expect(s.gcCount).toBe(n);
      expect(s.byGeneration).toEqual(gens);
      expect(s.induced).toBe(induced);
      const { totalMs, ...rest } = s.pause;
      expect(rest).toEqual({ count: pauses.length, p50: rank(50), p90: rank(90), p99: rank(99), max: sorted.at(-1) ?? 0 });
      expect(totalMs).toBeCloseTo(total, 9); // summed in another order
      expect(s.traceDurationMs).toBe(4000);
      expect(s.pausedPercent).toBeCloseTo((100 * total) / 4000, 10);
    }
  });
});

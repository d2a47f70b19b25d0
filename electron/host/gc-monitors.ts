import { randomBytes } from 'node:crypto';
import { percentile, type GcRow, type GcTimeline } from '../../shared/analysis/gc-timeline.js';
import { AppError, toErrorDto, type AppErrorDto } from '../../shared/errors.js';
import type { GcEventDto, GcMonitorInfo, GcMonitorStatus, GcMonitorStopReason, GcTimelineSummaryDto, MonitorId, RowWindow } from '../../shared/ipc/contract.js';
import { arraySource, csvChunks, GC_TIMELINE_CSV } from '../../shared/session/csv-export.js';
import { gcEventDto, gcSummaryDto } from '../../shared/session/gc-timeline-view.js';
import { CancellationSource, type CancellationToken } from '../../shared/util/cancellation.js';
import { processExists } from '../diagnostics/endpoints.js';
import { monitorGcs } from '../diagnostics/gc-monitor.js';
import type { EventSink } from './event-hub.js';
import { writeCsvFile } from '../workers/write-csv-file.js';
import { describeProcess } from './process-list.js';

/**
 * Live GC monitors of running .NET processes, in main.
 *
 * They run here (not in a worker) because they are cheap: the GC keyword at Informational level
 * is a handful of small events per GC, kilobytes per second even for a GC-busy program, parsed
 * as they arrive. What must be bounded is what we keep and what we send:
 * - rows are batched into one `gc-monitor-rows` event every `flushMs` (a program doing hundreds
 *   of GCs a second must not become hundreds of IPC messages a second);
 * - each monitor keeps its newest `maxRows` rows (older ones are dropped, `firstKept` says from
 *   where), which is what a late subscriber and the CSV export see; the summary covers every GC;
 * - at most `maxRunning` monitors run at once; stopped ones stay readable (export after Stop)
 *   until `maxStopped` newer ones have stopped.
 * A monitor ends when the user stops it, when the process exits, or when the session fails;
 * `gc-monitor-stopped` says which.
 */
export interface GcMonitorsOptions {
  emit: EventSink;
  maxRows?: number;
  flushMs?: number;
  maxRunning?: number;
  maxStopped?: number;
  /** Injectable for tests; the real one is diagnostics/gc-monitor.ts. */
  monitor?: typeof monitorGcs;
  describe?: typeof describeProcess;
}

interface Monitor {
  info: GcMonitorInfo;
  cancel: CancellationSource;
  rows: GcEventDto[];
  firstKept: number;
  total: number;
  pending: GcEventDto[];
  stats: LiveStats;
  state: 'running' | 'stopped';
  stopReason: GcMonitorStopReason | null;
  error: AppErrorDto | null;
  final: GcTimelineSummaryDto | null;
  done: Promise<void>;
  stoppedAt: number;
}

export class GcMonitors {
  private readonly monitors = new Map<MonitorId, Monitor>();
  private readonly maxRows: number;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly o: GcMonitorsOptions) {
    this.maxRows = o.maxRows ?? 20_000;
  }

  /** Resolves once the runtime accepted the EventPipe session; coded errors (process/*) otherwise. */
  async start(pid: number): Promise<GcMonitorInfo> {
    const running = [...this.monitors.values()].filter((m) => m.state === 'running').length;
    if (running >= (this.o.maxRunning ?? 8)) throw new AppError('usage/bad-argument', `${running} GC monitors are already running: stop one first`);
    const who = await (this.o.describe ?? describeProcess)(pid);
    const cancel = new CancellationSource();
    const monitorId = `m-${randomBytes(6).toString('hex')}` as MonitorId;
    const info: GcMonitorInfo = { monitorId, pid, name: who.name, runtimeVersion: who.runtimeVersion, startedAt: Date.now(), maxRows: this.maxRows };
    const m: Monitor = {
      info,
      cancel,
      rows: [],
      firstKept: 0,
      total: 0,
      pending: [],
      stats: new LiveStats(),
      state: 'running',
      stopReason: null,
      error: null,
      final: null,
      done: Promise.resolve(),
      stoppedAt: 0,
    };
    return new Promise<GcMonitorInfo>((resolve, reject) => {
      let started = false;
      const run = (this.o.monitor ?? monitorGcs)({
        pid,
        token: cancel.token as CancellationToken,
        onStarted: () => {
          started = true;
          info.startedAt = Date.now();
          this.monitors.set(monitorId, m);
          this.ensureTimer();
          resolve(info);
        },
        onRow: (r: GcRow) => {
          if (!started) return;
          const dto = gcEventDto(r);
          m.pending.push(dto);
          m.stats.add(dto);
        },
      });
      m.done = run.then(
        async (final) => {
          // The runtime closes its end of the session a moment before the process is gone: give
          // an exiting process up to 2 s to disappear so the reason reads "exited", not "failed".
          if (started && !m.cancel.isCancelled) await waitForExit(pid, 2_000);
          if (started) this.finish(m, final, null);
          else reject(new AppError('process/protocol', `the monitoring session of process ${pid} ended before it started`));
        },
        (e: unknown) => {
          if (!started) reject(e);
          else this.finish(m, null, e);
        },
      );
    });
  }

  /** Stop (idempotent) and wait until the session has drained; the final status. */
  async stop(id: MonitorId): Promise<GcMonitorStatus> {
    const m = this.get(id);
    m.cancel.cancel('stopped by the user');
    await m.done;
    return this.status(id);
  }

  status(id: MonitorId): GcMonitorStatus {
    const m = this.get(id);
    return {
      monitorId: id,
      pid: m.info.pid,
      state: m.state,
      stopReason: m.stopReason,
      error: m.error,
      total: m.total + m.pending.length,
      firstKept: m.firstKept,
      summary: m.final ?? m.stats.summary(m.info.startedAt, m.state === 'stopped' ? m.stoppedAt : Date.now()),
    };
  }

  /** Kept rows by absolute position (a reconnecting or late UI catches up with this). */
  rows(id: MonitorId, start: number, end: number): RowWindow<GcEventDto> {
    const m = this.get(id);
    this.flush(m);
    const s = Math.max(start, m.firstKept);
    const e = Math.max(s, Math.min(end, m.total));
    return { start: s, end: e, total: m.total, rows: m.rows.slice(s - m.firstKept, e - m.firstKept) };
  }

  exportFileName(id: MonitorId): string {
    const m = this.get(id);
    const name = (m.info.name ?? 'process').replace(/\.(dll|exe)$/i, '').replace(/[^\w.-]+/g, '_');
    return `${name}-${m.info.pid}-gc-monitor.csv`;
  }

  /** The kept rows as CSV (the layout of `heapscope gc-timeline --format csv`). */
  async exportCsv(id: MonitorId, outPath: string): Promise<{ rows: number; bytes: number }> {
    const m = this.get(id);
    this.flush(m);
    return writeCsvFile(csvChunks(GC_TIMELINE_CSV, arraySource(m.rows.slice())), outPath);
  }

  has(id: MonitorId): boolean {
    return this.monitors.has(id);
  }

  async dispose(): Promise<void> {
    const all = [...this.monitors.values()];
    for (const m of all) m.cancel.cancel('shutting down');
    await Promise.all(all.map((m) => m.done));
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private get(id: MonitorId): Monitor {
    const m = this.monitors.get(id);
    if (!m) throw new AppError('usage/bad-argument', `no GC monitor ${id} (it was stopped long ago or never started)`);
    return m;
  }

  private ensureTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      let running = 0;
      for (const m of this.monitors.values()) {
        if (m.state === 'running') running++;
        this.flush(m);
      }
      if (running === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    }, this.o.flushMs ?? 250);
    this.timer.unref?.();
  }

  /** Move pending rows into the kept buffer and announce them. */
  private flush(m: Monitor): void {
    if (m.pending.length === 0) return;
    const rows = m.pending;
    m.pending = [];
    const from = m.total;
    m.total += rows.length;
    for (const r of rows) m.rows.push(r);
    // drop the oldest in slices of 10 % rather than one by one (amortised O(1) per row)
    if (m.rows.length > this.maxRows + Math.ceil(this.maxRows / 10)) {
      const drop = m.rows.length - this.maxRows;
      m.rows.splice(0, drop);
      m.firstKept += drop;
    }
    const summary = m.stats.summary(m.info.startedAt, Date.now());
    this.o.emit('gc-monitor-rows', { monitorId: m.info.monitorId, from, rows, total: m.total, summary });
  }

  private finish(m: Monitor, final: GcTimeline | null, error: unknown): void {
    this.flush(m);
    m.state = 'stopped';
    m.stoppedAt = Date.now();
    if (m.cancel.isCancelled) m.stopReason = 'user';
    else if (error === null && !processExists(m.info.pid)) m.stopReason = 'exited';
    else {
      m.stopReason = 'failed';
      m.error = error === null ? { code: 'process/protocol', message: 'the runtime ended the monitoring session' } : toErrorDto(error);
    }
    // the collector's own summary when it finished normally: the same numbers `heapscope monitor` prints
    m.final = final ? gcSummaryDto(final.summary) : null;
    this.o.emit('gc-monitor-stopped', { monitorId: m.info.monitorId, status: this.status(m.info.monitorId) });
    this.evictStopped();
  }

  private evictStopped(): void {
    const stopped = [...this.monitors.values()].filter((m) => m.state === 'stopped').sort((a, b) => a.stoppedAt - b.stoppedAt);
    const extra = stopped.length - (this.o.maxStopped ?? 8);
    for (let i = 0; i < extra; i++) this.monitors.delete(stopped[i].info.monitorId);
  }
}

/**
 * The summary of a live monitor over every GC seen (the kept rows may be fewer): counts per
 * generation, induced GCs and pause percentiles. Pauses are kept as numbers (8 bytes per GC) and
 * sorted when a summary is asked for, i.e. once per flush that brought rows.
 */
export class LiveStats {
  private gcCount = 0;
  private readonly byGeneration = [0, 0, 0];
  private induced = 0;
  private pauses: number[] = [];
  private sorted = true;

  add(r: GcEventDto): void {
    this.gcCount++;
    if (r.generation >= 0 && r.generation <= 2) this.byGeneration[r.generation]++;
    if (r.reason.startsWith('Induced')) this.induced++;
    if (r.pauseMs !== null) {
      this.pauses.push(r.pauseMs);
      this.sorted = false;
    }
  }

  summary(startedAt: number, now: number): GcTimelineSummaryDto {
    if (!this.sorted) {
      this.pauses.sort((a, b) => a - b);
      this.sorted = true;
    }
    const p = this.pauses;
    const totalMs = p.reduce((a, b) => a + b, 0);
    const traceDurationMs = Math.max(0, now - startedAt);
    return {
      gcCount: this.gcCount,
      byGeneration: [...this.byGeneration],
      induced: this.induced,
      pause: { count: p.length, totalMs, p50: percentile(p, 50), p90: percentile(p, 90), p99: percentile(p, 99), max: p.length ? p[p.length - 1] : 0 },
      traceDurationMs,
      pausedPercent: traceDurationMs > 0 ? (100 * totalMs) / traceDurationMs : 0,
    };
  }
}

/** Resolves when `pid` no longer exists, or after `ms`. */
async function waitForExit(pid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (processExists(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

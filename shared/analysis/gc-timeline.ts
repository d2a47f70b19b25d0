import { CLR_PROVIDER } from '../formats/nettrace/clr-event-names.js';
import {
  GcEventId,
  readGcEnd,
  readGcStart,
  readGlobalHeapHistory,
  readHeapStats,
  readSuspendReason,
} from '../formats/nettrace/clr-gc-payloads.js';
import type { NetTraceEvent } from '../formats/nettrace/nettrace-event.js';
import type { NetTraceSummary } from '../formats/nettrace/nettrace-event.js';
import { readNetTraceEvents } from '../formats/nettrace/read-nettrace-events.js';
import type { ByteSource } from '../util/byte-source.js';
import type { CancellationToken } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';

/**
 * One row per garbage collection, from the runtime's GC events in any EventPipe trace.
 *
 * Pauses follow the runtime's event protocol (Maoni Stephens' ".NET Memory Performance
 * Analysis", "GC event sequence"): a thread suspends the runtime (SuspendEEBegin) and resumes it
 * (RestartEEEnd). Every such suspension is attributed to exactly one GC, or to none, so that
 * Σ pauses + Σ other suspensions = Σ suspensions (`summary.suspensions`):
 * - a suspension in which GCs start goes to the first blocking (non-background) GC that starts
 *   in it. A background GC is often started in the same suspension as an ephemeral GC the
 *   runtime runs first (in .NET 10 the background GC's GCStart even comes first); the program
 *   was stopped for that ephemeral GC's work, and giving both rows the whole suspension is what
 *   made pause totals exceed the time the runtime was suspended;
 * - a suspension in which only a background GC (type 1) starts is that GC's initial pause;
 * - a GC suspension (reasons SuspendForGC / SuspendForGCPrep) without a GCStart that begins
 *   while a background GC is running is that GC's pause (its final marking), so a background GC
 *   reports its own suspensions only;
 * - anything else (debugger, rejit, a GC suspension with no GC) is an "other" suspension.
 * Foreground GCs (type 2) during a background GC start inside their own suspensions and get
 * them. Suspensions are paired per thread. Events must arrive in timestamp order.
 *
 * GCHeapStats (sizes after the GC) follows GCEnd and belongs to the GC that ended last;
 * GCGlobalHeapHistory precedes GCEnd and belongs to the innermost GC in progress.
 */
export const GC_TYPE_NAMES = ['NonConcurrent', 'Background', 'Foreground'] as const;

export const GC_REASON_NAMES = [
  'AllocSmall',
  'Induced',
  'LowMemory',
  'Empty',
  'AllocLarge',
  'OutOfSpaceSOH',
  'OutOfSpaceLOH',
  'InducedNotForced',
  'Internal',
  'InducedLowMemory',
  'InducedCompacting',
  'LowMemoryHost',
  'PMFullGC',
  'LowMemoryHostBlocking',
];

/** SuspendEE reasons that mean "for a GC" (SuspendForGC, SuspendForGCPrep). */
const GC_SUSPEND_REASONS = new Set([1, 6]);

export interface GcRow {
  /** The runtime's GC number (GCStart.Count). */
  number: number;
  /** Condemned generation: 0, 1, 2. */
  generation: number;
  type: string;
  reason: string;
  /** ms since the trace's sync time. */
  startMs: number;
  /** GCStart → GCEnd; null when the trace ends first. */
  durationMs: number | null;
  /** Σ of the suspensions attributed to this GC (see above); null when none was. */
  pauseMs: number | null;
  /** Bytes after the GC: gen0, gen1, gen2, LOH, POH (null without GCHeapStats). */
  sizesAfter: [number, number, number, number, number] | null;
  /** Σ promoted bytes over all generations (null without GCHeapStats). */
  promotedBytes: number | null;
  /** From GCGlobalHeapHistory.GlobalMechanisms (null when absent). */
  mode: 'compacting' | 'sweeping' | null;
}

export interface PauseStats {
  count: number;
  totalMs: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface GcTimelineSummary {
  gcCount: number;
  /** GCs per condemned generation 0, 1, 2. */
  byGeneration: [number, number, number];
  byType: Record<(typeof GC_TYPE_NAMES)[number], number>;
  induced: number;
  pause: PauseStats;
  /** First to last event of the trace. */
  traceDurationMs: number;
  /** Σ GC pauses / trace duration × 100. */
  pausedPercent: number;
  /** Suspensions not attributable to a GC (debugger, rejit, …): count and total time. */
  otherSuspensions: { count: number; totalMs: number };
  /**
   * Every complete suspension of the trace (SuspendEEBegin → RestartEEEnd on one thread), GC or
   * not: count and Σ time. `pause.totalMs + otherSuspensions.totalMs` equals `totalMs`.
   */
  suspensions: { count: number; totalMs: number };
}

export interface GcTimeline {
  gcs: GcRow[];
  summary: GcTimelineSummary;
}

interface OpenSuspension {
  start: number;
  reason: number;
  /** Rows whose GCStart fell inside this suspension, in order. */
  rows: number[];
  /** The background GC running when the suspension began (-1: none). */
  bgc: number;
}

/** Fed every event (in timestamp order); `finish()` gives the timeline. Live sessions feed it through LiveEventOrder. */
export class GcTimelineCollector {
  private readonly rows: GcRow[] = [];
  private readonly open: number[] = []; // rows started, not ended (innermost last)
  private readonly suspensions = new Map<number, OpenSuspension>();
  /** Per row: open suspensions that may still add to its pause (one row per GC, not per object). */
  private readonly unsettled: number[] = [];
  private awaitingStats = -1;
  private firstMs = Infinity;
  private lastMs = -Infinity;
  private other = { count: 0, totalMs: 0 };
  private all = { count: 0, totalMs: 0 };

  onEvent(e: NetTraceEvent): void {
    const t = e.timeMs;
    if (t < this.firstMs) this.firstMs = t;
    if (t > this.lastMs) this.lastMs = t;
    if (e.metadata.provider !== CLR_PROVIDER) return;
    switch (e.metadata.eventId) {
      case GcEventId.SuspendEEBegin:
        return this.suspend(e.threadId, t, readSuspendReason(e));
      case GcEventId.RestartEEEnd:
        return this.restart(e.threadId, t);
      case GcEventId.GCStart:
        return this.start(e, t);
      case GcEventId.GCEnd:
        return this.end(e, t);
      case GcEventId.HeapStats: {
        const s = readHeapStats(e);
        const r = this.rows[this.awaitingStats];
        if (!s || !r) return;
        r.sizesAfter = [s.generationSize[0], s.generationSize[1], s.generationSize[2], s.generationSize[3], s.generationSize[4]];
        r.promotedBytes = s.promoted.reduce((a, b) => a + b, 0);
        this.awaitingStats = -1;
        return;
      }
      case GcEventId.GlobalHeapHistory: {
        const h = readGlobalHeapHistory(e);
        const r = this.rows[this.open[this.open.length - 1]];
        if (h && r) r.mode = h.globalMechanisms & 0x2 ? 'compacting' : 'sweeping';
        return;
      }
      default:
        return;
    }
  }

  /** The rows so far (live views read them between events; no summary is computed). */
  get gcs(): readonly GcRow[] {
    return this.rows;
  }

  /**
   * Whether row `index`'s pause is final: no suspension that could still be attributed to it is
   * open. A live monitor reports a row only then, so each suspension is counted once.
   */
  pauseSettled(index: number): boolean {
    return (this.unsettled[index] ?? 0) === 0;
  }

  finish(): GcTimeline {
    const duration = Number.isFinite(this.firstMs) ? this.lastMs - this.firstMs : 0;
    return { gcs: this.rows, summary: summarize(this.rows, duration, this.other, this.all) };
  }

  private suspend(thread: number, t: number, reason: number): void {
    const previous = this.suspensions.get(thread);
    if (previous) this.release(previous); // a begin without its restart: forget that one
    let bgc = -1;
    if (GC_SUSPEND_REASONS.has(reason)) {
      for (let i = this.open.length - 1; i >= 0 && bgc < 0; i--) if (this.rows[this.open[i]].type === 'Background') bgc = this.open[i];
    }
    if (bgc >= 0) this.unsettled[bgc]++;
    this.suspensions.set(thread, { start: t, reason, rows: [], bgc });
  }

  private start(e: NetTraceEvent, t: number): void {
    const s = readGcStart(e);
    const index = this.rows.length;
    this.rows.push({
      number: s.count,
      generation: s.depth,
      type: GC_TYPE_NAMES[s.type] ?? `Type${s.type}`,
      reason: GC_REASON_NAMES[s.reason] ?? `Reason${s.reason}`,
      startMs: t,
      durationMs: null,
      pauseMs: null,
      sizesAfter: null,
      promotedBytes: null,
      mode: null,
    });
    this.unsettled.push(0);
    this.open.push(index);
    // The GC runs inside the most recent GC suspension (at most one is open at a time).
    let latest: OpenSuspension | null = null;
    for (const sus of this.suspensions.values()) {
      if (GC_SUSPEND_REASONS.has(sus.reason) && (!latest || sus.start >= latest.start)) latest = sus;
    }
    if (!latest) return;
    latest.rows.push(index);
    this.unsettled[index]++;
  }

  private end(e: NetTraceEvent, t: number): void {
    const { count } = readGcEnd(e);
    for (let i = this.open.length - 1; i >= 0; i--) {
      const r = this.rows[this.open[i]];
      if (r.number !== count) continue;
      r.durationMs = t - r.startMs;
      this.awaitingStats = this.open[i];
      this.open.splice(i, 1);
      return;
    }
  }

  private restart(thread: number, t: number): void {
    const sus = this.suspensions.get(thread);
    if (!sus) return;
    this.suspensions.delete(thread);
    this.release(sus);
    const ms = t - sus.start;
    this.all.count++;
    this.all.totalMs += ms;
    const owner = ownerOf(sus, this.rows);
    if (owner < 0) {
      this.other.count++;
      this.other.totalMs += ms;
      return;
    }
    const r = this.rows[owner];
    r.pauseMs = (r.pauseMs ?? 0) + ms;
  }

  private release(sus: OpenSuspension): void {
    for (const i of sus.rows) this.unsettled[i]--;
    if (sus.bgc >= 0) this.unsettled[sus.bgc]--;
  }
}

/** The one row a finished suspension is attributed to (-1: none); the rules are at the top. */
function ownerOf(sus: OpenSuspension, rows: readonly GcRow[]): number {
  if (sus.rows.length > 0) {
    for (const i of sus.rows) if (rows[i].type !== 'Background') return i;
    return sus.rows[0];
  }
  return sus.bgc;
}

/** Nearest-rank percentile of an ascending array (0 when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

function summarize(
  rows: readonly GcRow[],
  traceDurationMs: number,
  other: { count: number; totalMs: number },
  suspensions: { count: number; totalMs: number },
): GcTimelineSummary {
  const byGeneration: [number, number, number] = [0, 0, 0];
  const byType = { NonConcurrent: 0, Background: 0, Foreground: 0 };
  let induced = 0;
  const pauses: number[] = [];
  for (const r of rows) {
    if (r.generation >= 0 && r.generation <= 2) byGeneration[r.generation]++;
    if (r.type in byType) byType[r.type as keyof typeof byType]++;
    if (r.reason.startsWith('Induced')) induced++;
    if (r.pauseMs !== null) pauses.push(r.pauseMs);
  }
  pauses.sort((a, b) => a - b);
  const totalMs = pauses.reduce((a, b) => a + b, 0);
  return {
    gcCount: rows.length,
    byGeneration,
    byType,
    induced,
    pause: { count: pauses.length, totalMs, p50: percentile(pauses, 50), p90: percentile(pauses, 90), p99: percentile(pauses, 99), max: pauses.length ? pauses[pauses.length - 1] : 0 },
    traceDurationMs,
    pausedPercent: traceDurationMs > 0 ? (100 * totalMs) / traceDurationMs : 0,
    otherSuspensions: { ...other },
    suspensions: { ...suspensions },
  };
}

/** Read a whole trace (timestamp order) into a GC timeline. A trace cut off early still gives one. */
export async function readGcTimeline(
  source: ByteSource,
  opts: { token?: CancellationToken; progress?: ProgressSink } = {},
): Promise<GcTimeline & { trace: NetTraceSummary }> {
  const c = new GcTimelineCollector();
  const trace = await readNetTraceEvents(source, { onEvent: (e) => c.onEvent(e) }, { sort: true, allowTruncated: true, token: opts.token, progress: opts.progress });
  return { ...c.finish(), trace };
}

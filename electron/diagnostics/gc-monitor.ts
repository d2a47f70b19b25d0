import { GC_KEYWORD, RUNTIME_PROVIDER } from '../../shared/diagnostics/ipc-messages.js';
import { GcTimelineCollector, type GcRow, type GcTimeline } from '../../shared/analysis/gc-timeline.js';
import { LiveEventOrder } from '../../shared/formats/nettrace/live-event-order.js';
import { NetTraceParser } from '../../shared/formats/nettrace/nettrace-parser.js';
import type { CancellationToken } from '../../shared/util/cancellation.js';
import { startSession, stopSession } from './eventpipe-session.js';
import { processExists } from './endpoints.js';
import { endpointFor } from './process-info.js';

/**
 * A live GC timeline: an EventPipe session with the runtime's GC keyword at Informational level
 * (cheap: a handful of events per GC), parsed as it streams, with each GC reported as soon as it
 * is complete (its end, its sizes after, and no open suspension that could still add to its
 * pause: `GcTimelineCollector.pauseSettled`), possibly out of GC number order. Each suspension is
 * attributed to one GC (see shared/analysis/gc-timeline.ts), so Σ of the reported pauses is the
 * time the runtime was suspended for GCs.
 *
 * The runtime writes each thread's events in runs, so a GC's GCStart/GCEnd (from a background GC
 * thread, or the thread that ran the GC) can arrive before the suspension that holds them (from
 * the thread that suspended the runtime). Fed in arrival order, such a GC looked complete without
 * its pause and was reported with none. So events reach the collector through LiveEventOrder:
 * in timestamp order, the order a sorted read of the same bytes gives, released as soon as the
 * stream proves nothing older can follow, normally at the end of each of the runtime's write
 * rounds (every 100 ms while events come; see live-event-order.ts for the rules and the worst
 * case). A row still open when the session ends is reported with what is known.
 */
export interface GcMonitorOptions {
  pid: number;
  token: CancellationToken;
  onRow: (row: GcRow) => void;
  /** Stop after this many seconds (default: until cancelled or the process exits). */
  durationSec?: number;
  onStarted?: (command: string) => void;
  /** Every chunk of the session's stream as received (tests record the trace the monitor parsed). */
  onChunk?: (bytes: Uint8Array) => void;
}

export async function monitorGcs(opts: GcMonitorOptions): Promise<GcTimeline> {
  const endpoint = await endpointFor(opts.pid);
  const session = await startSession(endpoint, {
    providers: [{ name: RUNTIME_PROVIDER, keywords: GC_KEYWORD, level: 4 }],
    rundown: false,
    preferBlocking: false,
    bufferMB: 64,
  });
  opts.onStarted?.(session.command);
  const rows = new GcStreamRows(opts.onRow, `process ${opts.pid}`);

  const started = Date.now();
  let ended = false;
  const pump = (async () => {
    try {
      for await (const raw of session.connection.chunks()) {
        const chunk = raw.slice();
        opts.onChunk?.(chunk);
        rows.push(chunk);
      }
    } finally {
      ended = true;
    }
  })();
  const limitMs = opts.durationSec ? opts.durationSec * 1000 : Infinity;
  while (!ended && !opts.token.isCancelled && Date.now() - started < limitMs && processExists(opts.pid)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!ended) {
    await stopSession(endpoint, session.sessionId).catch(() => false);
    const deadline = Date.now() + 5_000;
    while (!ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (!ended) session.connection.close();
  }
  await pump.catch(() => {});
  return rows.end();
}

/**
 * The monitor's reading of a session's stream: bytes → parser → LiveEventOrder → collector, with
 * rows reported after each chunk. `end()` releases what is held, reports the rest and gives the
 * timeline. Tests feed it recorded streams.
 */
export class GcStreamRows {
  readonly collector = new GcTimelineCollector();
  private readonly order: LiveEventOrder;
  private readonly parser: NetTraceParser;
  private readonly reporter: GcRowReporter;

  /** `flushedBlockMaxBytes`: LiveEventOrder's rule 3 limit (tests turn it off with 0). */
  constructor(onRow: (row: GcRow) => void, name = 'stream', flushedBlockMaxBytes?: number) {
    this.order = new LiveEventOrder((e) => this.collector.onEvent(e), flushedBlockMaxBytes);
    this.parser = new NetTraceParser(
      { onEvent: (e) => this.order.add(e), onBlockEnd: (kind, bytes) => this.order.blockEnd(kind, bytes) },
      { allowTruncated: true, name },
    );
    this.reporter = new GcRowReporter(this.collector, onRow);
  }

  push(chunk: Uint8Array): void {
    this.parser.push(chunk);
    this.reporter.report(false);
  }

  end(): GcTimeline {
    this.parser.end();
    this.order.end();
    this.reporter.report(true);
    return this.collector.finish();
  }
}

/**
 * Reports each row of a collector once, as soon as it is complete: ended, sizes after seen, and
 * no open suspension that could still add to its pause (so, with events fed in timestamp order,
 * the pause reported is final). Rows are
 * reported when complete, not strictly in order: a background GC stays open while the foreground
 * GCs nested in it finish, and those should not wait for it. `report(true)` at the end reports
 * the rest with what is known.
 * Cost per call: only rows from the oldest unreported one are looked at (normally the last one or
 * two), and nothing is re-summarised.
 */
export class GcRowReporter {
  private readonly reported: boolean[] = [];
  private firstOpen = 0;

  constructor(
    private readonly collector: GcTimelineCollector,
    private readonly onRow: (row: GcRow) => void,
  ) {}

  report(final: boolean): void {
    const rows = this.collector.gcs;
    for (let i = this.firstOpen; i < rows.length; i++) {
      if (this.reported[i]) continue;
      const r = rows[i];
      const done = r.durationMs !== null && r.sizesAfter !== null && this.collector.pauseSettled(i);
      if (!done && !final) continue;
      this.reported[i] = true;
      this.onRow(r);
    }
    while (this.firstOpen < rows.length && this.reported[this.firstOpen]) this.firstOpen++;
  }
}

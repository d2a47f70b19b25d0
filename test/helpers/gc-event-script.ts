import { CLR, clrInstanceOnly, gcEnd, gcStart, globalHeapHistory, heapStats, suspendEE } from './clr-event-payloads.js';
import { NetTraceWriter } from './nettrace-writer.js';

/**
 * Writes the runtime's GC event sequences (suspend, GCStart, GCEnd, sizes, restart) into a
 * .nettrace, for the GC timeline tests. Clock: 10 MHz and sync QPC 1,000,000, so an event
 * written at `ms` reads back at exactly `ms` (to the 0.1 µs tick).
 */
const TICKS_PER_MS = 10_000;
const at = (ms: number) => 1_000_000 + Math.round(ms * TICKS_PER_MS);

export class GcScript {
  readonly w = new NetTraceWriter();
  private readonly id = {
    start: this.w.defineEvent(CLR, 1, { version: 2 }),
    end: this.w.defineEvent(CLR, 2, { version: 1 }),
    restartEnd: this.w.defineEvent(CLR, 3, { version: 1 }),
    stats: this.w.defineEvent(CLR, 4, { version: 2 }),
    restartBegin: this.w.defineEvent(CLR, 7, { version: 1 }),
    suspendEnd: this.w.defineEvent(CLR, 8, { version: 1 }),
    suspendBegin: this.w.defineEvent(CLR, 9, { version: 1 }),
    history: this.w.defineEvent(CLR, 205, { version: 2 }),
  };
  /** SuspendEEBegin at `ms` (reason 1 = SuspendForGC, 6 = SuspendForGCPrep, 0 = other) and its SuspendEEEnd 0.01 ms later. */
  suspend(ms: number, thread: number, reason = 1): this {
    this.w.event(this.id.suspendBegin, suspendEE(reason, 0), { timestamp: at(ms), threadId: thread });
    this.w.event(this.id.suspendEnd, clrInstanceOnly(), { timestamp: at(ms + 0.01), threadId: thread });
    return this;
  }
  /** RestartEEBegin 0.01 ms before `ms` and RestartEEEnd at `ms`. */
  restart(ms: number, thread: number): this {
    this.w.event(this.id.restartBegin, clrInstanceOnly(), { timestamp: at(ms - 0.01), threadId: thread });
    this.w.event(this.id.restartEnd, clrInstanceOnly(), { timestamp: at(ms), threadId: thread });
    return this;
  }
  /** GCStart: type 0 NonConcurrent, 1 Background, 2 Foreground. */
  start(ms: number, thread: number, n: number, gen: number, type: number, reason = 0): this {
    this.w.event(this.id.start, gcStart(n, gen, reason, type), { timestamp: at(ms), threadId: thread });
    return this;
  }
  /** GCEnd at `ms`, preceded by GCGlobalHeapHistory when `mechanisms` is given and followed by GCHeapStats when `sizes` is. */
  end(ms: number, thread: number, n: number, gen: number, sizes?: number[], mechanisms?: number): this {
    if (mechanisms !== undefined) this.w.event(this.id.history, globalHeapHistory(gen, 0, mechanisms), { timestamp: at(ms - 0.02), threadId: thread });
    this.w.event(this.id.end, gcEnd(n, gen), { timestamp: at(ms), threadId: thread });
    if (sizes) this.w.event(this.id.stats, heapStats(sizes, [1, 2, 3, 4, 5]), { timestamp: at(ms + 0.01), threadId: thread });
    return this;
  }
  bytes(): Uint8Array {
    return this.w.finish();
  }
}

import type { WorkerPool } from '../workers/worker-pool.js';
import type { WorkerClient } from '../workers/worker-rpc.js';
import type { EventSink } from './event-hub.js';

/**
 * Timing of worker calls on the main side: whether a worker answers a cancel or close in time
 * (SessionLifecycle replaces one that does not), and the app's busy indicator.
 */

/** A worker gets this long to start listening before a cancel or close stops waiting for it. */
const START_LIMIT_MS = 60_000;

/**
 * True when `w`'s `call` settles (rethrowing its error) within `ms` of the worker listening, false
 * when it is still pending then. The clock starts at `started` (a worker still loading its modules
 * on a busy machine is not jammed), capped by START_LIMIT_MS for a worker that never starts.
 */
export async function answersWithin(w: WorkerClient, call: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = call.then(() => true);
  settled.catch(() => undefined); // a late rejection (the worker is terminated) is expected
  const timers: ReturnType<typeof setTimeout>[] = [];
  const after = (t: number) => new Promise<false>((resolve) => timers.push(setTimeout(() => resolve(false), t)));
  const late = Promise.race([w.started.then(() => after(ms)), after(START_LIMIT_MS)]);
  try {
    return await Promise.race([settled, late]);
  } finally {
    for (const t of timers) clearTimeout(t);
  }
}

/**
 * The busy indicator: `busy` once a query has been pending `afterMs`, cleared when all are done.
 * Loads and captures do not count (they show their own progress). The 100 ms poll runs only while
 * calls are pending, so an idle app has no timer.
 */
export class BusyWatch {
  private busy = false;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly pool: WorkerPool,
    private readonly emit: EventSink,
    private readonly afterMs: () => number,
  ) {}

  /** Watch calls for the busy indicator: `busy` after busyAfterMs pending, cleared when all are done. */
  track<T>(p: Promise<T>): Promise<T> {
    if (!this.timer) {
      const after = this.afterMs();
      this.timer = setInterval(() => this.check(after), 100);
      this.timer.unref?.();
    }
    return p;
  }

  /** Stops the poll for good (the manager is disposed). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private check(after: number): void {
    const now = Date.now();
    let pending = 0;
    let long = false;
    for (const w of this.pool.allWorkers()) {
      for (const c of w.pendingCalls()) {
        if (c.method === 'load' || c.method === 'capture') continue; // loads and captures show their own progress
        pending++;
        if (now - c.startedAt >= after) long = true;
      }
    }
    if (long !== this.busy) {
      this.busy = long;
      this.emit('busy', { busy: long });
    }
    if (pending === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}

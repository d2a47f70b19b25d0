import type { EventName, HeapscopeEvents } from '../../shared/ipc/contract.js';

/** A back-end event as a test records it from an EventSink or EventHub subscription. */
export interface RecordedEvent {
  name: EventName;
  payload: unknown;
}

export type WaitForEvent = <E extends EventName>(name: E, pred: (p: HeapscopeEvents[E]) => boolean, ms?: number) => Promise<HeapscopeEvents[E]>;

/**
 * A wait for the first event in `events` (recorded so far or still to come) named `name` whose
 * payload satisfies `pred`; it rejects after `ms` (default 60 s, a limit that only catches a
 * hang). It polls every `pollMs` rather than hooking the sink, so an event recorded before the
 * wait began counts too.
 */
export function eventWaiter(events: readonly RecordedEvent[], pollMs = 10): WaitForEvent {
  return <E extends EventName>(name: E, pred: (p: HeapscopeEvents[E]) => boolean, ms = 60_000) =>
    new Promise<HeapscopeEvents[E]>((resolve, reject) => {
      const t0 = Date.now();
      const tick = () => {
        const hit = events.find((e) => e.name === name && pred(e.payload as HeapscopeEvents[E]));
        if (hit) return resolve(hit.payload as HeapscopeEvents[E]);
        if (Date.now() - t0 > ms) return reject(new Error(`timed out waiting for ${name}`));
        setTimeout(tick, pollMs);
      };
      tick();
    });
}

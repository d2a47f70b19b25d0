import type { EventName, HeapscopeEvents } from '../../shared/ipc/contract.js';

/**
 * Fan-out of back-end events to whoever listens: the Electron window(s), WebSocket clients,
 * tests. A listener that throws is dropped from this delivery only; one bad transport must not
 * stop events reaching the others.
 */
export type EventSink = <E extends EventName>(name: E, payload: HeapscopeEvents[E]) => void;
type AnyListener = (name: EventName, payload: unknown) => void;

export class EventHub {
  private readonly listeners = new Set<AnyListener>();

  readonly emit: EventSink = (name, payload) => {
    for (const l of [...this.listeners]) {
      try {
        l(name, payload);
      } catch {
        // a transport that fails to deliver (closed socket, destroyed window) is its own problem
      }
    }
  };

  subscribe(listener: AnyListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

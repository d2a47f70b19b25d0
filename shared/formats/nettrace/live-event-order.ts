import { EventSorter } from './event-sorter.js';
import { NetTraceEvent } from './nettrace-event.js';

/**
 * Timestamp order for a live EventPipe stream, released as early as the runtime's writer allows,
 * so a live consumer sees the events in the same order as a sorted read of the same bytes.
 *
 * How the runtime writes (ep-buffer-manager.c `write_all_buffers_to_file_v4`, ep-session.c
 * `streaming_thread`, ep-file.c): each thread logs into its own buffers. The session's streaming
 * thread runs write rounds 100 ms apart (after a round with nothing to write it waits for the next
 * event's buffer, then 100 ms more); a round takes a stop timestamp S and writes every buffered
 * event older than S: thread by thread, each thread's run in
 * order, the threads in the order of their oldest event, marking the first event of each run
 * "sorted" (it is the oldest event not yet written). Then it flushes the current event block. So
 * one thread's events can arrive after another's newer ones (a background GC thread's GCStart
 * before the suspension it happened in), but:
 * 1. a sorted-marked event at T comes after every event older than T: held events up to T can go;
 * 2. a sequence point comes after every event older than it and before every newer one: all can go;
 * 3. a block ends early only by that flush (end of a write round, or before a sequence point);
 *    otherwise it is cut when the next event does not fit its 100 KiB, and an event's payload is
 *    at most 64 KiB (larger ones are dropped), so a block of at most 35 KiB was flushed: everything
 *    held is older than what follows, and all can go;
 * 4. the end of the stream releases the rest.
 * Ties keep arrival order, as in the sorted read (EventSorter), so the delivered sequence is the
 * sorted read's. Delay: an event waits for the end of the write round that carries it (rule 3:
 * no wait beyond the runtime's own 100 ms batching) unless that round's last block holds more
 * than 35 KiB (several hundred GC events in one round); then, at worst, until the next round
 * with events (rule 1), a sequence point or the end of the stream.
 *
 * Cost: held events live in EventSorter columns (no object per event, block buffers retained
 * until released); each release sorts what is held and re-holds the events newer than its bound,
 * so a write round of R events over K thread runs costs O(R·K) moves at worst (K is small for a
 * GC session: a few threads log GC events).
 */
export const FLUSHED_BLOCK_MAX_BYTES = 35 * 1024;

/** Held events beyond which everything is released (72 bytes each in the sorter's columns). */
const MAX_HELD = 1_000_000;

export class LiveEventOrder {
  private held: EventSorter;
  private spare: EventSorter;
  private bound = -Infinity;
  /** The flyweight released events are delivered through (the parser's is re-pointed mid-block). */
  private readonly out = new NetTraceEvent();

  /**
   * @param flushedBlockMaxBytes rule 3's limit (0 turns rule 3 off: tests of rule 1 alone).
   */
  constructor(
    private readonly deliver: (e: NetTraceEvent) => void,
    private readonly flushedBlockMaxBytes = FLUSHED_BLOCK_MAX_BYTES,
  ) {
    const route = (e: NetTraceEvent) => (e.timestamp <= this.bound ? this.deliver(e) : this.held.add(e));
    // The sorters never flush on their own (that would re-point the parser's event mid-block);
    // `add` bounds what is held instead.
    this.held = new EventSorter(route, Number.MAX_SAFE_INTEGER);
    this.spare = new EventSorter(route, Number.MAX_SAFE_INTEGER);
  }

  /** Events held back (waiting for a release). */
  get pending(): number {
    return this.held.pending;
  }

  add(e: NetTraceEvent): void {
    this.out.syncTimeQpc = e.syncTimeQpc;
    this.out.qpcFrequency = e.qpcFrequency;
    this.held.add(e);
    if (e.isSorted) this.release(e.timestamp);
    else if (this.held.pending >= MAX_HELD) this.release(Infinity); // a stream breaking the rules: bounded memory, order exact no more
  }

  /** The parser's `onBlockEnd`. */
  blockEnd(kind: 'events' | 'sequencePoint', bytes: number): void {
    if (kind === 'sequencePoint' || bytes <= this.flushedBlockMaxBytes) this.release(Infinity);
  }

  /** The stream ended: deliver everything held. */
  end(): void {
    this.release(Infinity);
  }

  /** Deliver held events with timestamp ≤ `bound` in order; the newer ones are held again. */
  private release(bound: number): void {
    if (this.held.pending === 0) return;
    const from = this.held;
    this.held = this.spare;
    this.spare = from;
    this.bound = bound;
    from.flush(this.out);
  }
}

import { NetTraceParser } from '../../shared/formats/nettrace/nettrace-parser.js';
import { NetTraceWriter } from './nettrace-writer.js';

/**
 * Re-writes a trace (events in timestamp order, e.g. a GcScript's) the way the runtime's EventPipe
 * writer streams it (ep-buffer-manager.c `write_all_buffers_to_file_v4`): in write rounds, each
 * holding the events older than the round's stop time, thread by thread — each thread's run in
 * order, the runs in the order of their first event, that first event marked "sorted" — and
 * ending with a flush (a block of its own). Optionally a round's block is cut mid-round (as a
 * full 100 KiB block would be) and a sequence point follows a round.
 */
export interface WriteRoundsOptions {
  /** Stop times (ms, ascending) of the rounds; events at or after the last one form a final round. */
  stops: number[];
  /** Cut the round's block after this many events of it (rounds → list of cut positions). */
  cuts?: Map<number, number[]>;
  /** Rounds (indexes) followed by a sequence point. */
  sequencePointsAfter?: Set<number>;
}

interface Recorded {
  key: string;
  provider: string;
  eventId: number;
  version: number;
  payload: Uint8Array;
  timestamp: number;
  timeMs: number;
  threadId: number;
}

export function writeAsRuntime(bytes: Uint8Array, opts: WriteRoundsOptions): Uint8Array {
  const events: Recorded[] = [];
  const parser = new NetTraceParser({
    onEvent: (e) => {
      const m = e.metadata;
      events.push({
        key: `${m.provider}/${m.eventId}/${m.version}`,
        provider: m.provider,
        eventId: m.eventId,
        version: m.version,
        payload: e.bytes.slice(e.payloadOffset, e.payloadOffset + e.payloadLength),
        timestamp: e.timestamp,
        timeMs: e.timeMs,
        threadId: e.threadId,
      });
    },
  });
  parser.push(bytes);
  parser.end();
  const w = new NetTraceWriter({ eventsPerBlock: 1_000_000 });
  const ids = new Map<string, number>();
  for (const e of events) if (!ids.has(e.key)) ids.set(e.key, w.defineEvent(e.provider, e.eventId, { version: e.version }));
  let next = 0;
  const rounds = opts.stops.length + 1;
  for (let r = 0; r < rounds; r++) {
    const stop = r < opts.stops.length ? opts.stops[r] : Infinity;
    const round: Recorded[] = [];
    while (next < events.length && events[next].timeMs < stop) round.push(events[next++]);
    // thread runs, ordered by their oldest event
    const runs = new Map<number, Recorded[]>();
    for (const e of round) {
      const run = runs.get(e.threadId);
      if (run) run.push(e);
      else runs.set(e.threadId, [e]);
    }
    const ordered = [...runs.values()].sort((a, b) => a[0].timestamp - b[0].timestamp);
    const cuts = new Set(opts.cuts?.get(r) ?? []);
    let k = 0;
    for (const run of ordered) {
      run.forEach((e, i) => {
        if (cuts.has(k++)) w.flushEvents();
        w.event(ids.get(e.key)!, e.payload, { timestamp: e.timestamp, threadId: e.threadId, sorted: i === 0 });
      });
    }
    w.flushEvents();
    if (opts.sequencePointsAfter?.has(r)) w.sequencePoint(round.length ? round[round.length - 1].timestamp + 1 : 0);
  }
  return w.finish();
}

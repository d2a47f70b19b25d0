import { describe, expect, it } from 'vitest';
import { LiveEventOrder } from '../../../../../shared/formats/nettrace/live-event-order.js';
import { NetTraceParser } from '../../../../../shared/formats/nettrace/nettrace-parser.js';
import { NetTraceWriter } from '../../../../helpers/nettrace-writer.js';

// LiveEventOrder's release rules, one by one, on streams laid out as the runtime writes them.
// Timestamps are ticks; events are [timestamp, thread, sorted].
type Ev = [number, number, boolean];

/** Write blocks (each a list of events, 'SP' for a sequence point); feed them one block at a time. */
function run(blocks: (Ev[] | 'SP')[], limit?: number): { afterBlock: number[][]; atEnd: number[]; threads: number[] } {
  const w = new NetTraceWriter({ eventsPerBlock: 1_000_000 });
  const id = w.defineEvent('P', 1);
  const marks: number[] = [];
  for (const b of blocks) {
    if (b === 'SP') w.sequencePoint(0);
    else {
      for (const [t, thread, sorted] of b) w.event(id, new Uint8Array(4), { timestamp: t, threadId: thread, sorted });
      w.flushEvents();
    }
    marks.push(w.out.len);
  }
  const bytes = w.finish();
  const delivered: number[] = [];
  const threads: number[] = [];
  const order = new LiveEventOrder((e) => {
    delivered.push(e.timestamp);
    threads.push(e.threadId);
  }, limit);
  const parser = new NetTraceParser({ onEvent: (e) => order.add(e), onBlockEnd: (k, n) => order.blockEnd(k, n) });
  const afterBlock: number[][] = [];
  let from = 0;
  for (const m of marks) {
    parser.push(bytes.subarray(from, m));
    from = m;
    afterBlock.push([...delivered]);
  }
  parser.push(bytes.subarray(from));
  parser.end();
  order.end();
  return { afterBlock, atEnd: delivered, threads };
}

// One write round: thread 1's run (oldest first event) then thread 2's; thread 2's events
// interleave in time with thread 1's later ones.
const round1: Ev[] = [
  [10, 1, true],
  [40, 1, false],
  [70, 1, false],
  [20, 2, true],
  [30, 2, false],
  [60, 2, false],
];
const round2: Ev[] = [
  [100, 2, true],
  [110, 2, false],
];

describe('LiveEventOrder', () => {
  it('rule 3: a small (flushed) block releases everything held, in timestamp order', () => {
    const { afterBlock, atEnd } = run([round1, round2]);
    expect(afterBlock).toEqual([
      [10, 20, 30, 40, 60, 70],
      [10, 20, 30, 40, 60, 70, 100, 110],
    ]);
    expect(atEnd).toEqual([10, 20, 30, 40, 60, 70, 100, 110]);
  });

  it('rule 1: a sorted event at T releases what is held up to T; the rest waits', () => {
    const { afterBlock, atEnd } = run([round1, round2], 0);
    expect(afterBlock).toEqual([
      [10, 20], // thread 2's first event (20) is marked: 10 and 20 can go; 40, 70, 30, 60 wait
      [10, 20, 30, 40, 60, 70, 100], // round 2's marker at 100 releases round 1 and itself
    ]);
    expect(atEnd).toEqual([10, 20, 30, 40, 60, 70, 100, 110]);
  });

  it('rule 2: a sequence point releases everything held', () => {
    const { afterBlock } = run([round1, 'SP', round2], 0);
    expect(afterBlock[1]).toEqual([10, 20, 30, 40, 60, 70]);
  });

  it('ties keep arrival order (as the sorted read does)', () => {
    const { atEnd, threads } = run(
      [
        [
          [5, 1, true],
          [50, 1, false],
          [50, 2, true],
          [50, 3, true],
        ],
      ],
      0,
    );
    expect(atEnd).toEqual([5, 50, 50, 50]);
    expect(threads).toEqual([1, 1, 2, 3]);
  });
});

import { describe, expect, it } from 'vitest';
import { GcRowReporter } from '../../../../electron/diagnostics/gc-monitor.js';
import { GcTimelineCollector, type GcRow } from '../../../../shared/analysis/gc-timeline.js';
import { NetTraceParser } from '../../../../shared/formats/nettrace/nettrace-parser.js';
import { GcScript } from '../../../helpers/gc-event-script.js';
import { mulberry32 } from '../../../helpers/prng.js';
import { randomGcTrace } from '../../../helpers/random-gc-trace.js';

// The live monitor reports a GC once; the pause it reports must be the GC's final one, or the
// monitor's running total (host/gc-monitors.ts LiveStats sums reported rows) misses suspensions.

/** Feed a trace event by event, as a live session would, reporting after each; copies of the rows as reported. */
function live(bytes: Uint8Array): { reported: GcRow[]; final: readonly GcRow[] } {
  const collector = new GcTimelineCollector();
  const reported: GcRow[] = [];
  const reporter = new GcRowReporter(collector, (r) => reported.push({ ...r }));
  const parser = new NetTraceParser({
    onEvent: (e) => {
      collector.onEvent(e);
      reporter.report(false);
    },
  });
  parser.push(bytes);
  parser.end();
  reporter.report(true);
  return { reported, final: collector.gcs };
}

const pauseOf = (rows: readonly GcRow[]) => new Map(rows.map((r) => [r.number, r.pauseMs]));

describe('GcRowReporter (what monitorGcs reports)', () => {
  it('waits for a suspension that began during a background GC and ends after its GCEnd', () => {
    const bytes = new GcScript()
      .suspend(0, 1)
      .start(0.1, 1, 1, 2, 1) // BGC #1 alone: 0 → 0.5
      .restart(0.5, 1)
      .suspend(5, 2, 6) // final marking 5 → 7, straddling the BGC's end at 6
      .end(6, 2, 1, 2, [1, 0, 0, 0, 0])
      .restart(7, 2)
      .suspend(10, 1) // a blocking GC afterwards: 10 → 12
      .start(10.5, 1, 2, 0, 0)
      .end(11.5, 1, 2, 0, [2, 0, 0, 0, 0])
      .restart(12, 1)
      .bytes();
    const { reported } = live(bytes);
    expect(reported.map((r) => [r.number, r.pauseMs])).toEqual([
      [1, 2.5],
      [2, 2],
    ]);
  });

  it('reports a blocking GC that did not get its suspension (a second one started in it) once that suspension ends', () => {
    const bytes = new GcScript()
      .suspend(0, 1) // gen1 #1 and then a full blocking #2 in one suspension (provisional mode): 0 → 9
      .start(0.5, 1, 1, 1, 0, 0)
      .end(3, 1, 1, 1, [1, 0, 0, 0, 0])
      .start(3.5, 1, 2, 2, 0, 12)
      .end(8, 1, 2, 2, [2, 0, 0, 0, 0])
      .restart(9, 1)
      .suspend(20, 1) // and a later GC, so the first two are reported before the trace ends
      .start(20.5, 1, 3, 0, 0)
      .end(21, 1, 3, 0, [3, 0, 0, 0, 0])
      .restart(21.5, 1)
      .bytes();
    const reported: number[] = [];
    const collector = new GcTimelineCollector();
    const reporter = new GcRowReporter(collector, (r) => reported.push(r.number));
    const parser = new NetTraceParser({
      onEvent: (e) => {
        collector.onEvent(e);
        reporter.report(false);
        if (e.metadata.eventId === 3 && Math.abs(e.timeMs - 9) < 1e-6) expect(reported).toEqual([1, 2]); // the restart that settles both
      },
    });
    parser.push(bytes);
    parser.end();
    expect(reported).toEqual([1, 2, 3]);
    expect(collector.gcs.map((r) => r.pauseMs)).toEqual([9, null, 1.5]);
  });

  it('reports every GC of 150 seeded random traces once, with its final pause', () => {
    const rnd = mulberry32(4242);
    let bgcs = 0;
    for (let trial = 0; trial < 150; trial++) {
      const { script } = randomGcTrace(rnd);
      const { reported, final } = live(script.bytes());
      expect(reported.map((r) => r.number).sort((a, b) => a - b), `trial ${trial}`).toEqual(final.map((r) => r.number).sort((a, b) => a - b));
      const want = pauseOf(final);
      for (const r of reported) expect(r.pauseMs, `trial ${trial}, GC ${r.number}`).toBe(want.get(r.number));
      bgcs += reported.filter((r) => r.type === 'Background').length;
    }
    expect(bgcs).toBeGreaterThan(100);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readGcTimeline, type GcTimeline } from '../../../../shared/analysis/gc-timeline.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { fixturePath } from '../../../helpers/fixtures.js';
import { GcScript } from '../../../helpers/gc-event-script.js';
import { randomGcTrace } from '../../../helpers/random-gc-trace.js';
import { mulberry32 } from '../../../helpers/prng.js';
import { rawSuspensions } from '../../../helpers/raw-suspensions.js';

// Each runtime suspension is attributed to exactly one GC (or to "other"), so Σ pauses never
// exceeds the time the runtime was suspended (issue 13: a background GC and the ephemeral GC
// started in the same suspension both got all of it).

const timeline = (s: GcScript) => readGcTimeline(new MemoryByteSource(s.bytes()));
const round = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);
const pauses = (t: GcTimeline) => t.gcs.map((r) => [r.number, r.type, round(r.pauseMs)]);

describe('GC pauses: one owner per suspension (hand-made sequences)', () => {
  it('gives a suspension shared by a background GC and an ephemeral GC to the ephemeral one (.NET 10 order: BGC starts first)', async () => {
    const t = await timeline(
      new GcScript()
        .suspend(0, 1) // blocking gen0 #1: 0 → 3.5
        .start(0.5, 1, 1, 0, 0)
        .end(3, 1, 1, 0, [1, 0, 0, 0, 0])
        .restart(3.5, 1)
        .suspend(10, 1) // BGC #2 and the gen1 GC #3 the runtime runs first: one suspension 10 → 15.5
        .start(10.1, 1, 2, 2, 1)
        .start(10.2, 1, 3, 1, 0)
        .end(15, 1, 3, 1, [2, 0, 0, 0, 0])
        .restart(15.5, 1)
        .suspend(20, 1) // foreground gen0 #4 during the BGC: 20 → 22.5
        .start(20.3, 1, 4, 0, 2)
        .end(22, 1, 4, 0, [3, 0, 0, 0, 0])
        .restart(22.5, 1)
        .suspend(30, 2, 6) // the BGC's final marking on its own thread: 30 → 31.25
        .restart(31.25, 2)
        .end(40, 2, 2, 2, [4, 0, 0, 0, 0])
        .suspend(50, 3, 0) // not for a GC: 50 → 50.75
        .restart(50.75, 3),
    );
    expect(pauses(t)).toEqual([
      [1, 'NonConcurrent', 3.5],
      [2, 'Background', 1.25],
      [3, 'NonConcurrent', 5.5],
      [4, 'Foreground', 2.5],
    ]);
    expect(round(t.summary.pause.totalMs)).toBe(12.75);
    expect(t.summary.pause.count).toBe(4);
    expect(t.summary.otherSuspensions).toEqual({ count: 1, totalMs: 0.75 });
    expect(t.summary.suspensions.count).toBe(5);
    expect(round(t.summary.suspensions.totalMs)).toBe(13.5);
    expect(round(t.summary.pause.totalMs + t.summary.otherSuspensions.totalMs)).toBe(round(t.summary.suspensions.totalMs));
    expect(round(t.summary.pausedPercent)).toBe(round((100 * 12.75) / 50.75));
  });

  it('gives it to the ephemeral GC too when that one starts (and ends) before the BGC', async () => {
    const t = await timeline(
      new GcScript()
        .suspend(0, 1)
        .start(0.5, 1, 7, 1, 0)
        .end(4, 1, 7, 1, [1, 0, 0, 0, 0])
        .start(4.2, 1, 8, 2, 1)
        .restart(4.5, 1)
        .suspend(9, 2, 6)
        .restart(10, 2)
        .end(12, 2, 8, 2, [2, 0, 0, 0, 0]),
    );
    expect(pauses(t)).toEqual([
      [7, 'NonConcurrent', 4.5],
      [8, 'Background', 1],
    ]);
    expect(round(t.summary.pause.totalMs)).toBe(5.5);
    expect(round(t.summary.suspensions.totalMs)).toBe(5.5);
  });

  it('a background GC alone in its first suspension: that one plus its later GC suspensions, foreground GCs nested in it keep theirs', async () => {
    const t = await timeline(
      new GcScript()
        .suspend(0, 1) // BGC #20 alone: 0 → 0.5
        .start(0.1, 1, 20, 2, 1)
        .restart(0.5, 1)
        .suspend(2, 1) // foreground #21: 2 → 4
        .start(2.1, 1, 21, 1, 2)
        .end(3.5, 1, 21, 1)
        .restart(4, 1)
        .suspend(5, 4, 0) // a debugger suspension during the BGC stays "other": 5 → 5.5
        .restart(5.5, 4)
        .suspend(6, 3) // foreground #22 from another thread: 6 → 9
        .start(6.5, 3, 22, 0, 2)
        .end(8.5, 3, 22, 0)
        .restart(9, 3)
        .suspend(10, 1) // a GC suspension without a GCStart while the BGC runs: the BGC's, 10 → 10.25
        .restart(10.25, 1)
        .suspend(11, 2, 6) // final marking: 11 → 13
        .restart(13, 2)
        .suspend(13.5, 2, 6) // begins while the BGC runs, ends after its GCEnd: still the BGC's, 13.5 → 14.5
        .end(14, 2, 20, 2)
        .restart(14.5, 2)
        .suspend(20, 1) // a GC suspension with no GC running: "other", 20 → 20.5
        .restart(20.5, 1),
    );
    expect(pauses(t)).toEqual([
      [20, 'Background', 0.5 + 0.25 + 2 + 1],
      [21, 'Foreground', 2],
      [22, 'Foreground', 3],
    ]);
    expect(t.summary.otherSuspensions).toEqual({ count: 2, totalMs: 1 });
    expect(t.summary.suspensions.count).toBe(8);
    expect(round(t.summary.suspensions.totalMs)).toBe(9.75);
  });

  it('counts only complete suspensions: a restart without its begin and a begin without its restart are left out', async () => {
    const t = await timeline(
      new GcScript()
        .start(0.2, 1, 5, 0, 0) // the trace began inside this GC's suspension
        .end(1, 1, 5, 0)
        .restart(1.5, 1)
        .suspend(3, 1)
        .start(3.5, 1, 6, 1, 0)
        .end(5, 1, 6, 1)
        .restart(6, 1)
        .suspend(8, 1) // the trace ends before this GC's restart
        .start(8.5, 1, 7, 0, 0),
    );
    expect(pauses(t)).toEqual([
      [5, 'NonConcurrent', null],
      [6, 'NonConcurrent', 3],
      [7, 'NonConcurrent', null],
    ]);
    expect(t.summary.suspensions).toEqual({ count: 1, totalMs: 3 });
    expect(t.summary.pause.totalMs).toBe(3);
  });
});

describe('GC pauses against a naive oracle (seeded random traces)', () => {
  it('attributes every suspension to its one owner, so Σ pauses + Σ other = Σ suspensions', async () => {
    const rnd = mulberry32(1313);
    let bgcs = 0;
    let shared = 0;
    for (let trial = 0; trial < 150; trial++) {
      const r = randomGcTrace(rnd);
      const t = await timeline(r.script);
      const got = t.gcs.map((g) => [g.number, round(g.pauseMs)]);
      const expected = t.gcs.map((g) => [g.number, r.want.has(g.number) ? round(r.want.get(g.number)! * 0.05) : null]);
      expect(got, `trial ${trial}`).toEqual(expected);
      expect(t.summary.suspensions.count).toBe(r.count);
      expect(round(t.summary.suspensions.totalMs)).toBe(round(r.suspended * 0.05));
      expect(round(t.summary.otherSuspensions.totalMs)).toBe(round(r.other * 0.05));
      expect(round(t.summary.pause.totalMs + t.summary.otherSuspensions.totalMs)).toBe(round(t.summary.suspensions.totalMs));
      bgcs += t.summary.byType.Background;
      shared += r.shared;
    }
    // the shapes above were all exercised, the shared first suspension many times
    expect(bgcs).toBeGreaterThan(100);
    expect(shared).toBeGreaterThan(50);
  });
});

// Real traces (no background GCs in them): the pause totals are TraceEvent's GCStats totals to the
// last digit (test/dotnet/GcStatsOracle printed 7730.339851586021 and 22.72792763631842 ms), and
// the suspensions are counted from the raw events by an independent reader.
for (const [file, gcs, pauseMs, suspensions, other] of [
  ['eventpipe-dotnetcore3.0-win-x64-objver4.nettrace', 478, 7730.339851586021, 5953, 5475],
  ['eventpipe-dotnetcore2.1-win-x86-objver3.netperf', 10, 22.72792763631842, 16, 6],
] as const) {
  const path = fixturePath(`nettrace/${file}`);
  describe.skipIf(!path)(`GC pauses of ${file}${path ? '' : ' (fixture missing: skipped)'}`, () => {
    it('pauses + other suspensions = every raw suspension; the pause total is TraceEvent’s', async () => {
      const bytes = new Uint8Array(readFileSync(path!));
      const raw = rawSuspensions(bytes);
      const t = await readGcTimeline(new MemoryByteSource(bytes));
      expect(t.summary.gcCount).toBe(gcs);
      expect(t.summary.pause.count).toBe(gcs);
      expect(t.summary.pause.totalMs).toBeCloseTo(pauseMs, 9);
      expect(raw.suspensions).toHaveLength(suspensions);
      expect(t.summary.suspensions.count).toBe(suspensions);
      expect(t.summary.otherSuspensions.count).toBe(other);
      const total = raw.suspensions.reduce((a, s) => a + s.restartMs - s.beginMs, 0);
      expect(t.summary.suspensions.totalMs).toBeCloseTo(total, 9);
      expect(t.summary.pause.totalMs + t.summary.otherSuspensions.totalMs).toBeCloseTo(total, 9);
    });
  });
}

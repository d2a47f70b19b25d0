import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { percentile, readGcTimeline } from '../../../../shared/analysis/gc-timeline.js';
import { NetTraceParser } from '../../../../shared/formats/nettrace/nettrace-parser.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { CLR } from '../../../helpers/clr-event-payloads.js';
import { fixturePath } from '../../../helpers/fixtures.js';
import { GcScript } from '../../../helpers/gc-event-script.js';

const timeline = (bytes: Uint8Array) => readGcTimeline(new MemoryByteSource(bytes));
const round = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);

describe('GC timeline on hand-made event sequences', () => {
  it('splits a background GC, its nested foreground GC, a blocking GC and a non-GC suspension', async () => {
    const s = new GcScript()
      .suspend(0, 1) // background GC #10: initial pause 0 → 2 ms on its thread 1
      .start(1, 1, 10, 2, 1)
      .restart(2, 1)
      .suspend(5, 2) // foreground (ephemeral) GC #11 during it, thread 2: 5 → 9 ms
      .start(6, 2, 11, 0, 2)
      .end(8, 2, 11, 0, [100, 200, 300, 400, 0], 0x2)
      .restart(9, 2)
      .suspend(12, 1, 6) // the background GC's final pause: no GCStart inside, 12 → 14.5 ms
      .restart(14.5, 1)
      .end(20, 1, 10, 2, [10, 20, 30, 40, 50], 0x1)
      .suspend(30, 3, 0) // a debugger-style suspension: not a GC
      .restart(31, 3)
      .suspend(40, 2) // blocking gen-1 GC #12, induced: 40 → 43 ms
      .start(41, 2, 12, 1, 0, 1)
      .end(42, 2, 12, 1, [1, 2, 3, 4, 5], 0x6)
      .restart(43, 2)
      .bytes();
    const t = await timeline(s);
    expect(t.gcs.map((r) => [r.number, r.generation, r.type, r.reason, round(r.startMs), round(r.durationMs), round(r.pauseMs), r.mode])).toEqual([
      [10, 2, 'Background', 'AllocSmall', 1, 19, 4.5, 'sweeping'],
      [11, 0, 'Foreground', 'AllocSmall', 6, 2, 4, 'compacting'],
      [12, 1, 'NonConcurrent', 'Induced', 41, 1, 3, 'compacting'],
    ]);
    expect(t.gcs.map((r) => r.sizesAfter)).toEqual([
      [10, 20, 30, 40, 50],
      [100, 200, 300, 400, 0],
      [1, 2, 3, 4, 5],
    ]);
    expect(t.gcs.map((r) => r.promotedBytes)).toEqual([15, 15, 15]);
    const sum = t.summary;
    expect(sum.gcCount).toBe(3);
    expect(sum.byGeneration).toEqual([1, 1, 1]);
    expect(sum.byType).toEqual({ NonConcurrent: 1, Background: 1, Foreground: 1 });
    expect(sum.induced).toBe(1);
    expect(round(sum.pause.totalMs)).toBe(11.5);
    expect([sum.pause.p50, sum.pause.p90, sum.pause.p99, sum.pause.max].map(round)).toEqual([4, 4.5, 4.5, 4.5]);
    expect(sum.otherSuspensions.count).toBe(1);
    expect(round(sum.otherSuspensions.totalMs)).toBe(1);
    expect(round(sum.traceDurationMs)).toBe(43); // first event (0 ms) to last (43 ms)
    expect(round(sum.pausedPercent)).toBe(round((100 * 11.5) / 43));
  });

  it('leaves duration and pause empty for a GC the trace does not finish', async () => {
    const t = await timeline(new GcScript().suspend(0, 1).start(1, 1, 1, 0, 0).bytes());
    expect(t.gcs).toHaveLength(1);
    expect(t.gcs[0]).toMatchObject({ durationMs: null, pauseMs: null, sizesAfter: null, mode: null });
    expect(t.summary.pause.count).toBe(0);
  });

  it('matches a direct computation on 40 seeded random blocking-GC traces', async () => {
    let seed = 12345;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
    for (let trial = 0; trial < 40; trial++) {
      const s = new GcScript();
      const want: { n: number; gen: number; pause: number; dur: number }[] = [];
      let t = 0;
      const gcs = 1 + Math.floor(rnd() * 30);
      for (let n = 1; n <= gcs; n++) {
        t += 1 + Math.floor(rnd() * 50);
        if (rnd() < 0.3) s.suspend(t, 9, 0).restart((t += 1), 9); // unrelated suspension first
        const thread = 1 + Math.floor(rnd() * 3);
        const gen = Math.floor(rnd() * 3);
        const sus = t;
        const startAt = sus + 0.5;
        const endAt = startAt + 1 + Math.floor(rnd() * 20);
        const resume = endAt + 0.5;
        s.suspend(sus, thread).start(startAt, thread, n, gen, 0).end(endAt, thread, n, gen, [n, 0, 0, 0, 0]).restart(resume, thread);
        want.push({ n, gen, pause: resume - sus, dur: endAt - startAt });
        t = resume;
      }
      const got = await timeline(s.bytes());
      expect(got.gcs.map((r) => ({ n: r.number, gen: r.generation, pause: round(r.pauseMs), dur: round(r.durationMs) }))).toEqual(want);
      expect(got.summary.byGeneration).toEqual([0, 1, 2].map((g) => want.filter((x) => x.gen === g).length));
      const pauses = want.map((x) => x.pause).sort((a, b) => a - b);
      expect(round(got.summary.pause.p90)).toBe(pauses[Math.ceil(0.9 * pauses.length) - 1]);
    }
  });
});

describe('percentile (nearest rank)', () => {
  it('picks the ceil(p·n)-th smallest value', () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect([50, 90, 99, 100, 0].map((p) => percentile(xs, p))).toEqual([5, 9, 10, 10, 1]);
    expect(percentile([], 50)).toBe(0);
    expect(percentile([7], 99)).toBe(7);
  });
});

/** GCStart/HeapStats/GlobalHeapHistory read straight from payload bytes, independent of the timeline code. */
function scan(bytes: Uint8Array): { depths: number[]; firstSizes: number[]; mechanisms: number[] } {
  const depths: number[] = [];
  const mechanisms: number[] = [];
  let firstSizes: number[] = [];
  const p = new NetTraceParser(
    {
      onEvent: (e) => {
        if (e.metadata.provider !== CLR) return;
        const v = e.view;
        const o = e.payloadOffset;
        if (e.metadata.eventId === 1) depths.push(v.getUint32(o + 4, true));
        if (e.metadata.eventId === 4 && firstSizes.length === 0) firstSizes = [0, 16, 32, 48].map((k) => Number(v.getBigUint64(o + k, true)));
        if (e.metadata.eventId === 205) mechanisms.push(v.getUint32(o + 24, true));
      },
    },
    { sort: true },
  );
  p.push(bytes);
  p.end();
  return { depths, firstSizes, mechanisms };
}

for (const [file, gcs] of [
  ['eventpipe-dotnetcore3.0-win-x64-objver4.nettrace', 478],
  ['eventpipe-dotnetcore2.1-win-x86-objver3.netperf', 10],
] as const) {
  const path = fixturePath(`nettrace/${file}`);
  describe.skipIf(!path)(`GC timeline of ${file}${path ? '' : ' (fixture missing: skipped)'}`, () => {
    it('has one row per GCStart, generations counted from the raw payloads, pauses and sizes for every GC', async () => {
      const bytes = new Uint8Array(readFileSync(path!));
      const raw = scan(bytes);
      const t = await timeline(bytes);
      expect(t.gcs).toHaveLength(gcs);
      expect(t.summary.gcCount).toBe(gcs);
      expect(t.summary.byGeneration).toEqual([0, 1, 2].map((g) => raw.depths.filter((d) => d === g).length));
      expect(t.gcs.map((r) => r.generation)).toEqual(raw.depths);
      expect(t.summary.pause.count).toBe(gcs);
      expect(t.gcs.every((r) => r.pauseMs !== null && r.durationMs !== null && r.pauseMs >= r.durationMs && r.durationMs > 0)).toBe(true);
      expect(t.gcs.every((r) => r.sizesAfter !== null)).toBe(true);
      expect(t.gcs[0].sizesAfter!.slice(0, 4)).toEqual(raw.firstSizes);
      expect(t.gcs.map((r) => r.mode)).toEqual(raw.mechanisms.map((m) => (m & 2 ? 'compacting' : 'sweeping')));
      expect(t.gcs.map((r) => r.number)).toEqual(Array.from({ length: gcs }, (_, i) => i + 1));
      expect(t.summary.pause.max).toBeGreaterThanOrEqual(t.summary.pause.p99);
      expect(t.trace.complete).toBe(true);
    });
  });
}

import type { GcRow, GcTimeline as GcAnalysis, GcTimelineSummary } from '../analysis/gc-timeline.js';
import type { GcEventDto, GcTimeline, GcTimelineSummaryDto } from '../ipc/contract.js';

/**
 * The GC timeline DTO. GC events are not part of the heap graph: the host reads them from the
 * trace file itself (analysis/gc-timeline.ts `readGcTimeline`) on the first request and keeps the
 * result; this maps it (one row per GC: hundreds, not per object) or says why there is none.
 */
export function gcTimelineDto(format: string, t: GcAnalysis | null): GcTimeline {
  if (format !== 'nettrace') {
    return { available: false, reason: `a ${format} snapshot carries no GC events (only .nettrace traces do)`, events: [], summary: null };
  }
  if (!t) return { available: false, reason: 'the GC events of this trace have not been read', events: [], summary: null };
  if (t.gcs.length === 0) return { available: false, reason: 'this trace holds no GC events (was the GC keyword enabled?)', events: [], summary: null };
  return { available: true, reason: null, events: t.gcs.map(gcEventDto), summary: gcSummaryDto(t.summary) };
}

/** One GC as it crosses the contract (also what a live GC monitor streams). */
export function gcEventDto(g: GcRow): GcEventDto {
  return {
    index: g.number,
    generation: g.generation,
    reason: g.reason,
    kind: g.type,
    startMs: g.startMs,
    durationMs: g.durationMs,
    pauseMs: g.pauseMs,
    heapSizeBefore: null,
    heapSizeAfter: g.sizesAfter ? g.sizesAfter.reduce((a, b) => a + b, 0) : null,
    sizesAfter: g.sizesAfter ? [...g.sizesAfter] : null,
    promotedBytes: g.promotedBytes,
    mode: g.mode,
  };
}

export function gcSummaryDto(s: GcTimelineSummary): GcTimelineSummaryDto {
  return {
    gcCount: s.gcCount,
    byGeneration: [...s.byGeneration],
    induced: s.induced,
    pause: { ...s.pause },
    traceDurationMs: s.traceDurationMs,
    pausedPercent: s.pausedPercent,
  };
}

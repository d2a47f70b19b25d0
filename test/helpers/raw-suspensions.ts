import { NetTraceParser } from '../../shared/formats/nettrace/nettrace-parser.js';
import { CLR } from './clr-event-payloads.js';

/**
 * The runtime suspensions and GC starts/ends of a trace, read straight from the payload bytes
 * (independent of shared/analysis/gc-timeline.ts), for checking its pause attribution.
 */
export interface RawGc {
  number: number;
  type: number; // 0 NonConcurrent, 1 Background, 2 Foreground
  startMs: number;
  endMs: number | null;
}

export interface RawSuspension {
  thread: number;
  reason: number;
  beginMs: number;
  /** SuspendEEEnd (null if absent). */
  suspendedMs: number | null;
  restartMs: number;
  /** GCs whose GCStart came while this suspension was open, in order. */
  starts: RawGc[];
}

export function rawSuspensions(bytes: Uint8Array): { suspensions: RawSuspension[]; gcs: RawGc[] } {
  const suspensions: RawSuspension[] = [];
  const gcs: RawGc[] = [];
  const open = new Map<number, Omit<RawSuspension, 'restartMs'>>();
  const p = new NetTraceParser(
    {
      onEvent: (e) => {
        if (e.metadata.provider !== CLR) return;
        const v = e.view;
        const o = e.payloadOffset;
        switch (e.metadata.eventId) {
          case 9: // SuspendEEBegin: Reason u32, Count u32
            open.set(e.threadId, { thread: e.threadId, reason: v.getUint32(o, true), beginMs: e.timeMs, suspendedMs: null, starts: [] });
            break;
          case 8: {
            const s = open.get(e.threadId);
            if (s) s.suspendedMs = e.timeMs;
            break;
          }
          case 3: {
            const s = open.get(e.threadId);
            if (s) suspensions.push({ ...s, restartMs: e.timeMs });
            open.delete(e.threadId);
            break;
          }
          case 1: {
            // GCStart v2: Count, Depth, Reason, Type (u32 each)
            const g: RawGc = { number: v.getUint32(o, true), type: v.getUint32(o + 12, true), startMs: e.timeMs, endMs: null };
            gcs.push(g);
            for (const s of open.values()) s.starts.push(g);
            break;
          }
          case 2: {
            const n = v.getUint32(o, true);
            for (let i = gcs.length - 1; i >= 0; i--) {
              if (gcs[i].number !== n) continue;
              gcs[i].endMs = e.timeMs;
              break;
            }
            break;
          }
        }
      },
    },
    { sort: true, allowTruncated: true },
  );
  p.push(bytes);
  p.end();
  return { suspensions, gcs };
}

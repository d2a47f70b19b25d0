import { FormatError } from '../../errors.js';
import type { NetTraceHeader } from './nettrace-event.js';

/**
 * The 48-byte `Trace` object payload (nettrace-format.md §A4) and the SYSTEMTIME → ticks
 * conversion shared with v6's TraceBlock.
 */
export function parseTraceObject(view: DataView, at: number, container: number, objectVersion: number): NetTraceHeader {
  const { iso, ticks } = readSystemTime(view, at);
  const pointerSize = view.getInt32(at + 32, true);
  if (pointerSize !== 4 && pointerSize !== 8) throw new FormatError('format/corrupt', `pointer size ${pointerSize}`, { offset: at + 32 });
  const qpcFrequency = readI64(view, at + 24);
  if (!(qpcFrequency > 0)) throw new FormatError('format/corrupt', `clock frequency ${qpcFrequency}`, { offset: at + 24 });
  return {
    formatVersion: container,
    traceObjectVersion: objectVersion,
    syncTimeUtc: iso,
    syncTimeTicks: ticks,
    syncTimeQpc: readI64(view, at + 16),
    qpcFrequency,
    pointerSize,
    processId: view.getInt32(at + 36, true),
    numberOfProcessors: view.getInt32(at + 40, true),
    expectedCpuSamplingRate: view.getInt32(at + 44, true),
  };
}

/** Windows SYSTEMTIME (8 × i16: year, month, day-of-week, day, hour, minute, second, ms) in UTC. */
export function readSystemTime(view: DataView, at: number): { iso: string; ticks: bigint } {
  const f = (i: number) => view.getInt16(at + 2 * i, true);
  const ms = Date.UTC(f(0), f(1) - 1, f(3), f(4), f(5), f(6), f(7));
  if (!Number.isFinite(ms)) return { iso: '', ticks: 0n };
  const d = new Date(ms);
  // setUTCFullYear keeps years < 100 literal (Date.UTC maps 0–99 to 1900–1999).
  if (f(0) >= 0 && f(0) < 100) d.setUTCFullYear(f(0));
  const t = d.getTime();
  const iso = Number.isNaN(t) ? '' : d.toISOString();
  const EPOCH_TICKS = 621_355_968_000_000_000n; // .NET ticks at 1970-01-01
  return { iso, ticks: Number.isNaN(t) ? 0n : EPOCH_TICKS + BigInt(t) * 10_000n };
}

export function readI64(view: DataView, at: number): number {
  return view.getInt32(at + 4, true) * 4294967296 + view.getUint32(at, true);
}

import { FormatError } from '../../errors.js';
import type { NetTraceEvent } from './nettrace-event.js';
import { CLR_PROVIDER, CLR_RUNDOWN_PROVIDER } from './clr-event-names.js';
import { PayloadCursor } from './payload-cursor.js';

/**
 * Fixed payload layouts of the runtime's GC events (nettrace-format.md Part B).
 *
 * Native runtime events carry no field descriptions, so layouts are selected by (provider,
 * event id, version); a payload longer than the listed layout (a newer version) is read by its
 * known prefix. These decoders run once per GC-level event (hundreds to thousands per trace), so
 * they return small objects; the per-object bulk events are decoded in place by the assembler.
 */

export const GcEventId = {
  GCStart: 1,
  GCEnd: 2,
  RestartEEEnd: 3,
  HeapStats: 4,
  RestartEEBegin: 7,
  SuspendEEEnd: 8,
  SuspendEEBegin: 9,
  BulkType: 15,
  BulkRootEdge: 16,
  BulkRootConditionalWeakTableElementEdge: 17,
  BulkNode: 18,
  BulkEdge: 19,
  GenerationRange: 23,
  Triggered: 35,
  BulkRootCCW: 36,
  BulkRCW: 37,
  BulkRootStaticVar: 38,
  PerHeapHistory: 204,
  GlobalHeapHistory: 205,
  GenAwareBegin: 206,
  GenAwareEnd: 207,
} as const;

/** Whether `e` is the runtime provider's event `id`. */
export function isClrEvent(e: NetTraceEvent, id: number): boolean {
  return e.metadata.eventId === id && e.metadata.provider === CLR_PROVIDER;
}

export interface GcStart {
  count: number;
  /** Condemned generation (0 for v0 payloads, which do not carry it). */
  depth: number;
  reason: number;
  /** 0 non-concurrent (blocking), 1 background, 2 foreground. */
  type: number;
}

/** GCStart v0 (8 bytes), v1 (18), v2 (26): TraceEvent reads Depth/Type only from ≥ 16 bytes. */
export function readGcStart(e: NetTraceEvent): GcStart {
  const v = e.view;
  const p = e.payloadOffset;
  if (e.payloadLength >= 16) {
    return { count: v.getUint32(p, true), depth: v.getUint32(p + 4, true), reason: v.getUint32(p + 8, true), type: v.getUint32(p + 12, true) };
  }
  if (e.payloadLength >= 8) return { count: v.getUint32(p, true), depth: 0, reason: v.getUint32(p + 4, true), type: 0 };
  return { count: 0, depth: 0, reason: 0, type: 0 };
}

/** GCEnd v0 (`u32 Count, u16 Depth`) and v1 (`u32 Count, u32 Depth, …`). */
export function readGcEnd(e: NetTraceEvent): { count: number; depth: number } {
  const v = e.view;
  const p = e.payloadOffset;
  if (e.payloadLength < 6) return { count: 0, depth: 0 };
  const depth = e.payloadLength >= 8 && e.metadata.version >= 1 ? v.getUint32(p + 4, true) : v.getUint16(p + 4, true);
  return { count: v.getUint32(p, true), depth };
}

export interface GcHeapStats {
  /** Bytes after the GC per generation: gen0, gen1, gen2, LOH, POH (POH 0 before v2). */
  generationSize: number[];
  /** Bytes promoted per generation (same order). */
  promoted: number[];
  finalizationPromotedSize: number;
  finalizationPromotedCount: number;
  pinnedObjectCount: number;
  sinkBlockCount: number;
  gcHandleCount: number;
}

/** GCHeapStats v0 (92), v1 (94), v2 (110): sizes and promoted bytes interleave per generation. */
export function readHeapStats(e: NetTraceEvent): GcHeapStats | null {
  if (e.payloadLength < 92) return null;
  const c = new PayloadCursor(e.bytes, e.payloadOffset, e.payloadOffset + e.payloadLength);
  const generationSize = [0, 0, 0, 0, 0];
  const promoted = [0, 0, 0, 0, 0];
  for (let g = 0; g < 4; g++) {
    generationSize[g] = c.u64();
    promoted[g] = c.u64();
  }
  const finalizationPromotedSize = c.u64();
  const finalizationPromotedCount = c.u64();
  const pinnedObjectCount = c.u32();
  const sinkBlockCount = c.u32();
  const gcHandleCount = c.u32();
  if (e.payloadLength >= 110) {
    c.skip(2); // ClrInstanceID
    generationSize[4] = c.u64();
    promoted[4] = c.u64();
  }
  return { generationSize, promoted, finalizationPromotedSize, finalizationPromotedCount, pinnedObjectCount, sinkBlockCount, gcHandleCount };
}

export interface GcGlobalHeapHistory {
  condemnedGeneration: number;
  reason: number;
  /** GlobalMechanisms bits: 0x1 concurrent, 0x2 compaction, 0x4 promotion, 0x8 demotion, 0x10 card bundles. */
  globalMechanisms: number;
  numHeaps: number;
  /** v2+: 0 batch, 1 interactive, 2 low latency, 3 sustained low latency, 4 no GC region (−1 unknown). */
  pauseMode: number;
}

/** GCGlobalHeapHistory (id 205) v0–v4: the fields up to GlobalMechanisms are common to all. */
export function readGlobalHeapHistory(e: NetTraceEvent): GcGlobalHeapHistory | null {
  if (e.payloadLength < 28) return null;
  const v = e.view;
  const p = e.payloadOffset;
  return {
    numHeaps: v.getInt32(p + 8, true),
    condemnedGeneration: v.getUint32(p + 12, true),
    reason: v.getUint32(p + 20, true),
    globalMechanisms: v.getUint32(p + 24, true),
    pauseMode: e.payloadLength >= 34 ? v.getUint32(p + 30, true) : -1,
  };
}

/** GCSuspendEEBegin: v0 `u16 Reason`, v1 `u32 Reason, u32 Count, u16 ClrInstanceID`. */
export function readSuspendReason(e: NetTraceEvent): number {
  if (e.payloadLength >= 4) return e.view.getUint32(e.payloadOffset, true);
  if (e.payloadLength >= 2) return e.view.getUint16(e.payloadOffset, true);
  return -1;
}

/** GCTriggered (id 35): `u32 Reason`. */
export function readTriggeredReason(e: NetTraceEvent): number {
  return e.payloadLength >= 4 ? e.view.getUint32(e.payloadOffset, true) : -1;
}

export interface GenerationRange {
  generation: number;
  startLo: number;
  startHi: number;
  /** Start as a double (exact below 2^53). */
  start: number;
  usedLength: number;
  reservedLength: number;
}

/** GCGenerationRange (id 23): `u8 Generation, ptr RangeStart, u64 Used, u64 Reserved, u16`. */
export function readGenerationRange(e: NetTraceEvent, pointerSize: number): GenerationRange | null {
  if (e.payloadLength < 17 + pointerSize) return null;
  const v = e.view;
  const p = e.payloadOffset;
  const startLo = v.getUint32(p + 1, true);
  const startHi = pointerSize === 8 ? v.getUint32(p + 5, true) : 0;
  const q = p + 1 + pointerSize;
  return {
    generation: v.getUint8(p),
    startLo,
    startHi,
    start: startHi * 4294967296 + startLo,
    usedLength: v.getUint32(q + 4, true) * 4294967296 + v.getUint32(q, true),
    reservedLength: v.getUint32(q + 12, true) * 4294967296 + v.getUint32(q + 8, true),
  };
}

/** Module load/unload/DCStart/DCEnd ids carrying ModuleLoadUnloadTraceData (§B15). */
export function isModuleEvent(e: NetTraceEvent): boolean {
  const id = e.metadata.eventId;
  const provider = e.metadata.provider;
  if (provider === CLR_PROVIDER) return id === 149 || id === 150 || id === 152 || id === 153;
  if (provider === CLR_RUNDOWN_PROVIDER) return id === 153 || id === 154;
  return false;
}

/**
 * ModuleID, flags and IL path of a module event, or null when the payload is too short.
 * `cutFrom`: the path's length when it was cut to the name cap (name-cap.ts), else 0.
 */
export function readModule(e: NetTraceEvent): { moduleId: number; flags: number; ilPath: string; cutFrom: number } | null {
  try {
    const c = new PayloadCursor(e.bytes, e.payloadOffset, e.payloadOffset + e.payloadLength);
    const moduleId = c.u64();
    c.u64(); // AssemblyID
    const flags = c.u32();
    c.u32(); // Reserved1
    const ilPath = c.utf16z();
    return { moduleId, flags, ilPath, cutFrom: c.longestCut };
  } catch (err) {
    if (err instanceof FormatError) return null; // a short payload is a data problem for the caller
    throw err;
  }
}

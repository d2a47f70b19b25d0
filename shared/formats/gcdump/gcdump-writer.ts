import { FormatError } from '../../errors.js';
import type { HeapGraph } from '../../graph/heap-graph.js';
import { ticksToIso, type HeapSegment, type InteropInfo, type SnapshotMetadata } from '../../graph/metadata.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { NEVER_CANCELLED } from '../../util/cancellation.js';
import { ByteSink, SINK_CHUNK } from './byte-sink.js';
import {
  FS_MAGIC,
  TAG_BEGIN_OBJECT,
  TAG_END_OBJECT,
  TAG_NULL,
  TAG_OBJECT_REFERENCE,
  TAG_SKIP_REGION,
  TAG_STRING,
} from './fast-serialization.js';
import { writeMemoryGraphBody } from './memory-graph-writer.js';

/**
 * Write a HeapGraph as a .gcdump, byte for byte in the structure dotnet-gcdump emits
 * (gcdump-format.md §8): GCHeapDump v10 (min reader 8) holding a Graphs.MemoryGraph v1, the
 * process fields, a tagged null-or-InteropInfo in a SkipRegion, a tagged CreationTool, then the
 * end marker, a one-entry forward-reference table, the trailer and the suffix label.
 *
 * Extras a dotnet-gcdump file lacks but the format carries are written when the graph has them:
 * DotNetHeapInfo with v1 segments (Gen4End) so generations survive, InteropInfo, per-type count
 * multipliers, JSHeapInfo. The result is a list of chunks (never one buffer); write them in order.
 */
export interface WriteGcdumpOptions {
  /** The CreationTool field; null leaves the tag out (as older PerfView files do). Default "heapscope". */
  creationTool?: string | null;
  chunkSize?: number;
  token?: CancellationToken;
  /** Order of the node records in the blob (a permutation of node indices); default index order. */
  recordOrder?: Uint32Array;
}

const TICKS_AT_UNIX_EPOCH = 621_355_968_000_000_000n;
const MAX_LABEL = 0xffffffff;

export function writeGcdump(g: HeapGraph, opts: WriteGcdumpOptions = {}): Uint8Array[] {
  const token = opts.token ?? NEVER_CANCELLED;
  const m = g.metadata;
  const is64Bit = m.pointerSize !== 4;
  const sink = new ByteSink(opts.chunkSize ?? SINK_CHUNK);
  sink.i32(FS_MAGIC.length);
  for (let i = 0; i < FS_MAGIC.length; i++) sink.u8(FS_MAGIC.charCodeAt(i));

  sink.u8(TAG_BEGIN_OBJECT);
  typeDescriptor(sink, 'GCHeapDump', 10, 8);
  sink.u8(TAG_BEGIN_OBJECT);
  typeDescriptor(sink, 'Graphs.MemoryGraph', 1, 0);
  writeMemoryGraphBody(sink, g, is64Bit, token, opts.recordOrder, opts.chunkSize);
  sink.u8(TAG_END_OBJECT);

  sink.u8(is64Bit ? 1 : 0);
  sink.f32(m.averageCountMultiplier);
  sink.f32(m.averageSizeMultiplier);
  if (m.extra.jsHeapInfo) {
    sink.u8(TAG_BEGIN_OBJECT);
    typeDescriptor(sink, 'JSHeapInfo', 0, 0);
    sink.u8(TAG_END_OBJECT);
  } else sink.u8(TAG_NULL);
  if (m.segments) writeDotNetHeapInfo(sink, m.segments, m);
  else sink.u8(TAG_NULL);
  sink.string(m.collectionLog);
  sink.i64Big(timeCollectedTicks(m));
  sink.string(m.machineName);
  sink.string(m.processName);
  sink.i32(m.processId);
  sink.i64(m.totalProcessCommit);
  sink.i64(m.totalProcessWorkingSet);
  const mult = m.countMultipliersByType;
  sink.i32(mult ? mult.length : 0);
  if (mult) for (let i = 0; i < mult.length; i++) sink.f32(mult[i]);

  // Tagged InteropInfo in a SkipRegion whose forward reference 0 points just past the object.
  sink.u8(TAG_SKIP_REGION);
  sink.i32(0);
  if (m.interop) writeInteropInfo(sink, m.interop);
  else sink.u8(TAG_NULL);
  const afterInterop = sink.offset;
  const tool = opts.creationTool === undefined ? 'heapscope' : opts.creationTool;
  if (tool !== null) {
    sink.u8(TAG_STRING);
    sink.string(tool);
  }
  sink.u8(TAG_END_OBJECT); // end of GCHeapDump
  sink.u8(TAG_END_OBJECT); // no more objects

  const table = sink.offset;
  sink.i32(1);
  sink.u32(afterInterop);
  const trailer = sink.offset;
  sink.u32(table);
  if (trailer > MAX_LABEL) throw new FormatError('format/too-large', `the file would be ${trailer} bytes; .gcdump labels are 32-bit`);
  sink.u32(trailer);
  return sink.finish();
}

/** An inline type descriptor `04 01 version minReader name 06`; returns its label. */
function typeDescriptor(sink: ByteSink, name: string, version: number, minimumReaderVersion: number): number {
  const at = sink.offset;
  sink.u8(TAG_BEGIN_OBJECT);
  sink.u8(TAG_NULL);
  sink.i32(version);
  sink.i32(minimumReaderVersion);
  sink.string(name);
  sink.u8(TAG_END_OBJECT);
  return at;
}

/** Exact ticks when the reader kept them and they still match the ISO time; else from the ISO time. */
function timeCollectedTicks(m: SnapshotMetadata): bigint {
  const kept = m.extra.timeCollectedTicks;
  if (typeof kept === 'string' && /^\d+$/.test(kept) && ticksToIso(BigInt(kept)) === m.timeCollected) return BigInt(kept);
  if (!m.timeCollected) return 0n;
  const ms = Date.parse(m.timeCollected + 'Z');
  return Number.isNaN(ms) ? 0n : BigInt(ms) * 10_000n + TICKS_AT_UNIX_EPOCH;
}

function writeDotNetHeapInfo(sink: ByteSink, segments: readonly HeapSegment[], m: SnapshotMetadata): void {
  sink.u8(TAG_BEGIN_OBJECT);
  typeDescriptor(sink, 'DotNetHeapInfo', 0, 0);
  const kept = m.extra.sizeOfAllSegments;
  let total = 0n;
  for (const s of segments) total += s.end - s.start;
  sink.i64Big(typeof kept === 'number' ? BigInt(Math.trunc(kept)) : total);
  sink.i32(segments.length);
  let segmentType = -1;
  for (const s of segments) {
    sink.u8(TAG_BEGIN_OBJECT);
    if (segmentType < 0) segmentType = typeDescriptor(sink, 'GCHeapDumpSegment', 1, 1);
    else {
      sink.u8(TAG_OBJECT_REFERENCE);
      sink.u32(segmentType);
    }
    for (const v of [s.start, s.end, s.gen0End, s.gen1End, s.gen2End, s.gen3End, s.gen4End]) sink.u64(v);
    sink.u8(TAG_END_OBJECT);
  }
  sink.u8(TAG_END_OBJECT);
}

function writeInteropInfo(sink: ByteSink, info: InteropInfo): void {
  sink.u8(TAG_BEGIN_OBJECT);
  typeDescriptor(sink, 'InteropInfo', 0, 0);
  const total = info.rcws.length + info.ccws.length;
  sink.i32(total);
  if (total > 0) {
    sink.i32(info.rcws.length);
    sink.i32(info.ccws.length);
    sink.i32(info.interfaces.length);
    sink.i32(info.modules.length);
    for (const r of info.rcws) {
      sink.i32(r.node);
      sink.i32(r.refCount);
      sink.u64(r.iUnknown);
      sink.u64(r.jupiter);
      sink.u64(r.vtable);
      sink.i32(r.firstInterface);
      sink.i32(r.interfaceCount);
    }
    for (const c of info.ccws) {
      sink.i32(c.node);
      sink.i32(c.refCount);
      sink.u64(c.iUnknown);
      sink.u64(c.handle);
      sink.i32(c.firstInterface);
      sink.i32(c.interfaceCount);
    }
    for (const f of info.interfaces) {
      sink.u8(f.isRcw ? 1 : 0);
      sink.i32(f.owner);
      sink.i32(f.typeIndex);
      sink.u64(f.address);
      sink.u64(f.firstVTable);
      sink.u64(f.firstFunc);
    }
    for (const mod of info.modules) {
      sink.u64(mod.baseAddress);
      sink.u32(mod.fileSize);
      sink.u32(mod.timeStamp);
      sink.string(mod.fileName);
    }
  }
  sink.u8(TAG_END_OBJECT);
}

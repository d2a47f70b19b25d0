import { FormatError } from '../../errors.js';
import type { HeapSegment, InteropInfo } from '../../graph/metadata.js';
import type { ByteCursor } from './byte-cursor.js';
import { checkTypeVersion, type BodyReader, type FastSerializationReader } from './fast-serialization.js';

/**
 * Bodies of the small side objects of a GCHeapDump (gcdump-format.md §5.4, §5.5, §6.6):
 * DotNetHeapInfo with its GCHeapDumpSegments, InteropInfo, Graphs.Module and the empty JSHeapInfo.
 * Each count is checked against the bytes left before anything is allocated.
 */

export const DOTNET_HEAP_INFO_TYPE = 'DotNetHeapInfo';
export const SEGMENT_TYPE = 'GCHeapDumpSegment';
export const INTEROP_INFO_TYPE = 'InteropInfo';
export const MODULE_TYPE = 'Graphs.Module';
export const JS_HEAP_INFO_TYPE = 'JSHeapInfo';

export class DotNetHeapInfo {
  constructor(
    readonly sizeOfAllSegments: number,
    readonly segments: HeapSegment[],
  ) {}
}

export class SegmentObject {
  constructor(readonly segment: HeapSegment) {}
}

export class InteropObject {
  constructor(readonly info: InteropInfo) {}
}

export class ModuleInfo {
  constructor(readonly path: string | null) {}
}

export class JsHeapInfo {}

/**
 * More segments or interop entries than this is a hostile file: each becomes a JS object in an
 * array (V8 aborts past ~2^27 elements), and a 5-byte reference to one segment can repeat. Real
 * dumps have at most a few thousand segments (regions) and RCWs/CCWs.
 */
export const MAX_LIST_ENTRIES = 1 << 20;

function checkCount(cur: ByteCursor, count: number, minBytes: number, what: string): void {
  if (count < 0 || count * minBytes > cur.remaining) {
    throw cur.corrupt(`${what} count ${count} cannot fit in the ${cur.remaining} bytes left`);
  }
  if (count > MAX_LIST_ENTRIES) {
    throw new FormatError('format/too-large', `${cur.source.name}: ${count} ${what}s are more than this reader handles (${MAX_LIST_ENTRIES}) (in ${cur.section}, offset ${cur.pos})`, { offset: cur.pos });
  }
}

/** GCHeapDumpSegment: 6 u64 boundaries, plus Gen4End (POH) from type version 1. */
export const segmentBody: BodyReader = async (fs, type) => {
  const cur = fs.cur;
  checkTypeVersion(cur, type, 1, 0);
  const n = type.version >= 1 ? 7 : 6;
  await cur.need(8 * n);
  const segment: HeapSegment = {
    start: cur.u64(),
    end: cur.u64(),
    gen0End: cur.u64(),
    gen1End: cur.u64(),
    gen2End: cur.u64(),
    gen3End: cur.u64(),
    gen4End: n === 7 ? cur.u64() : 0n,
  };
  return new SegmentObject(segment);
};

/** Read `count` segment objects (used by DotNetHeapInfo and by legacy GCHeapDump ≤ 7). */
export async function readSegmentList(fs: FastSerializationReader, count: number): Promise<HeapSegment[]> {
  checkCount(fs.cur, count, 1, 'segment');
  const out: HeapSegment[] = [];
  for (let i = 0; i < count; i++) {
    const s = await fs.readObject();
    if (s instanceof SegmentObject) out.push(s.segment);
    else if (s !== null) throw fs.cur.corrupt(`segment ${i} is not a GCHeapDumpSegment`);
  }
  return out;
}

export const dotNetHeapInfoBody: BodyReader = async (fs) => {
  const cur = fs.cur;
  cur.section = 'the DotNetHeapInfo object';
  await cur.need(12);
  const sizeOfAllSegments = cur.i64();
  const count = cur.i32();
  return new DotNetHeapInfo(sizeOfAllSegments, await readSegmentList(fs, count));
};

export const interopInfoBody: BodyReader = async (fs) => {
  const cur = fs.cur;
  cur.section = 'the InteropInfo object';
  const info: InteropInfo = { rcws: [], ccws: [], interfaces: [], modules: [] };
  const total = await cur.readI32();
  if (total === 0) return new InteropObject(info);
  await cur.need(16);
  const rcwCount = cur.i32();
  const ccwCount = cur.i32();
  const interfaceCount = cur.i32();
  const moduleCount = cur.i32();
  checkCount(cur, rcwCount, 40, 'RCW');
  for (let i = 0; i < rcwCount; i++) {
    await cur.need(40);
    info.rcws.push({
      node: cur.i32(),
      refCount: cur.i32(),
      iUnknown: cur.u64(),
      jupiter: cur.u64(),
      vtable: cur.u64(),
      firstInterface: cur.i32(),
      interfaceCount: cur.i32(),
    });
  }
  checkCount(cur, ccwCount, 32, 'CCW');
  for (let i = 0; i < ccwCount; i++) {
    await cur.need(32);
    info.ccws.push({
      node: cur.i32(),
      refCount: cur.i32(),
      iUnknown: cur.u64(),
      handle: cur.u64(),
      firstInterface: cur.i32(),
      interfaceCount: cur.i32(),
    });
  }
  checkCount(cur, interfaceCount, 33, 'COM interface');
  for (let i = 0; i < interfaceCount; i++) {
    await cur.need(33);
    info.interfaces.push({
      isRcw: cur.u8() === 1,
      owner: cur.i32(),
      typeIndex: cur.i32(),
      address: cur.u64(),
      firstVTable: cur.u64(),
      firstFunc: cur.u64(),
    });
  }
  checkCount(cur, moduleCount, 20, 'interop module');
  for (let i = 0; i < moduleCount; i++) {
    await cur.need(16);
    const baseAddress = cur.u64();
    const fileSize = cur.u32();
    const timeStamp = cur.u32();
    info.modules.push({ baseAddress, fileSize, timeStamp, fileName: await cur.readName() });
  }
  // The reference reader keeps modules sorted by base address (Array.sort is stable).
  info.modules.sort((a, b) => (a.baseAddress < b.baseAddress ? -1 : a.baseAddress > b.baseAddress ? 1 : 0));
  return new InteropObject(info);
};

/** Graphs.Module: only the path matters to us (deferred type module names). */
export const moduleBody: BodyReader = async (fs) => {
  const cur = fs.cur;
  const path = await cur.readName();
  await cur.need(24);
  cur.u64(); // ImageBase
  cur.i64(); // Size
  cur.i64(); // BuildTime
  await cur.skipString(); // PdbName
  await cur.need(20); // PdbGuid + PdbAge
  await cur.skip(20);
  return new ModuleInfo(path);
};

export const jsHeapInfoBody: BodyReader = async () => new JsHeapInfo();

import { FormatError } from '../../errors.js';
import type { HeapSegment, InteropInfo } from '../../graph/metadata.js';
import type { ByteCursor } from './byte-cursor.js';
import { checkTypeVersion, TAG_SKIP_REGION, TAG_STRING, type BodyReader, type FastSerializationReader } from './fast-serialization.js';
import { DotNetHeapInfo, InteropObject, JsHeapInfo, readSegmentList } from './heap-info-reader.js';
import type { MemoryGraphResult } from './memory-graph-reader.js';

/**
 * The body of the entry object `GCHeapDump` (gcdump-format.md §5): the current layout (v9/v10)
 * and the legacy one (v4–7). Version 8 and anything below 4 are refused like the reference
 * reader does.
 */

export const GCHEAPDUMP_TYPE = 'GCHeapDump';
/** The version our reader implements (a file may demand at most this via minimumReaderVersion). */
export const GCHEAPDUMP_READER_VERSION = 10;

/** Everything the GCHeapDump object carries, before it becomes SnapshotMetadata. */
export class HeapDumpFields {
  version = 0;
  graph: MemoryGraphResult | null = null;
  legacyIs64Bit: boolean | null = null;
  averageCountMultiplier = 1;
  averageSizeMultiplier = 1;
  jsHeapInfo = false;
  segments: HeapSegment[] | null = null;
  sizeOfAllSegments: number | null = null;
  collectionLog: string | null = null;
  timeCollectedTicks = 0n;
  machineName: string | null = null;
  processName: string | null = null;
  processId = 0;
  totalProcessCommit = 0;
  totalProcessWorkingSet = 0;
  countMultipliersByType: Float32Array | null = null;
  interop: InteropInfo | null = null;
  creationTool: string | null = null;
}

function unsupported(cur: ByteCursor, version: number, at: number): FormatError {
  return new FormatError('format/unsupported-version', `${cur.source.name}: unsupported GCHeapDump version ${version} (readable: 4–7, 9 and later)`, { offset: at });
}

async function readGraphField(fs: FastSerializationReader): Promise<MemoryGraphResult> {
  const at = fs.cur.pos;
  const g = await fs.readObject();
  if (!g || typeof g !== 'object' || (g as { kind?: string }).kind !== 'memory-graph') {
    throw fs.cur.corrupt('the GCHeapDump does not start with a Graphs.MemoryGraph object', at);
  }
  return g as MemoryGraphResult;
}

/** TimeCollected … TotalProcessWorkingSet, shared by v5+ legacy and current layouts. */
async function readProcessFields(cur: ByteCursor, d: HeapDumpFields): Promise<void> {
  d.collectionLog = await cur.readText();
  await cur.need(8);
  d.timeCollectedTicks = cur.i64Big();
  d.machineName = await cur.readName();
  d.processName = await cur.readName();
  await cur.need(20);
  d.processId = cur.i32();
  d.totalProcessCommit = cur.i64();
  d.totalProcessWorkingSet = cur.i64();
}

export const heapDumpBody: BodyReader = async (fs, type) => {
  const cur = fs.cur;
  const d = new HeapDumpFields();
  checkTypeVersion(cur, type, GCHEAPDUMP_READER_VERSION, 4);
  d.version = type.version;
  if (type.version < 4 || type.version === 8) throw unsupported(cur, type.version, type.offset);

  const graph = await readGraphField(fs);
  d.graph = graph;
  cur.section = 'the GCHeapDump fields';
  if (type.version < 8) {
    await readLegacyFields(fs, d, type.version);
    return d;
  }

  await cur.need(9);
  d.legacyIs64Bit = cur.u8() !== 0;
  d.averageCountMultiplier = cur.f32();
  d.averageSizeMultiplier = cur.f32();
  d.jsHeapInfo = (await fs.readObject()) instanceof JsHeapInfo;
  const heapInfo = await fs.readObject();
  cur.section = 'the GCHeapDump fields';
  if (heapInfo instanceof DotNetHeapInfo) {
    d.segments = heapInfo.segments;
    d.sizeOfAllSegments = heapInfo.sizeOfAllSegments;
  }
  await readProcessFields(cur, d);
  const countAt = cur.pos;
  const count = await cur.readI32();
  if (count < 0 || count * 4 > cur.remaining) throw cur.corrupt(`count-multiplier count ${count} cannot fit in the file`, countAt);
  if (count > 0) {
    // One multiplier per type: only as many as the graph has types are kept (and allocated);
    // the rest are stepped over and reported.
    const types = graph.builder.typeCount;
    const keep = Math.min(count, types);
    const mult = new Float32Array(keep);
    for (let i = 0; i < keep; ) {
      const n = Math.min(keep - i, 1 << 16);
      await cur.need(4 * n);
      for (const end = i + n; i < end; i++) mult[i] = cur.f32();
    }
    if (count > keep) {
      await cur.skip(4 * (count - keep));
      graph.builder.problems.add('malformed-record', `${count} count multipliers for ${types} types; the extra ones were ignored`);
    }
    d.countMultipliersByType = mult;
  }

  // Tagged fields (§3.8): present or not regardless of the version number.
  if (await fs.tryTag(TAG_SKIP_REGION)) {
    await cur.readI32(); // forward index of the region's end; we read the object in place
    const interop = await fs.readObject();
    cur.section = 'the GCHeapDump fields';
    if (interop instanceof InteropObject) d.interop = interop.info;
  }
  if (await fs.tryTag(TAG_STRING)) d.creationTool = await cur.readName();
  return d;
};

/** §5.3: v4–7. Segments (v6+) are kept as metadata.segments so generations can still be computed. */
async function readLegacyFields(fs: FastSerializationReader, d: HeapDumpFields, version: number): Promise<void> {
  const cur = fs.cur;
  await cur.need(25);
  d.sizeOfAllSegments = cur.i64();
  cur.i64(); // size of dumped objects
  cur.i64(); // number of dumped objects
  cur.u8(); // all objects dumped
  if (version < 5) return;
  await readProcessFields(cur, d);
  if (version < 6) return;
  const count = await cur.readI32();
  d.segments = await readSegmentList(fs, count);
  cur.section = 'the GCHeapDump fields';
  if (version < 7) return;
  d.legacyIs64Bit = (await cur.readU8()) !== 0;
}

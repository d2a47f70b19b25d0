import { AppError, FormatError, type ErrorCode } from '../../errors.js';
import type { ByteSource } from '../../util/byte-source.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { NEVER_CANCELLED } from '../../util/cancellation.js';
import { NO_PROGRESS, type ProgressSink } from '../../util/progress.js';
import { GrowableUint32Array, GrowableUint8Array } from '../../util/growable-array.js';
import { ProblemList } from '../../graph/problems.js';
import type { MemoryBudget } from '../../graph/memory-estimate.js';
import { CHECK_EVERY, DumpMemoryCheck } from './dump-memory.js';
import { FillRecords } from './fill-records.js';
import { StreamCursor } from './stream-cursor.js';
import { StreamStrings } from './stream-strings.js';
import { readTypeHistogram, type TypeHistogramSink } from './type-histogram.js';

/**
 * The binary stream the dump helper (electron/dump-reader, C# on ClrMD) writes to stdout, and its
 * decoder. A dump is read by the runtime's own data-access library, which only .NET code can load,
 * so the helper walks the heap and this side turns the stream into a HeapGraph (dump-graph.ts).
 *
 * ## Format "HSDUMP01" (all integers little-endian)
 *
 *     magic   8 bytes "HSDUMP01"
 *     record* u8 tag, then the tag's fields:
 *
 * | tag  | record    | fields |
 * |------|-----------|--------|
 * | 0x01 | STRING    | u32 id, u32 byteLength, UTF-8 bytes. Ids are dense: 0, 1, 2, … in stream order. |
 * | 0x02 | INFO      | u32 key string id, u32 value string id (clrVersion, pointerSize, processId, …; before the first OBJECT also heapBytes and smallObjectHeapBytes: decimal bytes of all segments' object ranges, and of those not in the large or pinned object heap) |
 * | 0x03 | TYPE      | u32 type id (dense from 0), u32 name string id, u32 module string id or NONE |
 * | 0x04 | OBJECT    | u64 address, u32 type id, u64 size, u8 generation (0–2, 3 LOH, 4 POH, 5 frozen, 255 unknown), u32 n, then n × (u64 target address, u32 field-name string id or NONE) |
 * | 0x05 | ROOT      | u8 kind (RootKind), u32 group string id or NONE, u32 name string id or NONE, u64 object address |
 * | 0x06 | DEPENDENT | u64 key address, u64 value address (a dependent handle: value lives while key lives) |
 * | 0x08 | STRING_VALUE | u64 address, u32 value id, u32 text string id or NONE, u32 full length in UTF-16 chars: the contents of the System.String object just written (see below) |
 * | 0x0a | ARRAY_FILL | u64 address, u32 length, u32 non-default elements, u32 element size in bytes: the array object just written (see below) |
 * | 0x0b | COLLECTION_FILL | u64 address, u32 Count, u32 capacity (its backing array's length, 0 without one): the List/Dictionary/HashSet/Queue/Stack just written. Older helpers only; COLLECTION replaced it |
 * | 0x0c | COLLECTION | u64 address, u8 kind (an index into COLLECTION_KINDS, graph/fill-facts.ts), u32 Count, u32 capacity (element slots allocated), u64 storage bytes: the collection just written (see below) |
 * | 0x0d | TYPE_HISTOGRAM | u32 n, then n × (u32 type id, u64 objects, u64 bytes): objects per type, free objects skipped, from a stats pass before the walk (at most once, before the first OBJECT; type-histogram.ts) |
 * | 0x09 | PROGRESS  | u64 done, u64 total: bytes of heap segments walked so far, of all segments' object bytes. Written about every 1% of the walk and once at its end (done = total); a load progress bar follows it. |
 * | 0x7e | ERROR     | three inline strings (u32 byteLength + UTF-8): code, message, detail. Ends the stream. |
 * | 0x7f | END       | u64 objects, u64 references, u64 roots written (a check). Ends the stream. |
 *
 * NONE is 0xffffffff. A string or type is always written before its first use. OBJECT records
 * come in strictly increasing address order (the helper walks segments sorted by start), which
 * lets the graph resolve references by binary search instead of a per-object hash map. A stream
 * without END or ERROR was cut off (the helper died).
 *
 * STRING_VALUE follows the OBJECT record of its string (only STRING records may come between), with
 * the same address. Value ids are dense in first-seen order and equal ids mean equal contents: the
 * first record of a value carries the string id of its text (the first STRING_VALUE_MAX_CHARS
 * chars), later ones NONE. The full length is kept, so a cut-off value shows as text shorter than
 * its length. Values longer than the bound are told apart by length, text and a 64-bit hash of
 * all chars (electron/dump-reader/StringValues.cs). A .NET string with a lone surrogate reaches
 * UTF-8 with U+FFFD in its place; its id still says which value it is.
 *
 * ARRAY_FILL and COLLECTION_FILL (electron/dump-reader/ArrayFacts.cs) follow the OBJECT record of
 * their object (after its STRING_VALUE if any), with the same address, at most one per object. An
 * element is default when all its bytes are zero (a null reference, 0, an all-zero struct); the
 * count is exact (the helper reads every array's contents). They become graph/fill-facts.ts columns.
 * COLLECTION is their sibling for collections (same placement rules; an object has at most one of
 * the three): `kind` is an index into COLLECTION_KINDS (graph/fill-facts.ts), which only grows; a
 * value this reader does not know is kept as is and the object is still a collection with a Count,
 * capacity and storage (what "empty" needs), so a newer helper's kinds are reported, unnamed.
 * Storage = bytes of the objects allocated to hold elements, 0 when the capacity is 0
 * (electron/dump-reader/CollectionFacts.cs defines them per kind). A reader older than this record
 * stops at it with format/corrupt ("unknown record tag 0xc"): helper and reader ship together.
 *
 * TYPE_HISTOGRAM (type-histogram.ts) gives the type table before the walk: its counts and bytes
 * equal the OBJECT records' per type id. Types it lists are defined (TYPE) before it.
 *
 * Root groups/names: stack roots are (thread label, frame signature), statics (declaring type
 * name, field name); handle and finalizer roots have neither.
 */
export const DUMP_STREAM_MAGIC = 'HSDUMP01';
export const NONE_ID = 0xffffffff;

export const enum Tag {
  String = 0x01,
  Info = 0x02,
  Type = 0x03,
  Object = 0x04,
  Root = 0x05,
  Dependent = 0x06,
  StringValue = 0x08,
  Progress = 0x09,
  ArrayFill = 0x0a,
  CollectionFill = 0x0b,
  Collection = 0x0c,
  TypeHistogram = 0x0d,
  Error = 0x7e,
  End = 0x7f,
}

export const enum RootKind {
  Stack = 0,
  Static = 1,
  ThreadStatic = 2,
  StrongHandle = 3,
  PinnedHandle = 4,
  AsyncPinnedHandle = 5,
  RefCountedHandle = 6,
  SizedRefHandle = 7,
  WeakHandle = 8,
  FinalizerQueue = 9,
  OtherHandle = 10,
}

/** The helper sends at most this many chars of each string value (StringValues.MaxChars). */
export const STRING_VALUE_MAX_CHARS = 1024;

/**
 * First capacity of the object and reference columns from INFO smallObjectHeapBytes (bytes of the
 * objects outside the large and pinned object heaps, nearly all of a heap's objects), which the
 * helper writes before the first OBJECT and which passed the memory check (dump-memory.ts):
 * growing them by doubling from a few thousand entries reallocated and copied each column about
 * a dozen times on a big heap. The guess is a
 * typical heap's mean object size and references per object (a heuristic: too small costs one
 * more doubling, too big costs address space whose pages are committed only when written). The
 * cap bounds what a hostile value can reserve before any object arrives (about 360 MB of
 * address space at 8M objects).
 */
const BYTES_PER_OBJECT = 32;
const REFERENCES_PER_OBJECT = 2;
const MAX_EXPECTED_OBJECTS = 1 << 23;

function expectedObjects(smallObjectHeapBytes: number): number {
  return Math.min(MAX_EXPECTED_OBJECTS, Math.floor(smallObjectHeapBytes / BYTES_PER_OBJECT));
}

/** No single string in a sane stream is this long (a type name, a method signature). */
const MAX_STRING_BYTES = 1 << 20;

/**
 * The decoded stream: objects and references as columns (words of 64-bit addresses), roots few.
 * The object and reference columns may be views into larger buffers (see `used`): copy, do not keep.
 */
export interface DumpRecords {
  /** The STRING records, pooled as UTF-8 (stream-strings.ts). */
  strings: StreamStrings;
  info: Record<string, string>;
  typeNames: string[];
  typeModules: (string | null)[];
  objectCount: number;
  /** lo, hi per object, ascending. */
  objectAddress: Uint32Array;
  objectType: Uint32Array;
  objectSize: Uint32Array;
  objectGeneration: Uint8Array;
  /** Σ reference counts of objects 0..i (exclusive end of object i's references). */
  referenceEnd: Uint32Array;
  /** lo, hi per reference. */
  referenceTarget: Uint32Array;
  /** String id of the field holding each reference, or NONE_ID. */
  referenceField: Uint32Array;
  rootKind: Uint8Array;
  rootGroup: Uint32Array;
  rootName: Uint32Array;
  /** lo, hi per root. */
  rootObject: Uint32Array;
  /** key lo, key hi, value lo, value hi per dependent handle. */
  dependents: Uint32Array;
  /** Per object: its string value id, or NONE_ID (not a string). */
  objectStringValue: Uint32Array;
  /** Per string value id: the string id of its (bounded) text. */
  stringValueText: Uint32Array;
  /** Per string value id: its full length in UTF-16 chars. */
  stringValueLength: Uint32Array;
  /** ARRAY_FILL / COLLECTION_FILL records (empty when the helper wrote none). */
  fills: FillRecords;
  problems: ProblemList;
}

const KNOWN_ERROR_CODES = new Set<string>(['dump/no-clr', 'dump/dac-missing', 'dump/corrupt', 'dump/helper-crashed', 'io/not-found', 'io/denied', 'usage/bad-argument']);

/**
 * Decode a whole stream; PROGRESS records go to `progress` as phase "parse". With `memoryBudget`,
 * a heap whose graph cannot fit is refused with `memory/too-large` (dump-memory.ts) as soon as
 * the INFO `smallObjectHeapBytes` or the objects read so far say so. Throws FormatError on a stream that is not one (format/bad-magic), was
 * cut off (format/truncated) or breaks the rules above (format/corrupt); an ERROR record becomes
 * an AppError with its code. Memory grows only with bytes actually read: counts in the stream
 * are never used to allocate up front, so a hostile count can only run into the end (INFO
 * smallObjectHeapBytes sizes the columns' first capacity, capped: see expectedObjects).
 */
export async function decodeDumpStream(
  source: ByteSource,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
  memoryBudget?: () => MemoryBudget,
  onTypeHistogram?: TypeHistogramSink,
): Promise<DumpRecords> {
  const c = new StreamCursor(source);
  const memory = new DumpMemoryCheck(source.name, memoryBudget);
  const corrupt = (what: string): never => {
    throw new FormatError('format/corrupt', `${source.name}: ${what}`, { offset: c.offset });
  };
  await c.ensure(8);
  if (c.ascii(8) !== DUMP_STREAM_MAGIC) throw new FormatError('format/bad-magic', `${source.name} is not a Heapscope dump stream`, { offset: 0 });

  const strings = new StreamStrings();
  const info: Record<string, string> = {};
  const typeNames: string[] = [];
  const typeModules: (string | null)[] = [];
  let objAddr = new GrowableUint32Array(2048);
  let objType = new GrowableUint32Array(1024);
  let objSize = new GrowableUint32Array(1024);
  let objGen = new GrowableUint8Array(1024);
  let refEnd = new GrowableUint32Array(1024);
  let refTarget = new GrowableUint32Array(4096);
  let refField = new GrowableUint32Array(2048);
  const rootKind = new GrowableUint8Array(256);
  const rootGroup = new GrowableUint32Array(256);
  const rootName = new GrowableUint32Array(256);
  const rootObject = new GrowableUint32Array(512);
  const dependents = new GrowableUint32Array(64);
  // Grown only when a STRING_VALUE arrives (filled with NONE_ID up to the object); streams
  // without string values leave it empty.
  const objString = new GrowableUint32Array(16);
  const valueText = new GrowableUint32Array(64);
  const valueLength = new GrowableUint32Array(64);
  const fills = new FillRecords();
  const problems = new ProblemList();
  const w = { lo: 0, hi: 0 };
  let prevLo = -1;
  let prevHi = -1;
  let records = 0;
  let histogram = false;

  const str = (id: number, what: string): void => {
    if (id !== NONE_ID && id >= strings.length) corrupt(`${what} refers to string ${id}, but only ${strings.length} were defined`);
  };
  const inlineString = async (): Promise<string> => {
    await c.ensure(4);
    const n = c.u32();
    if (n > MAX_STRING_BYTES) corrupt(`a string of ${n} bytes`);
    await c.ensure(n);
    return c.utf8(n);
  };

  for (;;) {
    if ((++records & 0xfff) === 0) token.throwIfCancelled();
    // `await` only when a record crosses a chunk: an await per record costs a microtask each, and
    // a dump with string contents has a few records per object.
    if (c.available < 1) await c.ensure(1);
    const tag = c.u8();
    switch (tag) {
      case Tag.String: {
        if (c.available < 8) await c.ensure(8);
        const id = c.u32();
        const n = c.u32();
        if (id !== strings.length) corrupt(`string id ${id} out of order (expected ${strings.length})`);
        if (n > MAX_STRING_BYTES) corrupt(`a string of ${n} bytes`);
        if (c.available < n) await c.ensure(n);
        strings.add(c.bytes(n));
        break;
      }
      case Tag.Info: {
        await c.ensure(8);
        const k = c.u32();
        const v = c.u32();
        if (k === NONE_ID || v === NONE_ID) corrupt('an INFO record without key or value');
        str(k, 'INFO');
        str(v, 'INFO');
        const key = strings.get(k);
        const value = strings.get(v);
        info[key] = value;
        if (key === 'smallObjectHeapBytes' && /^\d+$/.test(value)) {
          memory.heapBytes(Number(value));
          if (objType.length === 0) {
            // Still empty: replaced, not grown (a doubling from 1,024 would overshoot up to 2×).
            const objects = Math.max(1024, expectedObjects(Number(value)));
            objAddr = new GrowableUint32Array(2 * objects);
            objType = new GrowableUint32Array(objects);
            objSize = new GrowableUint32Array(objects);
            objGen = new GrowableUint8Array(objects);
            refEnd = new GrowableUint32Array(objects);
            refTarget = new GrowableUint32Array(2 * REFERENCES_PER_OBJECT * objects);
            refField = new GrowableUint32Array(REFERENCES_PER_OBJECT * objects);
          }
        }
        break;
      }
      case Tag.Type: {
        await c.ensure(12);
        const id = c.u32();
        const name = c.u32();
        const module = c.u32();
        if (id !== typeNames.length) corrupt(`type id ${id} out of order (expected ${typeNames.length})`);
        if (name === NONE_ID) corrupt(`type ${id} has no name`);
        str(name, 'TYPE');
        str(module, 'TYPE');
        typeNames.push(strings.get(name));
        typeModules.push(module === NONE_ID ? null : strings.get(module));
        break;
      }
      case Tag.Object: {
        if (c.available < 25) await c.ensure(25);
        c.u64Words(w);
        if (w.hi < prevHi || (w.hi === prevHi && w.lo <= prevLo)) corrupt(`object 0x${hex(w.lo, w.hi)} is not above the previous object (objects must come in address order)`);
        prevLo = w.lo;
        prevHi = w.hi;
        objAddr.push(w.lo);
        objAddr.push(w.hi);
        const type = c.u32();
        if (type >= typeNames.length) corrupt(`object 0x${hex(w.lo, w.hi)} has type ${type}, but only ${typeNames.length} were defined`);
        objType.push(type);
        const size = c.u64();
        if (size > 0xffffffff) {
          problems.add('size-overflow', `object 0x${hex(w.lo, w.hi)} has size ${size}; stored as 4294967295`);
          objSize.push(0xffffffff);
        } else objSize.push(size);
        const gen = c.u8();
        objGen.push(gen <= 5 ? gen : 255);
        const n = c.u32();
        for (let i = 0; i < n; i++) {
          if (c.available < 12) await c.ensure(12);
          c.u64Words(w);
          const field = c.u32();
          if (field !== NONE_ID && field >= strings.length) corrupt(`a reference names field string ${field}, but only ${strings.length} were defined`);
          refTarget.push(w.lo);
          refTarget.push(w.hi);
          refField.push(field);
          if ((i & 0xfffff) === 0xfffff) token.throwIfCancelled();
        }
        refEnd.push(refField.length);
        if ((refEnd.length & (CHECK_EVERY - 1)) === 0) memory.counts(refEnd.length, refField.length, false);
        break;
      }
      case Tag.Root: {
        await c.ensure(17);
        const kind = c.u8();
        const group = c.u32();
        const name = c.u32();
        str(group, 'ROOT');
        str(name, 'ROOT');
        c.u64Words(w);
        if (kind > RootKind.OtherHandle) problems.add('malformed-record', `a root of unknown kind ${kind} (counted as another handle)`);
        rootKind.push(kind > RootKind.OtherHandle ? RootKind.OtherHandle : kind);
        rootGroup.push(group);
        rootName.push(name);
        rootObject.push(w.lo);
        rootObject.push(w.hi);
        break;
      }
      case Tag.Dependent: {
        await c.ensure(16);
        for (let i = 0; i < 4; i++) dependents.push(c.u32());
        break;
      }
      case Tag.Progress: {
        await c.ensure(16);
        const done = c.u64();
        const total = c.u64();
        // The helper's own count of heap bytes: only a bar's position, clamped so it never runs past the end.
        progress('parse', Math.min(done, total), total);
        break;
      }
      case Tag.StringValue: {
        if (c.available < 20) await c.ensure(20);
        c.u64Words(w);
        const object = objType.length - 1;
        if (object < 0 || w.lo !== prevLo || w.hi !== prevHi) corrupt(`a string value for 0x${hex(w.lo, w.hi)}, which is not the object just written`);
        if (objString.length > object) corrupt(`two string values for object 0x${hex(w.lo, w.hi)}`);
        const value = c.u32();
        const text = c.u32();
        const length = c.u32();
        if (value === valueText.length) {
          if (text === NONE_ID) corrupt(`string value ${value} is new but has no text`);
          str(text, 'STRING_VALUE');
          const chars = strings.charLength(text);
          if (chars > length) corrupt(`string value ${value} has ${chars} chars of text but a length of ${length}`);
          valueText.push(text);
          valueLength.push(length);
        } else if (value > valueText.length) corrupt(`string value id ${value} out of order (expected at most ${valueText.length})`);
        else if (valueLength.raw[value] !== length) corrupt(`string value ${value} has length ${valueLength.raw[value]} and ${length}`);
        while (objString.length < object) objString.push(NONE_ID);
        objString.push(value);
        break;
      }
      case Tag.ArrayFill:
      case Tag.CollectionFill: {
        const n = tag === Tag.ArrayFill ? 20 : 16;
        if (c.available < n) await c.ensure(n);
        c.u64Words(w);
        const object = objType.length - 1;
        if (object < 0 || w.lo !== prevLo || w.hi !== prevHi) corrupt(`a fill record for 0x${hex(w.lo, w.hi)}, which is not the object just written`);
        if (fills.lastObject === object) corrupt(`two fill records for object 0x${hex(w.lo, w.hi)}`);
        const count = tag === Tag.ArrayFill ? 0 : c.u32();
        if (tag === Tag.ArrayFill) {
          const length = c.u32();
          const nonDefault = c.u32();
          const wrong = fills.array(object, objType.raw[object], length, nonDefault, c.u32());
          if (wrong) corrupt(wrong);
        } else fills.collection(object, count, c.u32());
        break;
      }
      case Tag.Collection: {
        if (c.available < 25) await c.ensure(25);
        c.u64Words(w);
        const object = objType.length - 1;
        if (object < 0 || w.lo !== prevLo || w.hi !== prevHi) corrupt(`a collection record for 0x${hex(w.lo, w.hi)}, which is not the object just written`);
        if (fills.lastObject === object) corrupt(`two fill records for object 0x${hex(w.lo, w.hi)}`);
        const kind = c.u8();
        const count = c.u32();
        const capacity = c.u32();
        fills.collection(object, count, capacity, kind, c.u64());
        break;
      }
      case Tag.TypeHistogram: {
        if (histogram || objType.length > 0) corrupt('a type histogram that is not the first and only one before the objects');
        histogram = true;
        const h = await readTypeHistogram(c, typeNames, typeModules, corrupt);
        onTypeHistogram?.(h);
        break;
      }
      case Tag.Error: {
        const code = await inlineString();
        const message = await inlineString();
        const detail = await inlineString();
        const known = KNOWN_ERROR_CODES.has(code) ? (code as ErrorCode) : 'dump/helper-crashed';
        throw new AppError(known, message || code, detail ? { file: detail, helperCode: code } : { helperCode: code });
      }
      case Tag.End: {
        await c.ensure(24);
        const objects = c.u64();
        const references = c.u64();
        const roots = c.u64();
        if (objects !== objType.length || references !== refField.length || roots !== rootKind.length) {
          corrupt(`the stream ends claiming ${objects} objects, ${references} references and ${roots} roots, but carried ${objType.length}, ${refField.length} and ${rootKind.length}`);
        }
        if (!(await c.atEnd())) corrupt('bytes after the END record');
        memory.counts(objType.length, refField.length, true);
        return {
          strings,
          info,
          typeNames,
          typeModules,
          objectCount: objType.length,
          objectAddress: used(objAddr),
          objectType: used(objType),
          objectSize: used(objSize),
          objectGeneration: used(objGen),
          referenceEnd: used(refEnd),
          referenceTarget: used(refTarget),
          referenceField: used(refField),
          rootKind: rootKind.finish(),
          rootGroup: rootGroup.finish(),
          rootName: rootName.finish(),
          rootObject: rootObject.finish(),
          dependents: dependents.finish(),
          objectStringValue: padded(objString, objType.length),
          stringValueText: valueText.finish(),
          stringValueLength: valueLength.finish(),
          fills,
          problems,
        };
      }
      default:
        corrupt(`unknown record tag 0x${tag.toString(16)}`);
    }
  }
}

/**
 * The used part of a per-object or per-reference column, without the trimming copy of finish():
 * dump-graph.ts copies these into the graph's columns (which also hold the pseudo nodes) and drops
 * them, so a trimmed copy of ~190 MB on a 5M-object heap would be made only to be copied again.
 * Costs the slack of the last doubling (less than the used part) until the graph is built.
 */
function used<T extends GrowableUint32Array | GrowableUint8Array>(col: T): T['raw'] {
  return col.raw.subarray(0, col.length) as T['raw'];
}

/** The per-object string value column, NONE_ID past the last string; empty when the stream had none. */
function padded(col: GrowableUint32Array, objects: number): Uint32Array {
  if (col.length === 0) return new Uint32Array(0);
  const out = new Uint32Array(objects).fill(NONE_ID);
  out.set(col.raw.subarray(0, col.length));
  return out;
}

export function hex(lo: number, hi: number): string {
  return hi === 0 ? (lo >>> 0).toString(16) : (hi >>> 0).toString(16) + (lo >>> 0).toString(16).padStart(8, '0');
}

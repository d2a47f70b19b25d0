import { FormatError } from '../../errors.js';
import { clrEventName } from './clr-event-names.js';
import { PayloadCursor } from './payload-cursor.js';

/**
 * EventPipe metadata records (nettrace-format.md §A7): what an event id means.
 *
 * A stream defines each (provider, event id, version) once with a metadata record and then refers
 * to it by MetadataId. Records are few (tens to a few thousand per trace), so each becomes one
 * plain object; events point at it instead of copying names.
 */

/** Field type codes of §A7.1. */
export const TypeCode = {
  Object: 1,
  Boolean: 3,
  Char: 4,
  SByte: 5,
  Byte: 6,
  Int16: 7,
  UInt16: 8,
  Int32: 9,
  UInt32: 10,
  Int64: 11,
  UInt64: 12,
  Single: 13,
  Double: 14,
  Decimal: 15,
  DateTime: 16,
  Guid: 17,
  String: 18,
  Array: 19,
} as const;

export interface FieldInfo {
  name: string;
  typeCode: number;
  /** Element type of an Array field (V2Params / v6 only). */
  elementTypeCode?: number;
  /** Members of an Object (struct) field, or of an array of structs. */
  fields?: FieldInfo[];
}

export interface EventMetadata {
  metadataId: number;
  provider: string;
  eventId: number;
  /** Name as written in the record: empty for native runtime events. */
  rawName: string;
  /**
   * Display name in TraceEvent's style: the record's name (plus "/opcode" when a non-standard
   * OpCode tag is present), or "Task/Opcode" from the built-in table for runtime events, or
   * "EventID(n)" when neither knows it.
   */
  name: string;
  /** `provider + "/" + name`: the event kind, the key of PerfView's baseline files. */
  kind: string;
  /** 64-bit keyword mask (few records, so a bigint is fine here). */
  keywords: bigint;
  version: number;
  level: number;
  /** From the OpCode tag, else the built-in table, else 0. */
  opcode: number;
  /** Payload layout, or null when the record carries none (all native runtime events). */
  fields: FieldInfo[] | null;
}

const OPCODE_NAMES: Record<number, string> = {
  1: 'Start',
  2: 'Stop',
  3: 'DCStart',
  4: 'DCStop',
  9: 'Extension',
  10: 'Reply',
  11: 'Resume',
  12: 'Suspend',
  13: 'Send',
  240: 'Receive',
};

/** Parse a metadata payload [start, end) of `bytes` (v3–v5 layout). */
export function parseMetadataRecord(bytes: Uint8Array, start: number, end: number, baseOffset: number): EventMetadata {
  const c = new PayloadCursor(bytes, start, end, baseOffset);
  const metadataId = c.i32();
  const provider = c.utf16z();
  return parseEventDescription(c, metadataId, provider);
}

/** The part after (metadataId, provider): shared by v3 and v4/v5 records. */
function parseEventDescription(c: PayloadCursor, metadataId: number, provider: string): EventMetadata {
  if (metadataId <= 0) throw new FormatError('format/corrupt', `metadata record defines id ${metadataId}`, { offset: c.baseOffset + c.pos });
  const eventId = c.i32();
  const rawName = c.utf16z();
  const lo = c.u32();
  const hi = c.u32();
  const keywords = (BigInt(hi) << 32n) | BigInt(lo);
  const version = c.i32();
  const level = c.i32();
  let fields: FieldInfo[] | null = null;
  let opcode = -1;
  if (c.remaining >= 4) {
    fields = readV1Fields(c, 0);
    // "v5" tags follow until the end of the payload.
    while (c.remaining >= 5) {
      const size = c.i32();
      const kind = c.u8();
      c.need(size, 'metadata tag');
      const tagEnd = c.pos + size;
      if (kind === 1 && size >= 1) opcode = c.bytes[c.pos];
      else if (kind === 2) {
        const sub = new PayloadCursor(c.bytes, c.pos, tagEnd, c.baseOffset);
        fields = readV2Fields(sub, 0);
      }
      c.pos = tagEnd;
    }
  }
  return describe(metadataId, provider, eventId, rawName, keywords, version, level, opcode, fields);
}

function describe(
  metadataId: number,
  provider: string,
  eventId: number,
  rawName: string,
  keywords: bigint,
  version: number,
  level: number,
  tagOpcode: number,
  fields: FieldInfo[] | null,
): EventMetadata {
  let name: string;
  let opcode = Math.max(0, tagOpcode);
  const known = rawName ? null : clrEventName(provider, eventId);
  if (known) {
    name = known.name;
    if (tagOpcode < 0) opcode = known.opcode;
  } else if (rawName) {
    name = rawName;
    if (tagOpcode > 0) {
      const op = OPCODE_NAMES[tagOpcode];
      // EventSource names Start/Stop events "XxxStart"/"XxxStop"; TraceEvent shows them as "Xxx/Start".
      if (op && rawName.endsWith(op) && rawName.length > op.length) name = `${rawName.slice(0, -op.length)}/${op}`;
      else name = `${rawName}/${op ?? tagOpcode}`;
    }
  } else {
    name = `EventID(${eventId})`;
  }
  return { metadataId, provider, eventId, rawName, name, kind: `${provider}/${name}`, keywords, version, level, opcode, fields };
}

const MAX_FIELDS = 1 << 16;
const MAX_DEPTH = 32;

function readV1Fields(c: PayloadCursor, depth: number): FieldInfo[] {
  if (depth > MAX_DEPTH) throw new FormatError('format/corrupt', 'metadata field list nested too deeply', { offset: c.baseOffset + c.pos });
  const count = c.i32();
  if (count < 0 || count > MAX_FIELDS) throw new FormatError('format/corrupt', `metadata field count ${count}`, { offset: c.baseOffset + c.pos });
  const out: FieldInfo[] = [];
  for (let i = 0; i < count; i++) {
    const typeCode = c.i32();
    const nested = typeCode === TypeCode.Object ? readV1Fields(c, depth + 1) : undefined;
    const name = c.utf16z();
    out.push(nested ? { name, typeCode, fields: nested } : { name, typeCode });
  }
  return out;
}

function readV2Fields(c: PayloadCursor, depth: number): FieldInfo[] {
  if (depth > MAX_DEPTH) throw new FormatError('format/corrupt', 'metadata field list nested too deeply', { offset: c.baseOffset + c.pos });
  const count = c.i32();
  if (count < 0 || count > MAX_FIELDS) throw new FormatError('format/corrupt', `metadata field count ${count}`, { offset: c.baseOffset + c.pos });
  const out: FieldInfo[] = [];
  for (let i = 0; i < count; i++) {
    const start = c.pos;
    const size = c.i32();
    if (size < 4) throw new FormatError('format/corrupt', `metadata field record of ${size} bytes`, { offset: c.baseOffset + start });
    c.pos = start;
    c.need(size, 'V2 field');
    const sub = new PayloadCursor(c.bytes, start + 4, start + size, c.baseOffset);
    const name = sub.utf16z();
    const typeCode = sub.i32();
    const field: FieldInfo = { name, typeCode };
    if (typeCode === TypeCode.Array) field.elementTypeCode = sub.i32();
    if (typeCode === TypeCode.Object || field.elementTypeCode === TypeCode.Object) field.fields = readV2Fields(sub, depth + 1);
    out.push(field);
    c.pos = start + size;
  }
  return out;
}

/** A record built from parts (v6 metadata rows, tests). */
export function makeMetadata(parts: {
  metadataId: number;
  provider: string;
  eventId: number;
  rawName?: string;
  keywords?: bigint;
  version?: number;
  level?: number;
  opcode?: number;
  fields?: FieldInfo[] | null;
}): EventMetadata {
  return describe(
    parts.metadataId,
    parts.provider,
    parts.eventId,
    parts.rawName ?? '',
    parts.keywords ?? 0n,
    parts.version ?? 0,
    parts.level ?? 0,
    parts.opcode ?? -1,
    parts.fields ?? null,
  );
}

/**
 * Metadata records by id. Ids are small and dense in practice (an array); a corrupt huge id
 * just makes a sparse array. Events naming an undefined id get one placeholder record per id.
 */
export class MetadataTable {
  private readonly byId: (EventMetadata | undefined)[] = [];
  private readonly unknown = new Map<number, EventMetadata>();

  get(id: number): EventMetadata | undefined {
    return this.byId[id];
  }

  define(m: EventMetadata): void {
    if (m.metadataId > 0x7fffffff) throw new FormatError('format/corrupt', `metadata id ${m.metadataId}`);
    this.byId[m.metadataId] = m;
  }

  placeholder(id: number): EventMetadata {
    let u = this.unknown.get(id);
    if (!u) {
      u = makeMetadata({ metadataId: id, provider: '(unknown)', eventId: -1, rawName: `UnknownMetadata(${id})` });
      this.unknown.set(id, u);
    }
    return u;
  }
}

import { FormatError } from '../../errors.js';
import type { ByteCursor } from './byte-cursor.js';

/**
 * The FastSerialization object stream under every .gcdump (gcdump-format.md §3): header, tags,
 * type descriptors, object references, forward references and the end-tag search that skips
 * fields written by newer producers.
 *
 * Objects are few (a gcdump has about ten, plus a few per heap segment and module), so they are
 * plain JS values cached by the file offset of their definition; the big arrays inside a
 * MemoryGraph are read by its body reader straight from the cursor. Type-specific bodies are
 * supplied by the caller as `BodyReader`s.
 *
 * Every definition is read at most once: private objects (tag 05) are cached like the others,
 * together with the offset after them, so a definition met again (through a reference or inline)
 * costs a lookup and a seek. Re-reading them at every reference, as the format's reference reader
 * does, lets a 4 KB file with k references per level over L levels cost k^L reads. The cache
 * holds at most MAX_DEFINITIONS entries (about 100 bytes each).
 */

export const TAG_NULL = 1;
export const TAG_OBJECT_REFERENCE = 2;
export const TAG_FORWARD_REFERENCE = 3;
export const TAG_BEGIN_OBJECT = 4;
export const TAG_BEGIN_PRIVATE_OBJECT = 5;
export const TAG_END_OBJECT = 6;
export const TAG_FORWARD_DEFINITION = 7;
export const TAG_BYTE = 8;
export const TAG_INT16 = 9;
export const TAG_INT32 = 10;
export const TAG_INT64 = 11;
export const TAG_SKIP_REGION = 12;
export const TAG_STRING = 13;
export const TAG_BLOB = 14;

export const FS_MAGIC = '!FastSerialization.1';
/** Byte offset of the first object (after `i32 20` + the 20 magic characters). */
export const FS_HEADER_LENGTH = 24;

/** Nesting deeper than this is a malformed (or cyclic) file, not a real gcdump (which nests 4 deep). */
const MAX_DEPTH = 64;
/** More object definitions than this is a hostile file (real ones have tens to a few thousand). */
export const MAX_DEFINITIONS = 1 << 20;

/** Bytes after each tag whose field has a fixed size (§3.6), -1 for the others. */
const FIXED_FIELD_BYTES = (() => {
  const t = new Int8Array(16).fill(-1);
  t[TAG_NULL] = 0;
  t[TAG_BYTE] = 1;
  t[TAG_INT16] = 2;
  t[TAG_INT32] = 4;
  t[TAG_OBJECT_REFERENCE] = 4;
  t[TAG_FORWARD_REFERENCE] = 4;
  t[TAG_INT64] = 8;
  return t;
})();

/** A type descriptor (`SerializationType`, §3.4). */
export class SerializationType {
  constructor(
    readonly fullName: string,
    readonly version: number,
    readonly minimumReaderVersion: number,
    /** Offset of the descriptor's BeginObject tag (what ObjectReferences point at). */
    readonly offset: number,
  ) {}
}

/** An object of a type we do not know, skipped with the end-tag search. */
export class UnknownObject {
  constructor(readonly typeName: string) {}
}

/** Reads the body of one object type; the end-tag search runs after it returns. */
export type BodyReader = (fs: FastSerializationReader, type: SerializationType, offset: number) => Promise<unknown>;

/**
 * Reject a type whose producer says we are too old to read it (the reference reader's rule):
 * when `minimumReaderVersion > 0`, the file's version must be ≥ `minVersionCanRead` and our
 * `readerVersion` ≥ its `minimumReaderVersion`.
 */
export function checkTypeVersion(cur: ByteCursor, type: SerializationType, readerVersion: number, minVersionCanRead: number): void {
  if (type.minimumReaderVersion > 0 && (type.version < minVersionCanRead || readerVersion < type.minimumReaderVersion)) {
    throw new FormatError(
      'format/unsupported-version',
      `${cur.source.name}: ${type.fullName} version ${type.version} needs a reader of version ${type.minimumReaderVersion} (we read up to ${readerVersion})`,
      { offset: type.offset },
    );
  }
}

/** A definition already read: its value and the offset after its EndObject. */
interface Defined {
  value: unknown;
  end: number;
}

export class FastSerializationReader {
  private readonly cache = new Map<number, Defined>();
  private forwardTable: Uint32Array | null = null;
  private depth = 0;
  /** Definitions read (cache hits excluded): at most one per definition offset in the file. */
  definitionsRead = 0;
  /** Tags the end-tag search read with an await (the rest came straight from the window). */
  awaitedTags = 0;

  constructor(
    readonly cur: ByteCursor,
    private readonly bodies: Readonly<Record<string, BodyReader>>,
    /** Tests lower it to reach the limit with a small file. */
    private readonly maxDefinitions = MAX_DEFINITIONS,
  ) {}

  /** §3.1: `i32 20` + "!FastSerialization.1". */
  async readHeader(): Promise<void> {
    const cur = this.cur;
    cur.section = 'the file header';
    if (cur.size < FS_HEADER_LENGTH) {
      throw new FormatError('format/bad-magic', `${cur.source.name} is too short (${cur.size} bytes) to be a .gcdump`, { offset: 0 });
    }
    cur.seek(0);
    await cur.need(FS_HEADER_LENGTH);
    let ok = cur.i32() === 20;
    for (let i = 0; i < 20; i++) if (cur.u8() !== FS_MAGIC.charCodeAt(i)) ok = false;
    if (!ok) throw new FormatError('format/bad-magic', `${cur.source.name} does not start with the FastSerialization header`, { offset: 0 });
  }

  /** Target label of forward reference `index` (§3.7); the table is loaded on first use. */
  async forwardTarget(index: number): Promise<number> {
    const table = this.forwardTable ?? (await this.loadForwardTable());
    if (index < 0 || index >= table.length) {
      throw this.cur.corrupt(`forward reference ${index} is not in the forward-reference table (${table.length} entries)`);
    }
    const target = table[index];
    if (target > this.cur.size) throw this.cur.corrupt(`forward reference ${index} points past the end of the file (${target})`);
    return target;
  }

  /**
   * §3.7: suffix label (last 4 bytes) → trailer → table. A truncated file fails here when a
   * SkipRegion needs the table; otherwise the main parse reports where the file ended first.
   */
  async loadForwardTable(): Promise<Uint32Array> {
    const cur = this.cur;
    const size = cur.size;
    const bad = (why: string): FormatError =>
      new FormatError('format/corrupt', `${cur.source.name}: the forward-reference table at the end of the file is damaged or missing (${why}); the file may be truncated`, { offset: size });
    if (size < FS_HEADER_LENGTH + 12) throw bad('file too short');
    const u32At = async (at: number): Promise<number> => {
      const b = await cur.readRange(at, 4);
      return (b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) >>> 0;
    };
    const trailer = await u32At(size - 4);
    if (trailer < FS_HEADER_LENGTH || trailer + 4 > size - 4) throw bad(`trailer label ${trailer}`);
    const table = await u32At(trailer);
    if (table < FS_HEADER_LENGTH || table + 4 > trailer) throw bad(`table label ${table}`);
    const count = (await u32At(table)) | 0;
    // Each entry is a forward reference to an object: no more than there may be definitions.
    if (count < 0 || count > this.maxDefinitions || table + 4 + 4 * count > trailer) throw bad(`entry count ${count}`);
    const bytes = await cur.readRange(table + 4, 4 * count);
    const out = new Uint32Array(count);
    for (let i = 0; i < count; i++) {
      const j = 4 * i;
      out[i] = (bytes[j] | (bytes[j + 1] << 8) | (bytes[j + 2] << 16) | (bytes[j + 3] << 24)) >>> 0;
    }
    this.forwardTable = out;
    return out;
  }

  /** §3.3: one object reference or inline definition; null for NullReference. */
  async readObject(): Promise<unknown> {
    const cur = this.cur;
    if (++this.depth > MAX_DEPTH) throw cur.corrupt('objects nested too deeply (a reference cycle?)');
    try {
      for (;;) {
        const at = cur.pos;
        const tag = await cur.readU8();
        switch (tag) {
          case TAG_NULL:
            return null;
          case TAG_OBJECT_REFERENCE:
            return await this.resolveAt(await cur.readU32());
          case TAG_FORWARD_REFERENCE: {
            const index = await cur.readI32();
            await this.readObject(); // the referenced object's type; its definition repeats it
            return await this.resolveAt(await this.forwardTarget(index));
          }
          case TAG_BLOB: {
            const n = await cur.readI32();
            if (n < 0) throw cur.corrupt(`negative blob length ${n}`);
            await cur.skip(n);
            continue;
          }
          case TAG_BEGIN_OBJECT:
          case TAG_BEGIN_PRIVATE_OBJECT:
          case TAG_FORWARD_DEFINITION:
            return await this.readDefinition(at, tag);
          default:
            throw cur.corrupt(`unexpected tag ${tag} where an object was expected`, at);
        }
      }
    } finally {
      this.depth--;
    }
  }

  /** The object defined at `label`, from the cache or by reading it there and coming back. */
  private async resolveAt(label: number): Promise<unknown> {
    const hit = this.cache.get(label);
    if (hit) return hit.value;
    const cur = this.cur;
    if (label < FS_HEADER_LENGTH || label >= cur.size) throw cur.corrupt(`object reference to offset ${label} outside the file`);
    const back = cur.pos;
    cur.seek(label);
    const value = await this.readObject();
    cur.seek(back);
    return value;
  }

  /** §3.5: [ForwardDefinition idx] BeginObject <type> <body> <skippable> EndObject. */
  private async readDefinition(at: number, tag: number): Promise<unknown> {
    const cur = this.cur;
    const hit = this.cache.get(at);
    if (hit) {
      cur.seek(hit.end);
      return hit.value;
    }
    cur.throwIfCancelled();
    if (++this.definitionsRead > this.maxDefinitions) throw cur.corrupt(`more than ${this.maxDefinitions} object definitions (real files have a few thousand at most)`, at);
    if (tag === TAG_FORWARD_DEFINITION) {
      await cur.readI32();
      tag = await cur.readU8();
      if (tag !== TAG_BEGIN_OBJECT && tag !== TAG_BEGIN_PRIVATE_OBJECT) throw cur.corrupt(`forward definition followed by tag ${tag}`, at);
    }
    const type = await this.readObject();
    let value: unknown;
    if (type === null) {
      // "The type of a type is null": this definition is a type descriptor.
      await cur.need(8);
      const version = cur.i32();
      const minimumReaderVersion = cur.i32();
      const name = await cur.readName();
      if (name === null) throw cur.corrupt('type descriptor without a name', at);
      value = new SerializationType(name, version, minimumReaderVersion, at);
    } else if (type instanceof SerializationType) {
      const body = this.bodies[type.fullName];
      value = body ? await body(this, type, at) : new UnknownObject(type.fullName);
    } else {
      throw cur.corrupt('an object whose type reference is not a type descriptor', at);
    }
    await this.skipToEndObject();
    this.cache.set(at, { value, end: cur.pos });
    return value;
  }

  /**
   * §3.6 end-tag search: skip fields newer writers added, up to and including this object's
   * EndObject. Nested objects are read (and so skipped) with readObject, which also understands
   * their untagged type descriptors. Every step moves forward, so this always terminates.
   */
  async skipToEndObject(): Promise<void> {
    const cur = this.cur;
    for (;;) {
      if (this.skipFixedInWindow()) return;
      this.awaitedTags++;
      const at = cur.pos;
      const tag = await cur.readU8();
      switch (tag) {
        case TAG_END_OBJECT:
          return;
        case TAG_NULL:
          break;
        case TAG_BYTE:
          await cur.skip(1);
          break;
        case TAG_INT16:
          await cur.skip(2);
          break;
        case TAG_INT32:
        case TAG_OBJECT_REFERENCE:
        case TAG_FORWARD_REFERENCE:
          await cur.skip(4);
          break;
        case TAG_INT64:
          await cur.skip(8);
          break;
        case TAG_STRING:
          await cur.skipString();
          break;
        case TAG_BLOB: {
          const n = await cur.readI32();
          if (n < 0) throw cur.corrupt(`negative blob length ${n}`, at);
          await cur.skip(n);
          break;
        }
        case TAG_SKIP_REGION: {
          const target = await this.forwardTarget(await cur.readI32());
          if (target <= cur.pos) throw cur.corrupt(`skip region ends at ${target}, before it starts`, at);
          cur.seek(target);
          break;
        }
        case TAG_BEGIN_OBJECT:
        case TAG_BEGIN_PRIVATE_OBJECT:
        case TAG_FORWARD_DEFINITION:
          cur.seek(at);
          await this.readObject();
          break;
        default:
          throw cur.corrupt(`could not find the end of an object (tag ${tag})`, at);
      }
    }
  }

  /**
   * The end-tag search's common steps without an await: fixed-size tagged fields (and the
   * EndObject, consumed: returns true) straight from the window, until another tag or the window's
   * end. A body of millions of NullReference tags is a hostile file; an await per tag made it crawl.
   */
  private skipFixedInWindow(): boolean {
    const cur = this.cur;
    while (cur.has(9)) {
      const tag = cur.peekU8();
      if (tag === TAG_END_OBJECT) {
        cur.pos++;
        return true;
      }
      const size = tag < FIXED_FIELD_BYTES.length ? FIXED_FIELD_BYTES[tag] : -1;
      if (size < 0) return false;
      cur.pos += 1 + size;
    }
    return false;
  }

  /** §3.8: consume `tag` if it is next, else leave the position unchanged. */
  async tryTag(tag: number): Promise<boolean> {
    if ((await this.cur.peek()) !== tag) return false;
    this.cur.pos++;
    return true;
  }
}

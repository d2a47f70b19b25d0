/**
 * Builds "HSDUMP01" byte streams (shared/formats/dump/dump-stream.ts) for decoder tests, the way
 * the C# helper writes them: strings interned on first use, little-endian fields.
 */
export class DumpStreamWriter {
  private bytes: number[] = [];
  private strings = new Map<string, number>();
  objects = 0;
  references = 0;
  roots = 0;

  constructor(magic = 'HSDUMP01') {
    for (const ch of magic) this.bytes.push(ch.charCodeAt(0));
  }

  u8(v: number): this {
    this.bytes.push(v & 0xff);
    return this;
  }

  u32(v: number): this {
    for (let i = 0; i < 4; i++) this.bytes.push(Math.floor(v / 2 ** (8 * i)) & 0xff);
    return this;
  }

  u64(v: bigint | number): this {
    const b = BigInt(v);
    for (let i = 0n; i < 8n; i++) this.bytes.push(Number((b >> (8n * i)) & 0xffn));
    return this;
  }

  /** String id, writing a STRING record the first time (null → NONE). */
  str(s: string | null): number {
    if (s === null) return 0xffffffff;
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    const id = this.strings.size;
    this.strings.set(s, id);
    const utf8 = Buffer.from(s, 'utf8');
    this.u8(0x01).u32(id).u32(utf8.length);
    for (const b of utf8) this.bytes.push(b);
    return id;
  }

  info(key: string, value: string): this {
    const k = this.str(key);
    const v = this.str(value);
    return this.u8(0x02).u32(k).u32(v);
  }

  type(id: number, name: string, module: string | null = null): this {
    const n = this.str(name);
    const m = this.str(module);
    return this.u8(0x03).u32(id).u32(n).u32(m);
  }

  object(address: bigint | number, type: number, size: bigint | number, generation: number, refs: [bigint | number, string | null][] = []): this {
    const fields = refs.map(([, f]) => this.str(f));
    this.u8(0x04).u64(address).u32(type).u64(size).u8(generation).u32(refs.length);
    refs.forEach(([t], i) => this.u64(t).u32(fields[i]));
    this.objects++;
    this.references += refs.length;
    return this;
  }

  root(kind: number, group: string | null, name: string | null, address: bigint | number): this {
    const g = this.str(group);
    const n = this.str(name);
    this.roots++;
    return this.u8(0x05).u8(kind).u32(g).u32(n).u64(address);
  }

  dependent(key: bigint | number, value: bigint | number): this {
    return this.u8(0x06).u64(key).u64(value);
  }

  /** PROGRESS (0x09): heap bytes walked of the total. */
  progress(done: bigint | number, total: bigint | number): this {
    return this.u8(0x09).u64(done).u64(total);
  }

  /** STRING_VALUE for the object just written: `text` on a value's first record, null (NONE) on repeats. */
  stringValue(address: bigint | number, value: number, text: string | null, length: number): this {
    const t = this.str(text);
    return this.u8(0x08).u64(address).u32(value).u32(t).u32(length);
  }

  arrayFill(address: bigint | number, length: number, nonDefault: number, elementSize: number): this {
    return this.u8(0x0a).u64(address).u32(length).u32(nonDefault).u32(elementSize);
  }

  collectionFill(address: bigint | number, count: number, capacity: number): this {
    return this.u8(0x0b).u64(address).u32(count).u32(capacity);
  }

  /** A COLLECTION record: kind (COLLECTION_KINDS index), Count, capacity, storage bytes. */
  collection(address: bigint | number, kind: number, count: number, capacity: number, storage: number): this {
    return this.u8(0x0c).u64(address).u8(kind).u32(count).u32(capacity).u64(storage);
  }

  /** TYPE_HISTOGRAM (0x0d): [type id, objects, bytes] per listed type. */
  typeHistogram(entries: [number, bigint | number, bigint | number][]): this {
    this.u8(0x0d).u32(entries.length);
    for (const [id, count, bytes] of entries) this.u32(id).u64(count).u64(bytes);
    return this;
  }

  error(code: string, message: string, detail = ''): this {
    this.u8(0x7e);
    for (const s of [code, message, detail]) {
      const b = Buffer.from(s, 'utf8');
      this.u32(b.length);
      for (const x of b) this.bytes.push(x);
    }
    return this;
  }

  end(objects = this.objects, references = this.references, roots = this.roots): this {
    return this.u8(0x7f).u64(objects).u64(references).u64(roots);
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

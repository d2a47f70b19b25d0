import { ByteSink } from '../../../../../shared/formats/gcdump/byte-sink.js';

/**
 * Hand-assembled FastSerialization streams for the container and version tests (not a test file).
 *
 * Written byte by byte from the spec, independently of the production writer, so reader bugs
 * cannot cancel out writer bugs.
 */

export interface TinyGraphOptions {
  /** Write the tagged Is64Bit after the addresses (absent in old files). */
  is64Tag?: boolean | null;
  /** Type descriptor's minimumReaderVersion (1 ⇒ a deferred region follows the blob). */
  minReader?: number;
  /** Called where the deferred region goes (only when minReader ≥ 1). */
  deferred?: (s: StreamWriter) => void;
  /** Replace the root index. */
  root?: number;
  /** Replace node 1's children. */
  node1Children?: number[];
  /** Replace the declared TotalSize. */
  totalSize?: number;
  /** Override the type 2 name (null allowed, for deferred types). */
  fooName?: string | null;
  fooModule?: string | null;
}

/** A ByteSink plus FastSerialization helpers and a forward-reference table. */
export class StreamWriter {
  readonly s = new ByteSink(1 << 16);
  readonly forward: number[] = [];

  constructor() {
    this.s.i32(20);
    for (const c of '!FastSerialization.1') this.s.u8(c.charCodeAt(0));
  }

  get offset(): number {
    return this.s.offset;
  }

  bytes(...values: number[]): this {
    for (const v of values) this.s.u8(v);
    return this;
  }

  /** `04 01 version minReader name 06`; returns the label of its 04. */
  typeDesc(name: string, version: number, minReader: number): number {
    const at = this.s.offset;
    this.s.u8(4);
    this.s.u8(1);
    this.s.i32(version);
    this.s.i32(minReader);
    this.s.string(name);
    this.s.u8(6);
    return at;
  }

  /**
   * The 3-node graph: root `[.NET Roots]` → [1, 2]; node 1 `Foo` 24 bytes (from the type) → [2];
   * node 2 `Foo` 32 bytes (explicit). TotalSize 56, addresses 0, 0x1000, 0x2000.
   */
  memoryGraph(o: TinyGraphOptions = {}): void {
    const s = this.s;
    s.u8(4);
    this.typeDesc('Graphs.MemoryGraph', 1, o.minReader ?? 0);
    s.i64(o.totalSize ?? 56);
    s.i32(o.root ?? 0);
    s.i32(3);
    for (const [name, size, module] of [['UNDEFINED', 0, null], ['[.NET Roots]', 0, null], [o.fooName === undefined ? 'Foo' : o.fooName, 24, o.fooModule === undefined ? 'foo.dll' : o.fooModule]] as const) {
      s.string(name);
      s.i32(size);
      s.string(module);
    }
    const kids = o.node1Children ?? [2];
    const node1 = [0x04, kids.length, ...kids.map((c) => (c - 1) & 0x7f)]; // one-byte deltas (-64..63) only
    const blob = [0x00, 0x00, 0x02, 0x02, 0x01, 0x02, ...node1, 0x05, 0x20, 0x00];
    s.i32(3);
    s.i32(2);
    s.i32(6);
    s.i32(6 + node1.length);
    s.i32(blob.length);
    for (const b of blob) s.u8(b);
    if ((o.minReader ?? 0) >= 1 && o.deferred) o.deferred(this);
    s.i32(3);
    for (const a of [0n, 0x1000n, 0x2000n]) s.u64(a);
    if (o.is64Tag !== null && o.is64Tag !== undefined) {
      s.u8(8);
      s.u8(o.is64Tag ? 1 : 0);
    }
    s.u8(6);
  }

  /** The v9/v10 fields after the MemoryGraph up to (not including) the tagged ones. */
  currentFields(o: { heapInfo?: () => void } = {}): void {
    const s = this.s;
    s.u8(1); // legacy Is64Bit
    s.f32(1);
    s.f32(1);
    s.u8(1); // JSHeapInfo null
    if (o.heapInfo) o.heapInfo();
    else s.u8(1);
    s.string('log');
    s.i64Big(635_560_517_203_755_198n);
    s.string('HOST');
    s.string('app');
    s.i32(77);
    s.i64(1000);
    s.i64(2000);
    s.i32(0);
  }

  /** A GCHeapDumpSegment object; `typeLabel` reuses an earlier descriptor through an ObjectReference. */
  segment(values: bigint[], version: number, typeLabel?: number): number {
    const s = this.s;
    s.u8(4);
    let label = typeLabel ?? -1;
    if (typeLabel === undefined) label = this.typeDesc('GCHeapDumpSegment', version, version);
    else {
      s.u8(2);
      s.u32(typeLabel);
    }
    for (const v of values) s.u64(v);
    s.u8(6);
    return label;
  }

  /** End-of-objects marker, forward table, trailer and suffix label. */
  finish(opts: { noEndMarker?: boolean } = {}): Uint8Array {
    const s = this.s;
    if (!opts.noEndMarker) s.u8(6);
    const table = s.offset;
    s.i32(this.forward.length);
    for (const f of this.forward) s.u32(f);
    const trailer = s.offset;
    s.u32(table);
    s.u32(trailer);
    const chunks = s.finish();
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

/** A complete current-layout (v10) file around the tiny graph, with optional extras. */
export function currentFile(o: TinyGraphOptions & { version?: number; dumpMinReader?: number; tail?: (w: StreamWriter) => void } = {}): Uint8Array {
  const w = new StreamWriter();
  w.bytes(4);
  w.typeDesc('GCHeapDump', o.version ?? 10, o.dumpMinReader ?? 8);
  w.memoryGraph({ is64Tag: true, ...o });
  w.currentFields();
  w.bytes(0x0c);
  w.s.i32(0);
  w.bytes(1);
  w.forward[0] = w.offset;
  w.bytes(0x0d);
  w.s.string('unit-test');
  o.tail?.(w);
  w.bytes(6);
  return w.finish();
}

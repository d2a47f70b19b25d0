import { ByteWriter } from './nettrace-writer.js';

/**
 * Encoders for the CLR GC / heap-snapshot event payloads of nettrace-format.md Part B, so tests
 * can build synthetic traces byte for byte (there is no heap-dump fixture we may redistribute).
 * Addresses and ids are numbers (exact below 2^53) or bigints.
 */
export const CLR = 'Microsoft-Windows-DotNETRuntime';
export const RUNDOWN = 'Microsoft-Windows-DotNETRuntimeRundown';

type Id = number | bigint;

export function gcStart(count: number, depth: number, reason: number, type: number): Uint8Array {
  return new ByteWriter().u32(count).u32(depth).u32(reason).u32(type).u16(8).u64(0).result(); // v2, 26 bytes
}

export function gcEnd(count: number, depth: number): Uint8Array {
  return new ByteWriter().u32(count).u32(depth).u16(8).result(); // v1, 10 bytes
}

export function clrInstanceOnly(): Uint8Array {
  return new ByteWriter().u16(8).result();
}

export function suspendEE(reason: number, count: number): Uint8Array {
  return new ByteWriter().u32(reason).u32(count).u16(8).result();
}

export function triggered(reason: number): Uint8Array {
  return new ByteWriter().u32(reason).u16(8).result();
}

/** GCHeapStats v2 (110 bytes): sizes and promoted per generation 0–4. */
export function heapStats(sizes: number[], promoted: number[]): Uint8Array {
  const w = new ByteWriter();
  for (let g = 0; g < 4; g++) w.u64(sizes[g] ?? 0).u64(promoted[g] ?? 0);
  w.u64(0).u64(0).u32(0).u32(0).u32(0).u16(8);
  return w.u64(sizes[4] ?? 0).u64(promoted[4] ?? 0).result();
}

/** GCGlobalHeapHistory v2 (38 bytes). */
export function globalHeapHistory(condemned: number, reason: number, mechanisms: number): Uint8Array {
  return new ByteWriter().u64(0).i32(1).u32(condemned).u32(0).u32(reason).u32(mechanisms).u16(8).u32(1).u32(0).result();
}

export interface TypeDef {
  id: Id;
  module?: Id;
  nameId?: number;
  flags?: number;
  name: string;
  params?: Id[];
}

export function bulkType(types: TypeDef[]): Uint8Array {
  const w = new ByteWriter().u32(types.length).u16(8);
  for (const t of types) {
    w.u64(t.id).u64(t.module ?? 0).u32(t.nameId ?? 0x02000001).u32(t.flags ?? 0).u8(18).utf16z(t.name);
    const params = t.params ?? [];
    w.u32(params.length);
    for (const p of params) w.u64(p);
  }
  return w.result();
}

export interface NodeDef {
  address: Id;
  size: Id;
  type: Id;
  edges: number;
}

export function bulkNode(index: number, nodes: NodeDef[], P: number): Uint8Array {
  const w = new ByteWriter().u32(index).u32(nodes.length).u16(8);
  for (const n of nodes) w.ptr(n.address, P).u64(n.size).u64(n.type).u64(n.edges);
  return w.result();
}

export function bulkEdge(index: number, targets: Id[], P: number): Uint8Array {
  const w = new ByteWriter().u32(index).u32(targets.length).u16(8);
  for (const t of targets) w.ptr(t, P).u32(0);
  return w.result();
}

export interface RootDef {
  address: Id;
  kind: number;
  flags: number;
  rootId?: Id;
}

export function bulkRootEdge(index: number, roots: RootDef[], P: number): Uint8Array {
  const w = new ByteWriter().u32(index).u32(roots.length).u16(8);
  for (const r of roots) w.ptr(r.address, P).u8(r.kind).u32(r.flags).ptr(r.rootId ?? 0, P);
  return w.result();
}

export function bulkDependentHandles(index: number, pairs: { key: Id; value: Id }[], P: number): Uint8Array {
  const w = new ByteWriter().u32(index).u32(pairs.length).u16(8);
  for (const p of pairs) w.ptr(p.key, P).ptr(p.value, P).ptr(0, P);
  return w.result();
}

export interface StaticDef {
  object: Id;
  type: Id;
  field: string;
  flags?: number;
  slot?: Id;
}

export function bulkStaticVars(statics: StaticDef[], appDomain: Id = 0x1000): Uint8Array {
  const w = new ByteWriter().u32(statics.length).u64(appDomain).u16(8);
  for (const s of statics) w.u64(s.slot ?? 0x7000).u64(s.object).u64(s.type).u32(s.flags ?? 0).utf16z(s.field);
  return w.result();
}

export function bulkCcw(entries: { object: Id; type: Id; iUnknown: Id; refCount?: number }[]): Uint8Array {
  const w = new ByteWriter().u32(entries.length).u16(8);
  for (const e of entries) w.u64(0x9000).u64(e.object).u64(e.type).u64(e.iUnknown).u32(e.refCount ?? 1).u32(0).u32(1);
  return w.result();
}

export function bulkRcw(entries: { object: Id; type: Id; iUnknown: Id }[]): Uint8Array {
  const w = new ByteWriter().u32(entries.length).u16(8);
  for (const e of entries) w.u64(e.object).u64(e.type).u64(e.iUnknown).u64(0xabc).u32(1).u32(0);
  return w.result();
}

export function generationRange(generation: number, start: Id, used: number, reserved: number, P: number): Uint8Array {
  return new ByteWriter().u8(generation).ptr(start, P).u64(used).u64(reserved).u16(8).result();
}

/** ModuleLoad / ModuleDCEnd v2 payload (§B15). */
export function moduleEvent(moduleId: Id, ilPath: string, flags = 0): Uint8Array {
  const w = new ByteWriter().u64(moduleId).u64(0x5000).u32(flags).u32(0).utf16z(ilPath).utf16z('').u16(8);
  return w.bytes(new Uint8Array(16)).u32(0).utf16z('').bytes(new Uint8Array(16)).u32(0).utf16z('').result();
}

import type { NodeDef, RootDef, StaticDef, TypeDef } from './clr-event-payloads.js';
import {
  CLR,
  RUNDOWN,
  bulkCcw,
  bulkDependentHandles,
  bulkEdge,
  bulkNode,
  bulkRcw,
  bulkRootEdge,
  bulkStaticVars,
  bulkType,
  gcEnd,
  gcStart,
  generationRange,
  moduleEvent,
} from './clr-event-payloads.js';
import { NetTraceWriter } from './nettrace-writer.js';

/**
 * A synthetic heap described as dotnet-gcdump's events see it, and a writer that turns it into a
 * complete NetTrace v4 stream (GCStart induced gen2 → types → roots → nodes/edges → statics →
 * ranges → GCEnd → rundown module names), the way `dotnet-gcdump collect` receives it.
 */
export interface ObjectDef extends Omit<NodeDef, 'edges'> {
  refs: (number | bigint)[];
}

export interface SyntheticHeap {
  types: TypeDef[];
  modules: { id: number; path: string }[];
  objects: ObjectDef[];
  roots: RootDef[];
  statics?: StaticDef[];
  ccws?: { object: number; type: number; iUnknown: number }[];
  rcws?: { object: number; type: number; iUnknown: number }[];
  dependent?: { key: number; value: number }[];
  /** Post-GC generation ranges (also written, shifted, before the walk as pre-GC ranges). */
  ranges?: { generation: number; start: number; used: number }[];
}

export interface HeapTraceOptions {
  pointerSize?: 4 | 8;
  nodesPerEvent?: number;
  edgesPerEvent?: number;
  /** GC number of the dump GC. */
  gcNumber?: number;
  /** Write the BulkType events after GCEnd instead of before the walk. */
  typesAfterGc?: boolean;
  /** How many identical heap dumps to write one after another (for --select). */
  dumps?: number;
  /** An induced gen-2 GC without heap walk before the dump (as GC.Collect() would log). */
  inducedGcBefore?: boolean;
  /** Stop writing right after the first BulkNode event (a dump that never ends). */
  cutAfterNodes?: boolean;
  endMarker?: boolean;
}

/**
 * The metadata of every event a heap-walk trace carries (GC start/end, the bulk heap events,
 * module rundown), defined on `w`; the result maps each to its metadata id for `w.event`.
 */
export function defineHeapDumpEvents(w: NetTraceWriter) {
  return {
    start: w.defineEvent(CLR, 1, { version: 2 }),
    end: w.defineEvent(CLR, 2, { version: 1 }),
    type: w.defineEvent(CLR, 15),
    root: w.defineEvent(CLR, 16),
    dep: w.defineEvent(CLR, 17),
    node: w.defineEvent(CLR, 18),
    edge: w.defineEvent(CLR, 19),
    range: w.defineEvent(CLR, 23),
    ccw: w.defineEvent(CLR, 36),
    rcw: w.defineEvent(CLR, 37),
    statics: w.defineEvent(CLR, 38),
    moduleEnd: w.defineEvent(RUNDOWN, 154, { version: 2 }),
  };
}

export function writeHeapTrace(heap: SyntheticHeap, o: HeapTraceOptions = {}): Uint8Array {
  const P = o.pointerSize ?? 8;
  const w = new NetTraceWriter({ pointerSize: P, eventsPerBlock: 200 });
  const id = defineHeapDumpEvents(w);
  let ts = 10_000;
  const emit = (meta: number, payload: Uint8Array) => w.event(meta, payload, { timestamp: (ts += 10), threadId: 100 });
  const types = () => {
    for (let i = 0; i < heap.types.length; i += 50) emit(id.type, bulkType(heap.types.slice(i, i + 50)));
  };
  if (!o.typesAfterGc) types();
  let gc = o.gcNumber ?? 5;
  if (o.inducedGcBefore) {
    emit(id.start, gcStart(gc, 2, 1, 0));
    emit(id.end, gcEnd(gc, 2));
    gc++;
  }
  const nodesPer = o.nodesPerEvent ?? 100;
  const edgesPer = o.edgesPerEvent ?? 150;
  for (let d = 0; d < (o.dumps ?? 1); d++, gc++) {
    emit(id.start, gcStart(gc, 2, 1, 0));
    for (const r of heap.ranges ?? []) emit(id.range, generationRange(r.generation, r.start, Math.max(0, r.used - 8), r.used + 4096, P));
    if (heap.roots.length) emit(id.root, bulkRootEdge(0, heap.roots, P));
    if (heap.dependent?.length) emit(id.dep, bulkDependentHandles(0, heap.dependent, P));
    if (heap.rcws?.length) emit(id.rcw, bulkRcw(heap.rcws));
    let index = 0;
    for (let i = 0; i < heap.objects.length; i += nodesPer) {
      const chunk = heap.objects.slice(i, i + nodesPer).map((x) => ({ address: x.address, size: x.size, type: x.type, edges: x.refs.length }));
      emit(id.node, bulkNode(index++, chunk, P));
      if (o.cutAfterNodes) return w.finish({ endMarker: false });
    }
    const targets = heap.objects.flatMap((x) => x.refs);
    index = 0;
    for (let i = 0; i < targets.length; i += edgesPer) emit(id.edge, bulkEdge(index++, targets.slice(i, i + edgesPer), P));
    if (heap.statics?.length) emit(id.statics, bulkStaticVars(heap.statics));
    if (heap.ccws?.length) emit(id.ccw, bulkCcw(heap.ccws));
    for (const r of heap.ranges ?? []) emit(id.range, generationRange(r.generation, r.start, r.used, r.used + 4096, P));
    emit(id.end, gcEnd(gc, 2));
  }
  if (o.typesAfterGc) types();
  w.sequencePoint(ts + 1);
  for (const m of heap.modules) emit(id.moduleEnd, moduleEvent(m.id, m.path));
  return w.finish({ endMarker: o.endMarker ?? true });
}

/** The small heap most tests use; every number in the assertions below is derived from it by hand. */
export function sampleHeap(pointerSize: 4 | 8 = 8): SyntheticHeap {
  const MOD = 0x7ff0_0000_1000;
  const T_STRING = 0x7ffe_0000_0100;
  const T_DICT = 0x7ffe_0000_0200;
  const T_BYTES = 0x7ffe_0000_0300;
  const T_APP = 0x7ffe_0000_0400;
  const base = pointerSize === 8 ? 0x2000_0000_0000 : 0x0200_0000; // object addresses
  const A = base + 0x1000; // Dictionary
  const B = base + 0x1040; // String
  const C = base + 0x1080; // Byte[] 4120 bytes
  const D = base + 0x3000; // App.Node
  const E = base + 0x3100; // App.Node, only weakly held
  return {
    modules: [{ id: MOD, path: '/usr/share/dotnet/System.Private.CoreLib.dll' }],
    types: [
      { id: T_STRING, module: MOD, name: 'System.String' },
      { id: T_DICT, module: MOD, name: 'System.Collections.Generic.Dictionary`2[System.String,System.Object]' },
      { id: T_BYTES, module: MOD, name: 'System.Byte[]', flags: 8 },
      { id: T_APP, module: 0x7ff0_0000_2000, name: 'App.Node' },
    ],
    objects: [
      { address: A, size: 80, type: T_DICT, refs: [B, C, D] },
      { address: B, size: 30, type: T_STRING, refs: [] },
      { address: C, size: 4120, type: T_BYTES, refs: [] },
      { address: D, size: 24, type: T_APP, refs: [D, B] },
      { address: E, size: 24, type: T_APP, refs: [] },
    ],
    roots: [
      { address: A, kind: 0, flags: 0 },
      { address: 0, kind: 0, flags: 0 },
      { address: B, kind: 2, flags: 0 },
      { address: C, kind: 2, flags: 1 },
      { address: E, kind: 2, flags: 2 },
      { address: D, kind: 1, flags: 0 },
    ],
    statics: [
      { object: A, type: T_DICT, field: 's_dataStore' },
      { object: B, type: T_STRING, field: 's_name' },
    ],
    ranges: [
      { generation: 0, start: base + 0x3000, used: 0x1000 },
      { generation: 2, start: base, used: 0x3000 },
    ],
  };
}

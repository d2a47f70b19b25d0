import { FormatError } from '../../../../../shared/errors.js';
import { CLR_PROVIDER } from '../../../../../shared/formats/nettrace/clr-event-names.js';
import { GcEventId, isModuleEvent, readGcEnd, readGcStart, readGenerationRange, readModule } from '../../../../../shared/formats/nettrace/clr-gc-payloads.js';
import type { NetTraceEvent, NetTraceHeader } from '../../../../../shared/formats/nettrace/nettrace-event.js';
import { PayloadCursor } from '../../../../../shared/formats/nettrace/payload-cursor.js';
import { readNetTraceEvents } from '../../../../../shared/formats/nettrace/read-nettrace-events.js';
import { HeapGraphBuilder } from '../../../../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { NODE_PINNED, NODE_PSEUDO, NODE_WEAK_EDGES } from '../../../../../shared/graph/heap-graph.js';
import type { HeapSegment } from '../../../../../shared/graph/metadata.js';
import { emptyMetadata } from '../../../../../shared/graph/metadata.js';
import { ProblemList } from '../../../../../shared/graph/problems.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';

/**
 * A deliberately straightforward reading of nettrace-format.md Part C for tests: BigInt
 * addresses, a Map for `nodeFor`, one object per record, the builder fed in dotnet-gcdump's
 * order (CCWs, objects in queue order, pseudo-nodes). No batching, partitions or node-order
 * layout: it is the oracle the optimized assembler (HeapSnapshotAssembler) must equal exactly,
 * problems and metadata included. It mirrors readNetTraceSnapshot (same summary problems).
 */
export interface ReferenceOptions {
  select?: number;
  maxNodes?: number;
  weakRoots?: 'category' | 'drop';
  dependentHandles?: 'references' | 'roots';
}

interface Pn {
  name: string;
  node: number;
  flags: number;
  kids: Pn[];
  children: number[];
}

interface Dump {
  problems: ProblemList;
  nodeCount: number;
  byAddress: Map<bigint, number>;
  root: Pn;
  weak: bigint[];
  /** Dependent handles as references: key, value addresses, and their category. */
  dependent: [bigint, bigint][];
  dependentCategory: Pn | null;
  pinned: bigint[];
  rcw: Map<bigint, bigint>;
  objects: { address: bigint; size: number; typeId: bigint; edges: number }[];
  edgeTargets: bigint[];
  statics: { object: bigint; typeId: bigint; flags: number; field: string }[];
  ccws: { object: bigint; typeId: bigint; iUnknown: bigint }[];
  segments: HeapSegment[];
  nodeEvents: number;
  /** The assembler's memory bound: it stops reading objects once maxNodes strictly increasing addresses were read. */
  stopped: boolean;
  edgeEvents: number;
  edgesSeen: number;
  gcNumber: number;
  startTimestamp: number;
}

const u64 = (v: DataView, p: number) => BigInt(v.getUint32(p, true)) | (BigInt(v.getUint32(p + 4, true)) << 32n);
const ptr = (v: DataView, p: number, P: number) => (P === 8 ? u64(v, p) : BigInt(v.getUint32(p, true)));
const hexOf = (a: bigint) => a.toString(16);

function nodeFor(d: Dump, a: bigint): number {
  let n = d.byAddress.get(a);
  if (n === undefined) d.byAddress.set(a, (n = d.nodeCount++));
  return n;
}

function child(d: Dump, parent: Pn, name: string): Pn {
  let c = parent.kids.find((k) => k.name === name);
  if (!c) {
    c = { name, node: d.nodeCount++, flags: 0, kids: [], children: [] };
    parent.kids.push(c);
    parent.children.push(c.node);
  }
  return c;
}

function entries(d: Dump, e: NetTraceEvent, header: number, stride: number, countAt: number, what: string): number {
  if (e.payloadLength < header) {
    d.problems.add('malformed-record', `${what} event of ${e.payloadLength} bytes`);
    return 0;
  }
  const declared = e.view.getUint32(e.payloadOffset + countAt, true);
  const fit = Math.floor((e.payloadLength - header) / stride);
  if (declared > fit) {
    d.problems.add('malformed-record', `${what} declares ${declared} entries but its payload holds ${fit}`);
    return fit;
  }
  return declared;
}

export async function referenceHeapSnapshot(bytes: Uint8Array, opts: ReferenceOptions = {}): Promise<HeapGraph> {
  const select = opts.select ?? 0;
  const maxNodes = opts.maxNodes ?? 10_000_000;
  const keepWeak = (opts.weakRoots ?? 'category') === 'category';
  const dependentAsRoots = opts.dependentHandles === 'roots';
  let header: NetTraceHeader | null = null;
  let P = 8;
  let seenStart = false;
  let ignore = true;
  let gcId = -1;
  let found = 0;
  let cur: Dump | null = null;
  let done: Dump | null = null;
  const types: { typeId: bigint; moduleId: number; nameId: number; flags: number; name: string }[] = [];
  let typeEvents = 0;
  let malformedTypes = 0;
  const moduleNames = new Map<number, string>();

  const begin = (count: number, ts: number) => {
    gcId = count;
    ignore = false;
    seenStart = true;
    const root: Pn = { name: '[.NET Roots]', node: 0, flags: 0, kids: [], children: [] };
    cur = { problems: new ProblemList(), nodeCount: 1, byAddress: new Map(), root, weak: [], dependent: [], dependentCategory: null, pinned: [], rcw: new Map(), objects: [], edgeTargets: [], statics: [], ccws: [], segments: [], nodeEvents: 0, stopped: false, edgeEvents: 0, edgesSeen: 0, gcNumber: count, startTimestamp: ts };
  };
  const end = () => {
    ignore = true;
    const c = cur;
    cur = null;
    seenStart = false;
    if (!c || c.nodeEvents === 0) return;
    if (found++ === select) done = c;
  };
  const onEvent = (e: NetTraceEvent) => {
    const m = e.metadata;
    const v = e.view;
    const at = e.payloadOffset;
    if (m.provider !== CLR_PROVIDER) {
      if (isModuleEvent(e)) module(e);
      return;
    }
    if (m.eventId === GcEventId.GCStart) {
      const s = readGcStart(e);
      if (!seenStart && !done && s.depth >= 2 && s.type === 0 && s.reason === 1) begin(s.count, e.timestamp);
      return;
    }
    if (m.eventId === GcEventId.GCEnd) {
      if (!ignore && readGcEnd(e).count === gcId) end();
      return;
    }
    if (m.eventId === GcEventId.GenAwareBegin) {
      if (!seenStart && !done) begin(-2, e.timestamp);
      return;
    }
    if (m.eventId === GcEventId.GenAwareEnd) {
      if (!ignore) end();
      return;
    }
    if (m.eventId === GcEventId.BulkType) {
      typeEvents++;
      const c = new PayloadCursor(e.bytes, at, at + e.payloadLength);
      let count = 0;
      let i = 0;
      try {
        count = c.u32();
        c.skip(2);
        for (; i < count; i++) {
          const idLo = c.u32();
          const idHi = c.u32();
          const moduleId = c.u64();
          const nameId = c.u32();
          const flags = c.u32();
          c.skip(1);
          const name = c.utf16z();
          c.skip(8 * c.u32());
          types.push({ typeId: BigInt(idLo) | (BigInt(idHi) << 32n), moduleId, nameId, flags, name });
        }
      } catch (err) {
        if (!(err instanceof FormatError)) throw err;
        malformedTypes += Math.max(1, count - i);
      }
      return;
    }
    if (isModuleEvent(e)) {
      module(e);
      return;
    }
    const d: Dump | null = cur;
    if (ignore || !d) return;
    switch (m.eventId) {
      case GcEventId.BulkNode: {
        d.nodeEvents++;
        if (d.stopped) return;
        const n = entries(d, e, 10, P + 24, 4, 'GCBulkNode');
        for (let i = 0, p = at + 10; i < n; i++, p += P + 24) {
          const address = ptr(v, p, P);
          const size = u64(v, p + P);
          if (v.getUint32(p + P + 20, true) !== 0) d.problems.add('malformed-record', `object 0x${hexOf(address)} claims more than 2^32 references`);
          if (size > 0x7fffffffn) d.problems.add('size-overflow', `object 0x${hexOf(address)} has size ${size}; stored as 2147483647`);
          d.objects.push({ address, size: size > 0x7fffffffn ? 0x7fffffff : Number(size), typeId: u64(v, p + P + 8), edges: v.getUint32(p + P + 16, true) });
          const o = d.objects;
          if (o.length >= maxNodes && o.every((x, k) => k === 0 || x.address > o[k - 1].address)) {
            d.stopped = true;
            break;
          }
        }
        return;
      }
      case GcEventId.BulkEdge: {
        d.edgeEvents++;
        const n = entries(d, e, 10, P + 4, 4, 'GCBulkEdge');
        for (let i = 0, p = at + 10; i < n; i++, p += P + 4) d.edgeTargets.push(ptr(v, p, P));
        d.edgesSeen += n;
        return;
      }
      case GcEventId.BulkRootEdge: {
        const stride = 5 + 2 * P;
        const n = entries(d, e, 10, stride, 4, 'GCBulkRootEdge');
        child(d, d.root, '[static vars]');
        for (let i = 0, p = at + 10; i < n; i++, p += stride) {
          const address = ptr(v, p, P);
          const kind = v.getUint8(p + P);
          const flags = v.getUint32(p + P + 1, true);
          if (flags & 2) {
            if (keepWeak) d.weak.push(address);
            continue;
          }
          let parent = d.root;
          let name = '[local vars]';
          if (kind !== 0) {
            parent = child(d, d.root, '[other roots]');
            name = flags & 8 ? '[COM/WinRT Objects]' : kind === 1 ? '[finalizer Handles]' : kind === 2 ? (flags === 1 ? '[pinning Handles]' : '[strong Handles]') : '[other Handles]';
          }
          const category = child(d, parent, name);
          category.children.push(nodeFor(d, address));
          if (flags & 1) d.pinned.push(address);
        }
        return;
      }
      case GcEventId.BulkRootConditionalWeakTableElementEdge: {
        const n = entries(d, e, 10, 3 * P, 4, 'GCBulkRootConditionalWeakTableElementEdge');
        const dep = child(d, child(d, d.root, '[other roots]'), '[Dependent Handles]');
        d.dependentCategory = dep;
        for (let i = 0, p = at + 10; i < n; i++, p += 3 * P) {
          const key = ptr(v, p, P);
          if (key === 0n) continue;
          const value = nodeFor(d, ptr(v, p + P, P));
          if (dependentAsRoots) dep.children.push(value);
          else d.dependent.push([key, ptr(v, p + P, P)]);
        }
        return;
      }
      case GcEventId.BulkRootStaticVar: {
        const c = new PayloadCursor(e.bytes, at, at + e.payloadLength);
        const count = c.u32();
        c.skip(10);
        for (let i = 0; i < count; i++) {
          if (c.remaining < 28) {
            d.problems.add('malformed-record', `GCBulkRootStaticVar ends after ${i} of ${count} entries`);
            return;
          }
          c.skip(8);
          const object = BigInt(c.u32()) | (BigInt(c.u32()) << 32n);
          const typeId = BigInt(c.u32()) | (BigInt(c.u32()) << 32n);
          const flags = c.u32();
          d.statics.push({ object, typeId, flags, field: c.utf16z() });
        }
        return;
      }
      case GcEventId.BulkRootCCW: {
        const count = e.payloadLength >= 4 ? v.getUint32(at, true) : 0;
        const stride = e.payloadLength === 6 + 48 * count ? 48 : 44;
        const n = entries(d, e, 6, stride, 0, 'GCBulkRootCCW');
        for (let i = 0, p = at + 6; i < n; i++, p += stride) d.ccws.push({ object: u64(v, p + 8), typeId: u64(v, p + 16), iUnknown: u64(v, p + 24) });
        return;
      }
      case GcEventId.BulkRCW: {
        const n = entries(d, e, 6, 40, 0, 'GCBulkRCW');
        for (let i = 0, p = at + 6; i < n; i++, p += 40) d.rcw.set(u64(v, p), u64(v, p + 16));
        return;
      }
      case GcEventId.GenerationRange: {
        if (d.nodeEvents === 0) return;
        const r = readGenerationRange(e, P);
        if (!r || r.generation > 4) {
          d.problems.add('malformed-record', `GCGenerationRange with generation ${r?.generation ?? '?'}`);
          return;
        }
        const start = (BigInt(r.startHi) << 32n) | BigInt(r.startLo);
        const seg = { start, end: start + BigInt(r.usedLength), gen0End: 0n, gen1End: 0n, gen2End: 0n, gen3End: 0n, gen4End: 0n };
        seg[(['gen0End', 'gen1End', 'gen2End', 'gen3End', 'gen4End'] as const)[r.generation]] = seg.end;
        d.segments.push(seg);
        return;
      }
      default:
        return;
    }
  };
  const module = (e: NetTraceEvent) => {
    const m = readModule(e);
    if (!m || m.flags & 2) return;
    if (!moduleNames.has(m.moduleId)) moduleNames.set(m.moduleId, m.ilPath);
  };

  const summary = await readNetTraceEvents(
    new MemoryByteSource(bytes, 'reference.nettrace'),
    {
      onHeader: (h) => {
        header = h;
        P = h.pointerSize;
      },
      onEvent,
    },
    { sort: true, allowTruncated: true },
  );
  const d = done as Dump | null;
  if (!d) {
    if (cur && !ignore && (cur as Dump).nodeEvents > 0) throw new FormatError('format/truncated', 'truncated');
    throw new FormatError('format/no-heap-dump', 'no heap dump');
  }
  if (summary.truncated) {
    d.problems.add('truncated', `the trace ends inside ${summary.truncatedAt} (no end-of-stream marker); type and module names logged later are missing`);
  }
  if (summary.droppedEvents > 0) d.problems.add('other', `the runtime dropped ${summary.droppedEvents} events (buffers full): the heap graph may be incomplete`);
  if (malformedTypes > 0) d.problems.addMany('malformed-record', malformedTypes, `${malformedTypes} BulkType entries could not be decoded`);
  return build(d, { types, moduleNames, header, maxNodes, extra: { traceEvents: summary.eventCount, droppedEvents: summary.droppedEvents, heapDumpsInTrace: found, heapDumpIndex: select, bulkTypeEvents: typeEvents } });
}

interface BuildInput {
  types: { typeId: bigint; moduleId: number; nameId: number; flags: number; name: string }[];
  moduleNames: Map<number, string>;
  header: NetTraceHeader | null;
  maxNodes: number;
  extra: Record<string, string | number>;
}

function build(d: Dump, input: BuildInput): HeapGraph {
  const names = ['UNDEFINED'];
  const modules: (string | null)[] = [null];
  const sizes = [0];
  const interned = new Map<string, number>();
  const bucketByName = new Map<string, number>();
  const add = (name: string, module: string | null) => {
    modules.push(module);
    sizes.push(-1);
    return names.push(name) - 1;
  };
  const intern = (name: string, module: string | null) => {
    const key = module === null ? name : `${module}!${name}`;
    if (!interned.has(key)) interned.set(key, add(name, module));
    return interned.get(key)!;
  };
  const sized = (t: number, size: number) => {
    if (sizes[t] < 0) sizes[t] = size;
  };
  const moduleName = (id: number) => input.moduleNames.get(id) ?? `Module(0x${id.toString(16)})`;
  const suffix = (size: number) => ['', ' (Bytes > 1K)', ' (Bytes > 10K)', ' (Bytes > 100K)', ' (Bytes > 1M)', ' (Bytes > 10M)', ' (Bytes > 100M)'][[1000, 9999, 99_999, 999_999, 9_999_999, 99_999_999].filter((x) => size > x).length];
  // C4
  const typeOf = new Map<bigint, number>();
  for (const t of input.types) {
    let name = t.name || `${t.flags & 8 ? 'ArrayType' : 'Type'}(0x${t.nameId.toString(16)})`;
    if (t.flags & 0x10) name = `TypeID(0x${t.nameId.toString(16)})`;
    name = name.replace(/`\d+/g, '').replace(/\[/g, '<').replace(/\]/g, '>').replace(/<>/g, '[]');
    if (t.flags & 4) name = `[RCW ${name}]`;
    typeOf.set(t.typeId, intern(name, moduleName(t.moduleId)));
  }
  const typeIndexFor = (typeId: bigint, size: number) => {
    let t = typeOf.get(typeId);
    if (t === undefined) typeOf.set(typeId, (t = intern(`UNKNOWN 0x${hexOf(typeId)}`, null)));
    const s = suffix(size);
    if (!s) return t;
    const name = names[t] + s;
    if (!bucketByName.has(name)) bucketByName.set(name, intern(name, modules[t]));
    return bucketByName.get(name)!;
  };
  // C5
  const ccwCategory = child(d, d.root, '[COM/WinRT Objects]');
  const ccwRows: { node: number; type: number; child: number }[] = [];
  for (const w of d.ccws) {
    if (w.iUnknown === 0n) continue;
    const n = nodeFor(d, w.iUnknown);
    const tt = typeIndexFor(w.typeId, 200);
    const ct = intern(`[CCW 0x${hexOf(w.iUnknown)} for type ${names[tt]}]`, null);
    sized(ct, 200);
    ccwRows.push({ node: n, type: ct, child: nodeFor(d, w.object) });
    ccwCategory.children.push(n);
  }
  // C6
  const statics = child(d, d.root, '[static vars]');
  for (const s of d.statics) {
    const parent = s.flags & 1 ? child(d, d.root, '[thread static vars]') : statics;
    const t = typeOf.get(s.typeId);
    const tn = t !== undefined ? names[t] : `Type(0x${hexOf(s.typeId)})`;
    child(d, parent, `[static var ${tn}.${s.field}]`).children.push(nodeFor(d, s.object));
  }
  // C7
  const rows: { node: number; type: number; size: number; kids: number[] }[] = [];
  let cursor = 0;
  let missing = 0;
  const defined = new Set<bigint>();
  for (const o of d.objects) {
    const node = nodeFor(d, o.address);
    defined.add(o.address);
    let size = o.size;
    const type = typeIndexFor(o.typeId, size);
    const have = Math.min(o.edges, d.edgeTargets.length - cursor);
    missing += o.edges - have;
    const kids = d.edgeTargets.slice(cursor, cursor + have).map((a) => nodeFor(d, a));
    cursor += have;
    const com = d.rcw.get(o.address);
    if (com !== undefined) {
      kids.push(nodeFor(d, com));
      size += 1000;
    }
    rows.push({ node, type, size, kids });
    sized(type, size);
    if (d.nodeCount >= input.maxNodes) break;
  }
  const capped = rows.length < d.objects.length || d.nodeCount >= input.maxNodes;
  if (capped) d.problems.add('node-cap-reached', `the heap has more than ${input.maxNodes} nodes; like dotnet-gcdump, only the first ${input.maxNodes} are kept`);
  else if (cursor < d.edgesSeen) d.problems.add('malformed-record', `${d.edgesSeen - cursor} references were sent beyond the objects' edge counts (extra edge data)`);
  if (missing > 0) d.problems.add('malformed-record', `objects declare ${missing} more references than were sent (not enough edge data)`);
  // Dependent handles: a reference key → value appended to the key's (last) row; a value whose
  // key is not an object of the graph stays a root under [Dependent Handles].
  for (const [key, value] of d.dependent) {
    let row = -1;
    if (defined.has(key)) for (let i = 0; i < rows.length; i++) if (rows[i].node === d.byAddress.get(key)) row = i; // the last description wins
    if (row >= 0) rows[row].kids.push(d.byAddress.get(value)!);
    else d.dependentCategory!.children.push(d.byAddress.get(value)!);
  }
  if (d.weak.length > 0) {
    const weak = child(d, d.root, '[weak Handles]');
    weak.flags |= NODE_WEAK_EDGES;
    for (const a of d.weak) if (defined.has(a)) weak.children.push(d.byAddress.get(a)!);
  }
  // C8 (recursive: the trees here are tiny)
  const order: Pn[] = [];
  const walk = (p: Pn) => {
    order.push(p);
    p.kids.forEach(walk);
  };
  walk(d.root);
  const pnTypes = new Map<string, number>();
  for (const p of order) {
    if (!pnTypes.has(p.name)) pnTypes.set(p.name, add(p.name, null));
    sized(pnTypes.get(p.name)!, 0);
  }

  const b = new HeapGraphBuilder({ expectedNodes: d.nodeCount });
  b.setType(0, names[0], null, sizes[0]);
  for (let t = 1; t < names.length; t++) b.addType(names[t], modules[t], sizes[t]);
  b.createNodes(d.nodeCount);
  for (const [a, n] of d.byAddress) b.setAddressWords(n, Number(a & 0xffffffffn), Number(a >> 32n));
  for (const r of ccwRows) b.setNode(r.node, r.type, 200, [r.child]);
  for (const r of rows) b.setNode(r.node, r.type, r.size, r.kids);
  for (const p of order) {
    b.setNode(p.node, pnTypes.get(p.name)!, 0, p.children);
    b.addFlags(p.node, NODE_PSEUDO | p.flags);
  }
  for (const a of d.pinned) if (d.byAddress.has(a)) b.addFlags(d.byAddress.get(a)!, NODE_PINNED);
  b.setRoot(0);
  for (const pr of d.problems.entries) b.problems.add(pr.code, pr.message);
  const extraProblems = d.problems.total - d.problems.entries.length;
  if (extraProblems > 0) b.problems.addMany('other', extraProblems, `${extraProblems} more problems while collecting the heap dump`);
  const h = input.header;
  const meta = emptyMetadata('nettrace');
  meta.formatVersion = h ? (h.formatVersion === 3 ? 'NetPerf v3' : `NetTrace v${h.formatVersion}`) : 'NetTrace';
  meta.processId = h?.processId ?? 0;
  meta.pointerSize = h?.pointerSize ?? 0;
  meta.segments = d.segments.length > 0 ? d.segments : null;
  meta.extra = { ...input.extra, gcNumber: d.gcNumber, bulkNodeEvents: d.nodeEvents, bulkEdgeEvents: d.edgeEvents, objectsInDump: d.objects.length, referencesInDump: d.edgesSeen };
  if (capped) meta.extra.truncatedAtNodes = input.maxNodes;
  return b.finish(meta);
}

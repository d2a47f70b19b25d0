import { HeapGraphBuilder } from '../../graph/heap-graph-builder.js';
import type { HeapGraph } from '../../graph/heap-graph.js';
import { NODE_PINNED, NODE_PSEUDO, NODE_WEAK_EDGES, NONE } from '../../graph/heap-graph.js';
import { emptyMetadata } from '../../graph/metadata.js';
import type { CancellationToken } from '../../util/cancellation.js';
import type { HeapDumpCollection } from './heap-dump-collection.js';
import type { NetTraceHeader } from './nettrace-event.js';
import { BUCKET_SUFFIXES, cleanTypeName, hex, sizeBucket } from './type-names.js';

/** One BulkType entry (§B6), kept for the whole stream. */
export interface BulkTypeEntry {
  typeKey: number;
  moduleId: number;
  typeNameId: number;
  flags: number;
  name: string;
}

export interface GraphFromDumpInput {
  types: readonly BulkTypeEntry[];
  /** TypeID halves by type key, interleaved lo, hi (the assembler's type-id AddressMap keys). */
  typeIdKeys: Uint32Array;
  typeKeyCount: number;
  moduleNames: ReadonlyMap<number, string>;
  header: NetTraceHeader | null;
  maxNodes: number;
  token: CancellationToken;
  extra: Record<string, string | number>;
}

/**
 * Steps C4–C8 of nettrace-format.md: types, CCW roots, static roots, objects, pseudo-node types,
 * in dotnet-gcdump's order, so node and type indices equal what dotnet-gcdump would write.
 *
 * Pass 1 walks the queued records in that order, giving each address its node index on first
 * touch and creating types on demand (the pid → node map and the type of each object are written
 * back into the collection's own columns, no new per-object arrays). Pass 2 hands the finished
 * rows to HeapGraphBuilder. Cost: O(objects + references), one extra u32 column per object.
 */
export function buildGraphFromDump(c: HeapDumpCollection, input: GraphFromDumpInput): HeapGraph {
  const token = input.token;
  const types = new TypeTableBuilder(input.moduleNames);
  const pn = c.pn;

  // C4: every BulkType entry, in arrival order.
  const typeOf = new Int32Array(Math.max(1, input.typeKeyCount)).fill(-1);
  for (const t of input.types) {
    let name = t.name || ((t.flags & 0x8 ? 'ArrayType(0x' : 'Type(0x') + hex(t.typeNameId) + ')');
    if (t.flags & 0x10) name = `TypeID(0x${hex(t.typeNameId)})`; // native-image (deferred) type: no name to resolve here
    name = cleanTypeName(name);
    if (t.flags & 0x4) name = `[RCW ${name}]`;
    typeOf[t.typeKey] = types.intern(name, types.moduleName(t.moduleId));
  }
  const bucketCache = new Int32Array(Math.max(1, input.typeKeyCount) * 7).fill(-1);
  // typeIndexFor of §C4: unknown ids become "UNKNOWN 0x<TypeID>"; objects > 1000 bytes get a
  // size-bucket type, cached per (type key, bucket) so the name lookup happens once per pair.
  const typeIndexFor = (key: number, size: number): number => {
    let t = typeOf[key];
    if (t < 0) t = typeOf[key] = types.intern(`UNKNOWN 0x${hex(input.typeIdKeys[2 * key], input.typeIdKeys[2 * key + 1])}`, null);
    const b = sizeBucket(size);
    if (b === 0) return t;
    const slot = key * 7 + b;
    if (bucketCache[slot] < 0) bucketCache[slot] = types.bucket(t, BUCKET_SUFFIXES[b]);
    return bucketCache[slot];
  };

  // C5: CCW roots (the category always exists afterwards).
  const ccwCategory = pn.child(pn.root, '[COM/WinRT Objects]');
  const ccwRows: { node: number; type: number; child: number }[] = [];
  for (const w of c.ccws) {
    if (w.iUnknownPid < 0) continue;
    const n = c.touch(w.iUnknownPid);
    const tt = typeIndexFor(w.typeKey, 200);
    const ct = types.intern(`[CCW 0x${hex(w.iUnknownLo, w.iUnknownHi)} for type ${types.names[tt]}]`, null);
    types.sized(ct, 200);
    ccwRows.push({ node: n, type: ct, child: c.touch(w.objectPid) });
    pn.addNode(ccwCategory, n);
  }

  // C6: static variables, named "[static var <type of the referenced object>.<field>]".
  const statics = pn.child(pn.root, '[static vars]');
  for (const s of c.statics) {
    const parent = s.flags & 0x1 ? pn.child(pn.root, '[thread static vars]') : statics;
    const t = typeOf[s.typeKey];
    const tn = t >= 0 ? types.names[t] : `Type(0x${hex(s.typeIdLo, s.typeIdHi)})`;
    pn.addNode(pn.child(parent, `[static var ${tn}.${s.field}]`), c.touch(s.objectPid));
  }

  // C7 pass 1: node indices and types of objects, in queue order.
  const nodePid = c.nodePid.raw;
  const nodeSize = c.nodeSize.raw;
  const nodeType = c.nodeType.raw;
  const nodeEdges = c.nodeEdges.raw;
  const edges = c.edgeTarget.raw;
  const edgeTotal = c.edgeTarget.length;
  const objects = c.nodePid.length;
  const keys = c.addresses.keysByOrdinal();
  const rcwOf = c.rcw.size > 0 ? c.rcw : null;
  const rcwTarget = rcwOf ? new Map<number, number>() : null; // object row → node index of its COM object
  const defined = new Uint8Array(c.finalOf.length);
  let cursor = 0;
  let used = 0;
  let missingEdges = 0;
  for (let k = 0; k < objects; k++) {
    if ((k & 0xffff) === 0) token.throwIfCancelled();
    const pid = nodePid[k];
    c.touch(pid);
    defined[pid] = 1;
    let size = nodeSize[k];
    const key = nodeType[k];
    const want = nodeEdges[k];
    const have = Math.min(want, edgeTotal - cursor);
    if (have < want) {
      missingEdges += want - have;
      nodeEdges[k] = have;
    }
    const t = typeIndexFor(key, size); // before the RCW surcharge, as dotnet-gcdump does
    for (let j = 0; j < have; j++) edges[cursor + j] = c.touch(edges[cursor + j]);
    cursor += have;
    if (rcwOf) {
      const com = rcwOf.get(pid);
      if (com !== undefined) {
        rcwTarget!.set(k, c.touch(com));
        size += 1000;
        nodeSize[k] = size;
      }
    }
    nodeType[k] = t;
    types.sized(t, size);
    used = k + 1;
    if (c.nextNode >= input.maxNodes) break;
  }
  const capped = c.capped || used < objects || c.nextNode >= input.maxNodes;
  if (capped) c.problems.add('node-cap-reached', `the heap has more than ${input.maxNodes} nodes; like dotnet-gcdump, only the first ${input.maxNodes} are kept`);
  else if (cursor < c.edgesSeen) c.problems.add('malformed-record', `${c.edgesSeen - cursor} references were sent beyond the objects' edge counts (extra edge data)`);
  if (missingEdges > 0) c.problems.add('malformed-record', `objects declare ${missingEdges} more references than were sent (not enough edge data)`);

  // Weak handles (ours, not dotnet-gcdump's): created last, only for objects of the dump.
  let weakCategory = -1;
  if (c.weakPids.length > 0) {
    weakCategory = pn.child(pn.root, '[weak Handles]');
    pn.flags[weakCategory] |= NODE_WEAK_EDGES;
    for (const pid of c.weakPids) if (defined[pid]) pn.addNode(weakCategory, c.finalOf.raw[pid]);
  }

  // C8: pseudo-node types in pre-order; a name seen twice reuses its type.
  const order = pn.preOrder();
  const pnTypes = new Map<string, number>();
  const pnType: number[] = [];
  for (const p of order) {
    let t = pnTypes.get(pn.names[p]);
    if (t === undefined) {
      t = types.add(pn.names[p], null);
      pnTypes.set(pn.names[p], t);
    }
    pnType[p] = t;
    types.sized(t, 0);
  }

  // Pass 2: the builder.
  const nodeCount = c.nextNode;
  const b = new HeapGraphBuilder({ expectedNodes: nodeCount, expectedEdges: cursor + nodeCount });
  types.copyInto(b);
  b.createNodes(nodeCount);
  const finalOf = c.finalOf.raw;
  for (let pid = 0; pid < c.finalOf.length; pid++) {
    const n = finalOf[pid];
    if (n !== NONE) b.setAddressWords(n, keys[2 * pid], keys[2 * pid + 1]);
  }
  for (const r of ccwRows) b.setNode(r.node, r.type, 200, [r.child]);
  cursor = 0;
  for (let k = 0; k < used; k++) {
    if ((k & 0xffff) === 0) token.throwIfCancelled();
    const n = finalOf[nodePid[k]];
    const ne = nodeEdges[k];
    const com = rcwTarget?.get(k);
    if (com === undefined) b.setNode(n, nodeType[k], nodeSize[k], edges, cursor, ne);
    else {
      const kids = Array.from(edges.subarray(cursor, cursor + ne));
      kids.push(com);
      b.setNode(n, nodeType[k], nodeSize[k], kids);
    }
    cursor += ne;
  }
  for (const p of order) {
    const n = pn.nodeIndex[p];
    b.setNode(n, pnType[p], 0, pn.children[p]);
    b.addFlags(n, NODE_PSEUDO | pn.flags[p]);
  }
  for (const pid of c.pinnedPids) if (finalOf[pid] !== NONE) b.addFlags(finalOf[pid], NODE_PINNED);
  b.setRoot(pn.nodeIndex[pn.root]);
  for (const pr of c.problems.entries) b.problems.add(pr.code, pr.message);
  const extraProblems = c.problems.total - c.problems.entries.length;
  if (extraProblems > 0) b.problems.addMany('other', extraProblems, `${extraProblems} more problems while collecting the heap dump`);

  const h = input.header;
  const meta = emptyMetadata('nettrace');
  meta.formatVersion = h ? (h.formatVersion === 3 ? 'NetPerf v3' : `NetTrace v${h.formatVersion}`) : 'NetTrace';
  meta.processId = h?.processId ?? 0;
  meta.pointerSize = h?.pointerSize ?? 0;
  meta.timeCollected = h ? wallClock(h, c.startTimestamp) : null;
  meta.segments = c.segments.length > 0 ? c.segments : null;
  meta.extra = {
    ...input.extra,
    gcNumber: c.gcNumber,
    bulkNodeEvents: c.nodeEvents,
    bulkEdgeEvents: c.edgeEvents,
    objectsInDump: objects,
    referencesInDump: c.edgesSeen,
  };
  if (capped) meta.extra.truncatedAtNodes = input.maxNodes;
  return b.finish(meta, token);
}

/** UTC wall-clock time of `timestamp` (no zone suffix, like every SnapshotMetadata time). */
function wallClock(h: NetTraceHeader, timestamp: number): string | null {
  const base = Date.parse(h.syncTimeUtc);
  if (Number.isNaN(base)) return null;
  const d = new Date(base + ((timestamp - h.syncTimeQpc) * 1000) / h.qpcFrequency);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().replace('Z', '');
}

/** dotnet-gcdump's type table: interned real types, bucket types by name, PN types appended. */
class TypeTableBuilder {
  readonly names: string[] = ['UNDEFINED'];
  readonly modules: (string | null)[] = [null];
  readonly sizes: number[] = [0];
  private readonly byKey = new Map<string, number>();
  private readonly byBucketName = new Map<string, number>();
  private readonly unknownModules = new Map<number, string>();

  constructor(private readonly moduleNames: ReadonlyMap<number, string>) {}

  moduleName(moduleId: number): string {
    return this.moduleNames.get(moduleId) ?? this.unknownModule(moduleId);
  }

  add(name: string, module: string | null): number {
    this.names.push(name);
    this.modules.push(module);
    this.sizes.push(-1);
    return this.names.length - 1;
  }

  intern(name: string, module: string | null): number {
    const key = module === null ? name : `${module}!${name}`;
    let t = this.byKey.get(key);
    if (t === undefined) {
      t = this.add(name, module);
      this.byKey.set(key, t);
    }
    return t;
  }

  /** The "(Bytes > 1K)"-style type for `t`; looked up by name only, as in PerfView. */
  bucket(t: number, suffix: string): number {
    const name = this.names[t] + suffix;
    let b = this.byBucketName.get(name);
    if (b === undefined) {
      b = this.intern(name, this.modules[t]);
      this.byBucketName.set(name, b);
    }
    return b;
  }

  /** A type's stored size is the size of its first node (§C1). */
  sized(t: number, size: number): void {
    if (this.sizes[t] < 0) this.sizes[t] = size;
  }

  copyInto(b: HeapGraphBuilder): void {
    b.setType(0, this.names[0], null, this.sizes[0]);
    for (let t = 1; t < this.names.length; t++) b.addType(this.names[t], this.modules[t], this.sizes[t]);
  }

  private unknownModule(moduleId: number): string {
    let s = this.unknownModules.get(moduleId);
    if (!s) {
      s = `Module(0x${moduleId.toString(16)})`;
      this.unknownModules.set(moduleId, s);
    }
    return s;
  }
}

import { BugError } from '../../errors.js';
import { graphFromColumns } from '../../graph/graph-from-columns.js';
import { HeapGraphBuilder } from '../../graph/heap-graph-builder.js';
import type { HeapGraph } from '../../graph/heap-graph.js';
import { NODE_PINNED, NODE_WEAK_EDGES, NONE } from '../../graph/heap-graph.js';
import { emptyMetadata } from '../../graph/metadata.js';
import { ProblemList } from '../../graph/problems.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { FirstTouchNumbering, keySpaceFrom } from './first-touch-numbering.js';
import { columnsFromRows, feedInQueueOrder } from './graph-feed.js';
import type { HeapDumpCollection } from './heap-dump-collection.js';
import type { NetTraceHeader } from './nettrace-event.js';
import { countEarly, countTouches, findRcwRows, forEachRow, placeEarly, placeTouches, rowAtPosition, sequenceLength } from './touch-sequence.js';
import { TypeTableBuilder } from './type-table-builder.js';
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
 * Objects and references are numbered in one batch (FirstTouchNumbering over the §C7 touch
 * sequence) instead of one hash lookup per reference; a sequential pass then gives each object
 * its type in queue order (types are created on demand, so their order matters too), and the
 * graph's columns are written directly (graph-feed.ts), or, when a node is described twice, a
 * HeapGraphBuilder is fed the objects in queue order, as dotnet-gcdump's setNode calls are.
 * Memory beyond the collection: 4 bytes per touch (node index at each position) and 12 per
 * distinct address; the collection's address chunks are freed while they are read.
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

  // C7: node indices of objects and references in one go (FirstTouchNumbering, §C7 order).
  const rows = c.rowAddress.length;
  const edgeTotal = c.edgeTargets.length;
  if (c.consumed) throw new BugError('a heap dump collection can be turned into a graph only once (its rows are freed while building)');
  c.consumed = true;
  const earlyCount = c.addresses.size;
  const earlyKeys = c.addresses.keysByOrdinal();
  const earlyNode = c.finalOf.raw;
  const rcw = findRcwRows(c, earlyKeys, token);
  const T = sequenceLength(c, rcw);
  const space = rows > 0 ? keySpaceFrom(c.minLo, c.minHi, c.lowBits, c.maxLo, c.maxHi) : null;
  const num = new FirstTouchNumbering(T, earlyCount, space, rows + earlyCount + 1024);
  countEarly(num, earlyKeys);
  countTouches(c, rcw, earlyKeys, num, token);
  // Room for columnsFromRows' records in the items' memory (16 bytes per node, 4 per row).
  const slots = num.allocate(4 * (c.nextNode + rows + 64) + rows);
  placeEarly(num, earlyKeys, slots);
  placeTouches(c, rcw, earlyKeys, num, slots, token);
  num.resolve((e) => earlyNode[e] !== NONE, token);
  // The loop stops after the object during which the node count reaches maxNodes.
  const base = c.nextNode;
  let used = rows;
  let limit = T;
  if (rows > 0 && base + num.firstTouches >= input.maxNodes) {
    const need = input.maxNodes - base;
    ({ used, end: limit } = rowAtPosition(c, rcw, need <= 0 ? 0 : num.positionOfFirstTouch(need - 1)));
  }
  const c7End = base + num.firstTouchesBefore(limit);
  c.nextNode = c7End;
  let nodeOf: Uint32Array | null = num.number(base, (e) => earlyNode[e], token);
  let touched = num.translate(limit, token); // node index at each position
  const earlyId = num.earlyId;

  // Types, sizes (RCW surcharge) and reference counts of the objects kept, in queue order.
  const typeSizes = types.sizes;
  let cursor = 0;
  let missingEdges = 0;
  {
    let k = 0;
    let rcwAt = 0;
    const store = c.rowInfo;
    for (let ch = 0; ch < store.chunks.length && k < used; ch++) {
      token.throwIfCancelled();
      const info = store.chunks[ch];
      for (let r = 0, n = store.counts[ch]; r < n && k < used; r++, k++) {
        let size = info[3 * r];
        const want = info[3 * r + 2];
        const have = Math.min(want, edgeTotal - cursor);
        if (have < want) {
          missingEdges += want - have;
          info[3 * r + 2] = have;
        }
        cursor += have;
        // typeIndexFor's cached cases inlined (one call per object cost ~10 ns); before the RCW
        // surcharge, as dotnet-gcdump does
        const key = info[3 * r + 1];
        let t = size <= 1000 ? typeOf[key] : bucketCache[key * 7 + sizeBucket(size)];
        if (t < 0) t = typeIndexFor(key, size);
        if (rcw && rcwAt < rcw.rows.length && rcw.rows[rcwAt] === k) {
          rcwAt++;
          size += 1000;
          info[3 * r] = size;
        }
        info[3 * r + 1] = t;
        if (typeSizes[t] < 0) typeSizes[t] = size; // types.sized, inlined
      }
    }
  }
  const capped = c.capped || used < rows || c.nextNode >= input.maxNodes;
  if (capped) c.problems.add('node-cap-reached', `the heap has more than ${input.maxNodes} nodes; like dotnet-gcdump, only the first ${input.maxNodes} are kept`);
  else if (cursor < c.edgesSeen) c.problems.add('malformed-record', `${c.edgesSeen - cursor} references were sent beyond the objects' edge counts (extra edge data)`);
  if (missingEdges > 0) c.problems.add('malformed-record', `objects declare ${missingEdges} more references than were sent (not enough edge data)`);

  // Weak handles (ours, not dotnet-gcdump's): created last, only for objects of the dump.
  if (c.weakPids.length > 0) {
    const weakCategory = pn.child(pn.root, '[weak Handles]');
    pn.flags[weakCategory] |= NODE_WEAK_EDGES;
    const defined = new Uint8Array(c7End);
    forEachRow(c, rcw, used, (_k, p) => {
      defined[touched[p]] = 1;
    });
    for (const pid of c.weakPids) {
      const n = nodeOf![earlyId[pid]];
      if (n < c7End && defined[n]) pn.addNode(weakCategory, n);
    }
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

  // The columns, or the builder fed in the order dotnet-gcdump describes nodes (CCWs, objects, pseudo-nodes).
  const nodeCount = c.nextNode;
  const rowsInput = { c, rcw, used, c7End, touched, ccwRows, token, spare: num.spare() };
  const cols = columnsFromRows(rowsInput, nodeCount, { pn, order, pnType });
  if (cols) touched = rowsInput.touched = NO_TOUCHES; // its data is in cols.edgeTarget now
  // Exact sizes: the builder's columns and edge pool are then its final arrays (no trimming copy).
  let edgeCount = cursor + ccwRows.length;
  if (rcw) for (const k of rcw.rows) if (k < used) edgeCount++;
  for (const p of order) edgeCount += pn.children[p].length;
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
    objectsInDump: rows,
    referencesInDump: c.edgesSeen,
  };
  if (capped) meta.extra.truncatedAtNodes = input.maxNodes;
  const copyProblems = (into: ProblemList) => {
    for (const pr of c.problems.entries) into.add(pr.code, pr.message);
    const extraProblems = c.problems.total - c.problems.entries.length;
    if (extraProblems > 0) into.addMany('other', extraProblems, `${extraProblems} more problems while collecting the heap dump`);
  };

  if (cols) {
    // The graph's columns directly, without the builder (what it would store, and its problems in its order).
    const words = new Uint32Array(2 * nodeCount);
    num.addressesByNode(c7End, words);
    nodeOf = null; // 8 bytes per distinct address
    num.releaseIds();
    for (const pid of c.pinnedPids) if (earlyNode[pid] !== NONE) cols.nodeFlags[earlyNode[pid]] |= NODE_PINNED;
    const problems = new ProblemList();
    for (const d of cols.dangling) problems.add('dangling-reference', `node ${d.node} references node ${d.child}, but only ${nodeCount} nodes exist`);
    copyProblems(problems);
    const { nodeType, selfSize, nodeFlags, firstEdge, edgeTarget } = cols;
    const { names, modules, sizes } = types;
    return graphFromColumns(
      { nodeType, selfSize, nodeFlags, firstEdge, edgeTarget, addressWords: words, generation: null, rootIndex: pn.nodeIndex[pn.root], types: { names, modules, sizes }, metadata: meta, problems },
      token,
    );
  }
  // Addresses in node order, one copy into the builder.
  const addressWords = new Uint32Array(2 * c7End);
  num.addressesByNode(c7End, addressWords);
  nodeOf = null; // 8 bytes per distinct address, freed before the builder allocates its columns
  num.releaseIds();
  const b = new HeapGraphBuilder({ expectedNodes: nodeCount, expectedEdges: edgeCount });
  types.copyInto(b);
  b.createNodes(nodeCount);
  b.setAddressBytes(0, new Uint8Array(addressWords.buffer, addressWords.byteOffset, 8 * c7End));
  feedInQueueOrder(b, rowsInput, { pn, order, pnType });
  for (const pid of c.pinnedPids) if (earlyNode[pid] !== NONE) b.addFlags(earlyNode[pid], NODE_PINNED);
  b.setRoot(pn.nodeIndex[pn.root]);
  copyProblems(b.problems);
  return b.finish(meta, token);
}

const NO_TOUCHES = new Uint32Array(0);

/** UTC wall-clock time of `timestamp` (no zone suffix, like every SnapshotMetadata time). */
function wallClock(h: NetTraceHeader, timestamp: number): string | null {
  const base = Date.parse(h.syncTimeUtc);
  if (Number.isNaN(base)) return null;
  const d = new Date(base + ((timestamp - h.syncTimeQpc) * 1000) / h.qpcFrequency);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().replace('Z', '');
}

import { BugError, FormatError } from '../../errors.js';
import { graphFromColumns } from '../../graph/graph-from-columns.js';
import type { HeapGraph } from '../../graph/heap-graph.js';
import { NODE_PINNED, NODE_PSEUDO, NODE_UNDEFINED, NODE_WEAK_EDGES } from '../../graph/heap-graph.js';
import { emptyMetadata } from '../../graph/metadata.js';
import { ProblemList } from '../../graph/problems.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { DefinedAddressIndex } from './defined-address-index.js';
import { insertDependentReferences, resolveDependentPairs, type DependentReferences } from './dependent-edges.js';
import type { HeapDumpCollection } from './heap-dump-collection.js';
import type { NetTraceHeader } from './nettrace-event.js';
import { duplicate, layOutGathered, layOutInOrder } from './object-columns.js';
import { capInTail, capRows, type CapWatch, tailFrom, tailPositions, watchTailRows } from './node-cap.js';
import { findRcwRows, keepRows, MARKED, resolveReferences } from './object-references.js';
import { BLOCK } from './packed-references.js';
import { RowField } from './row-columns.js';
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
 * with dotnet-gcdump's semantics: the same nodes, references, types (created in the same order),
 * roots and node cap. Only the node numbering differs, by design:
 *
 * - 0 … first − 1: the pseudo-nodes (`[.NET Roots]` = 0 and the `[...]` categories), in
 *   creation order;
 * - then one node per distinct object address (BulkNode rows), in ascending address order; an
 *   address described twice is one node, the last description wins ('duplicate-node');
 * - then every other address that is a node (referenced but never described: null, stray
 *   pointers; and CCW IUnknowns, described by their CCW row), in ascending address order.
 *
 * dotnet-gcdump numbers by first touch, which costs a random write per reference to compute and
 * then scatters every row to a random place; address order is what the CLR walks (each segment
 * or region in address order), so rows land in runs and a reference is one bitmap lookup
 * (DefinedAddressIndex). Every count, size, path and retained size is the same up to this node
 * permutation, and .gcdump readers accept any node order.
 * Memory beyond the collection: for a walk in address order the collection's size, type and
 * EdgeCount columns and its packed references become the graph's nodeType, selfSize, firstEdge
 * and edgeTarget in place, so only the address column (first the resolving scratch), the flags
 * and the index (~2 bits per 8 bytes of heap) are new. For any other walk: the graph's own
 * columns, the index, and the references in arrival order (4 bytes each) plus 16 bytes per row
 * while gathering.
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

  // C5: CCW roots (the category always exists afterwards). A CCW's node is its IUnknown's address.
  const ccwCategory = pn.child(pn.root, '[COM/WinRT Objects]');
  const ccwRows: { pid: number; type: number; child: number }[] = [];
  for (const w of c.ccws) {
    if (w.iUnknownPid < 0) continue;
    pn.addNode(ccwCategory, c.touch(w.iUnknownPid));
    const tt = typeIndexFor(w.typeKey, 200);
    const ct = types.intern(`[CCW 0x${hex(w.iUnknownLo, w.iUnknownHi)} for type ${types.names[tt]}]`, null);
    types.sized(ct, 200);
    c.touch(w.objectPid);
    ccwRows.push({ pid: w.iUnknownPid, type: ct, child: w.objectPid });
  }

  // C6: static variables, named "[static var <type of the referenced object>.<field>]".
  const statics = pn.child(pn.root, '[static vars]');
  for (const s of c.statics) {
    const parent = s.flags & 0x1 ? pn.child(pn.root, '[thread static vars]') : statics;
    const t = typeOf[s.typeKey];
    const tn = t >= 0 ? types.names[t] : `Type(0x${hex(s.typeIdLo, s.typeIdHi)})`;
    pn.addNode(pn.child(parent, `[static var ${tn}.${s.field}]`), c.touch(s.objectPid));
  }
  const pnBeforeObjects = c.nextNode;
  // Weak handles (ours, not dotnet-gcdump's): the last pseudo-node; children filled in below.
  const weakCategory = c.weakPids.length > 0 ? pn.child(pn.root, '[weak Handles]') : -1;
  if (weakCategory >= 0) pn.flags[weakCategory] |= NODE_WEAK_EDGES;
  const first = c.nextNode; // pseudo-nodes are 0 … first − 1; objects follow in address order

  // C7: the objects' references as node indices, and the node cap.
  const rows = c.rowAddress.length;
  if (c.consumed) throw new BugError('a heap dump collection can be turned into a graph only once (its rows are freed while building)');
  c.consumed = true;
  if (rows + c.addresses.size + c.edgeTargets.length >= MARKED - first) throw new FormatError('format/too-large', `a heap walk of ${rows} objects and ${c.edgeTargets.length} references is more than this reader handles (2^31)`);
  const bounds = { min: [c.minLo, c.minHi] as [number, number], max: [c.maxLo, c.maxHi] as [number, number] };
  let index = DefinedAddressIndex.build(c.rowAddress, rows, c.lowBits, bounds.min, bounds.max, token);
  let pidKeys = c.addresses.keysByOrdinal();
  const rcw = findRcwRows(c, pidKeys, token);
  const inOrder = c.increasing;
  const isDefined = (pid: number, below: number) => {
    if (2 * pid >= pidKeys.length) return -1; // interned while resolving: not an object's address
    const r = index.rank(pidKeys[2 * pid], pidKeys[2 * pid + 1]);
    return r >= 0 && r < below ? r : -1;
  };
  let weakAtMost = 0;
  if (weakCategory >= 0) for (const pid of c.weakPids) if (isDefined(pid, rows) >= 0) weakAtMost++;
  // Dependent handles: one key → value reference each (room at the end of the edge column), or
  // a root under [Dependent Handles] when the key is not an object (room with the pseudo-nodes').
  const dependents = c.dependentPairs.length / 2;
  let pnEdges = weakAtMost + dependents;
  for (let p = 0; p < pn.count; p++) pnEdges += pn.children[p].length;
  const objectEdges = Math.min(c.edgesDeclared, c.edgeTargets.length) + (rcw ? rcw.rows.length : 0);
  // In address order the packed references become the edge column: resolved in place, after the
  // pseudo-nodes' edges, with room for the RCW and CCW targets. Otherwise they are resolved in
  // arrival order into an array beside them (the cap may have to resolve them again), and
  // gathered by node below.
  const rcwCount = rcw ? rcw.rows.length : 0;
  const packed = c.edgeTargets.column(inOrder ? pnEdges : 0, inOrder ? rcwCount + ccwRows.length + dependents : 0);
  const refs = inOrder ? packed : new Uint32Array(objectEdges);
  const refsAt = inOrder ? pnEdges : 0;
  const earlyTouched = c.touched.raw.slice(0, c.addresses.size); // touched before §C7
  // A cut is certain when the distinct objects alone reach the cap: then resolving records what
  // capInTail needs (else it scans the references if the cap is reached after all).
  const certain = inOrder && pnBeforeObjects + index.count >= input.maxNodes;
  const tail = certain ? watchTailRows(c, first, rows) : undefined;
  // Resolving needs 8 bytes of scratch per reference of a batch; sized as the address column
  // (2 words per node, when no reference misses), the same array becomes that column afterwards,
  // whose pages are then the process's already: a first touch costs ~3–5 µs per 4 KB page on the
  // 2-core VM (20K pages, 60–200 ms, at 10M objects).
  const reserve = 2 * (first + rows + c.addresses.size);
  const scratch = inOrder && index.dense && reserve >= 2 * BLOCK ? new Uint32Array(reserve) : undefined;
  const resolveInput = { c, rcw, index, first, rows, pidKeys, src: packed, srcAt: inOrder ? pnEdges : 0, dest: refs, at: refsAt, token, tail, scratch };
  let res = resolveReferences(resolveInput);
  // The cap, when dotnet-gcdump's node count (pseudo-nodes before §C7 and every touched address) reaches it.
  let nodesSeen = pnBeforeObjects + index.count;
  for (let pid = 0, touched = c.touched.raw; pid < c.addresses.size; pid++) if (touched[pid] && isDefined(pid, rows) < 0) nodesSeen++;
  let used = rows;
  let tailRefs: Uint32Array | null = null;
  if (nodesSeen >= input.maxNodes && rows > 0 && inOrder) {
    tailRefs = res.tail ?? tailPositions(refs, refsAt, res.written, tailFrom(first, rows), token);
    used = capInTail(c, rcw, refs, refsAt, tailRefs, first, rows, nodesSeen - input.maxNodes, earlyTouched, index, pidKeys, token);
    if (used < 0) tailRefs = null;
  }
  if (nodesSeen >= input.maxNodes && rows > 0 && (!inOrder || used < 0)) {
    const watch: CapWatch = { maxNodes: input.maxNodes, count: pnBeforeObjects, seenRank: new Int32Array((index.count >>> 5) + 1), seenPid: new Uint8Array(c.addresses.size) };
    for (let pid = 0; pid < earlyTouched.length; pid++) {
      if (!earlyTouched[pid]) continue;
      watch.count++;
      const r = isDefined(pid, rows);
      if (r >= 0) watch.seenRank[r >>> 5] |= 1 << (r & 31);
      else watch.seenPid[pid] = 1;
    }
    used = capRows(c, rcw, refs, refsAt, first, watch, inOrder ? null : index, token);
  }
  const kept = keepRows(c, used, token);
  let markedAt: number[] | null = null; // positions (from refsAt) of the MARKED targets, when known
  let defined = index.count;
  if (used < rows) {
    // The cap cut the walk: objects after row `used` are not part of the graph.
    // Only the kept rows' references make addresses nodes now.
    for (let pid = 0, touched = c.touched.raw; pid < c.addresses.size; pid++) touched[pid] = pid < earlyTouched.length ? earlyTouched[pid] : 0;
    if (inOrder) {
      // Rows are ranks here: those kept keep their rank; references to later rows become addresses without an object.
      defined = used;
      res.written = kept.taken + (rcw ? rcw.rows.filter((k) => k < used).length : 0);
      markedAt = unresolveBeyond(c, refs, refsAt, refsAt + res.written, first, used, tailRefs, token);
      res.marked = markedAt.length;
    } else {
      index = DefinedAddressIndex.build(c.rowAddress, used, c.lowBits, bounds.min, bounds.max, token);
      res = resolveReferences({ ...resolveInput, index, rows: used });
      defined = index.count;
    }
  }
  c.edgeTargets.clear();
  const capped = c.capped || used < rows || nodesSeen >= input.maxNodes;
  if (capped) c.problems.add('node-cap-reached', `the heap has more than ${input.maxNodes} nodes; like dotnet-gcdump, only the first ${input.maxNodes} are kept`);
  else if (kept.taken < c.edgesSeen) c.problems.add('malformed-record', `${c.edgesSeen - kept.taken} references were sent beyond the objects' edge counts (extra edge data)`);
  if (kept.missing > 0) c.problems.add('malformed-record', `objects declare ${kept.missing} more references than were sent (not enough edge data)`);

  // Addresses that are nodes without an object (null, stray references, CCW IUnknowns) follow
  // the objects, in ascending address order.
  pidKeys = c.addresses.keysByOrdinal();
  const nodeOfPid = new Int32Array(c.addresses.size).fill(-1);
  const others: number[] = [];
  const touched = c.touched.raw;
  for (let pid = 0; pid < nodeOfPid.length; pid++) {
    if (!touched[pid]) continue;
    const r = isDefined(pid, defined);
    if (r >= 0) nodeOfPid[pid] = first + r;
    else others.push(pid);
  }
  others.sort((a, b) => pidKeys[2 * a + 1] - pidKeys[2 * b + 1] || pidKeys[2 * a] - pidKeys[2 * b]);
  for (let i = 0; i < others.length; i++) nodeOfPid[others[i]] = first + defined + i;
  const nodeCount = first + defined + others.length;
  if (weakCategory >= 0) {
    for (const pid of c.weakPids) {
      const r = isDefined(pid, defined);
      if (r >= 0) pn.addNode(weakCategory, first + r);
    }
  }
  let dependentRefs: DependentReferences | null = null;
  if (dependents > 0) {
    dependentRefs = resolveDependentPairs(c.dependentPairs, (pid) => (isDefined(pid, defined) >= 0 ? first + isDefined(pid, defined) : -1), (pid) => nodeOfPid[pid]);
    for (const v of dependentRefs.orphans) pn.addNode(c.dependentCategory, v);
  }
  for (let p = 0; p < pn.count; p++) {
    const kids = pn.children[p];
    for (let i = 0; i < kids.length; i++) if (kids[i] < 0) kids[i] = nodeOfPid[-1 - kids[i]];
  }

  // The columns. Duplicate descriptions are reported in HeapGraphBuilder's order: CCWs first, then objects.
  const problems = new ProblemList();
  const ccwOf = new Map<number, number>(); // node → its last CCW row (few)
  for (let i = 0; i < ccwRows.length; i++) {
    const n = nodeOfPid[ccwRows[i].pid];
    if (ccwOf.has(n)) problems.add('duplicate-node', duplicate(n));
    ccwOf.set(n, i);
  }
  // In address order the rows' columns become the graph's (layOutInOrder fills them in place;
  // the pseudo-nodes' entries in front are zero, the other addresses' are written below).
  const nodeType = inOrder ? c.rows.column(RowField.Type, first, nodeCount) : new Uint32Array(nodeCount);
  const selfSize = inOrder ? c.rows.column(RowField.Size, first, nodeCount) : new Uint32Array(nodeCount);
  const firstEdge = inOrder ? c.rows.column(RowField.Edges, first, nodeCount + 1) : new Uint32Array(nodeCount + 1);
  const nodeFlags = new Uint8Array(nodeCount);
  // The scratch when it fits with little to spare (its surplus stays with the graph); pseudo-nodes have no address.
  const reuse = scratch !== undefined && 2 * nodeCount <= scratch.length && scratch.length - 2 * nodeCount <= scratch.length / 64;
  const addressWords = reuse ? scratch.subarray(0, 2 * nodeCount).fill(0, 0, 2 * first) : new Uint32Array(2 * nodeCount);
  let e = 0;
  const pnEdgeTarget = inOrder ? refs : new Uint32Array(pnEdges);
  for (let p = 0; p < pn.count; p++) {
    nodeFlags[p] = NODE_PSEUDO | pn.flags[p];
    firstEdge[p] = e;
    for (const kid of pn.children[p]) pnEdgeTarget[e++] = kid;
  }
  const columns = { c, rcw, used, first, nodeType, selfSize, firstEdge, addressWords, edgeAt: e, problems, token };
  const lookup = { typeOf, bucketCache, typeIndexFor, sizes: types.sizes };
  const ccwDescribed = new Set(ccwOf.keys());
  let edgeTarget: Uint32Array;
  if (inOrder) {
    if (e < pnEdges) refs.copyWithin(e, pnEdges, pnEdges + res.written); // the cap dropped weak roots, or dependent handles are references
    if (markedAt) for (const q of markedAt) refs[e + q] = nodeOfPid[refs[e + q] - MARKED];
    else if (res.marked > 0) markedToNodes(refs, e, e + res.written, nodeOfPid, token);
    e = layOutInOrder({ ...columns, types: lookup, ccwDescribed });
    edgeTarget = refs;
  } else {
    let ccwEdges = 0;
    for (const n of ccwOf.keys()) if (n >= first + defined) ccwEdges++;
    edgeTarget = new Uint32Array(e + res.written + ccwEdges + dependents);
    edgeTarget.set(pnEdgeTarget.subarray(0, e));
    e = layOutGathered({ ...columns, types: lookup, ccwDescribed }, index, refs, nodeOfPid, edgeTarget);
  }
  // Addresses without an object: a CCW's description, else UNDEFINED.
  for (let i = 0; i < others.length; i++) {
    const n = first + defined + i;
    const pid = others[i];
    addressWords[2 * n] = pidKeys[2 * pid];
    addressWords[2 * n + 1] = pidKeys[2 * pid + 1];
    firstEdge[n] = e;
    const w = ccwOf.get(n);
    if (w === undefined) {
      nodeFlags[n] = NODE_UNDEFINED; // counted, with the sizes, by graphFromColumns
      nodeType[n] = 0; // (a row column may hold a dropped row's values here)
      selfSize[n] = 0;
    } else {
      nodeType[n] = ccwRows[w].type;
      selfSize[n] = 200;
      edgeTarget[e++] = nodeOfPid[ccwRows[w].child];
    }
  }
  firstEdge[nodeCount] = e;
  if (dependentRefs) e = insertDependentReferences(firstEdge, edgeTarget, nodeCount, e, dependentRefs, token);
  // C8: pseudo-node types in pre-order, after the objects' types; a name seen twice reuses its type.
  const order = pn.preOrder();
  const pnTypes = new Map<string, number>();
  for (const p of order) {
    let t = pnTypes.get(pn.names[p]);
    if (t === undefined) {
      t = types.add(pn.names[p], null);
      pnTypes.set(pn.names[p], t);
    }
    types.sized(t, 0);
    nodeType[pn.nodeIndex[p]] = t;
  }

  // Exact length: the cap may have dropped references or dependent handles' room (a view when little was dropped, else a copy).
  if (edgeTarget.length !== e) edgeTarget = edgeTarget.length - e > e / 8 ? edgeTarget.slice(0, e) : edgeTarget.subarray(0, e);
  for (const pid of c.pinnedPids) if (nodeOfPid[pid] >= 0) nodeFlags[nodeOfPid[pid]] |= NODE_PINNED;

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
  for (const pr of c.problems.entries) problems.add(pr.code, pr.message);
  const extraProblems = c.problems.total - c.problems.entries.length;
  if (extraProblems > 0) problems.addMany('other', extraProblems, `${extraProblems} more problems while collecting the heap dump`);
  const { names, modules, sizes } = types;
  return graphFromColumns(
    { nodeType, selfSize, nodeFlags, firstEdge, edgeTarget, addressWords, generation: null, rootIndex: pn.root, types: { names, modules, sizes }, metadata: meta, problems },
    token,
  );
}

/** MARKED | pid targets in refs[from … to) → their node indices. */
function markedToNodes(refs: Uint32Array, from: number, to: number, nodeOfPid: Int32Array, token: CancellationToken): void {
  for (let q = from; q < to; q++) {
    if ((q & 0xfffff) === 0) token.throwIfCancelled();
    if (refs[q] >= MARKED) refs[q] = nodeOfPid[refs[q] - MARKED];
  }
}

/**
 * After the cap cut rows that arrived in address order (row k is node first + k): targets at or
 * above node first + used were objects of dropped rows; they become addresses without an object
 * (MARKED | pid), and every MARKED target of the kept rows is touched again. Returns the
 * positions (from `from`) of the MARKED targets.
 */
function unresolveBeyond(c: HeapDumpCollection, refs: Uint32Array, from: number, to: number, first: number, used: number, candidates: Uint32Array | null, token: CancellationToken): number[] {
  const store = c.rowAddress;
  const starts = [0];
  for (const n of store.counts) starts.push(starts[starts.length - 1] + n);
  const marked: number[] = [];
  // Every position, or only the candidates (ascending positions from `from`) when known.
  const list = candidates;
  const n = list ? list.length : to - from;
  for (let i = 0; i < n; i++) {
    const q = list ? from + list[i] : from + i;
    if (q >= to) break;
    if ((i & 0xfffff) === 0) token.throwIfCancelled();
    const v = refs[q];
    if (v >= MARKED) {
      c.touch(v - MARKED);
      marked.push(q - from);
    }
    if (v >= MARKED || v < first + used) continue;
    const row = v - first;
    let ch = 0;
    while (starts[ch + 1] <= row) ch++;
    const a = store.chunks[ch];
    const r = row - starts[ch];
    const pid = c.pid(a[2 * r], a[2 * r + 1]);
    c.touch(pid);
    refs[q] = (MARKED | pid) >>> 0;
    marked.push(q - from);
  }
  return marked;
}

/** UTC wall-clock time of `timestamp` (no zone suffix, like every SnapshotMetadata time). */
function wallClock(h: NetTraceHeader, timestamp: number): string | null {
  const base = Date.parse(h.syncTimeUtc);
  if (Number.isNaN(base)) return null;
  const d = new Date(base + ((timestamp - h.syncTimeQpc) * 1000) / h.qpcFrequency);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().replace('Z', '');
}

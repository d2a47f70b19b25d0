import { BugError, FormatError } from '../errors.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import { GrowableUint32Array, GrowableUint8Array } from '../util/growable-array.js';
import { newUint32Array } from '../util/typed-arrays.js';
import { countSegments, inPlaceLimit, orderByCopy, orderInPlace } from './edge-pool-order.js';
import { graphFromBuilderColumns } from './graph-from-columns.js';
import { checkGraphSize, MAX_GRAPH_EDGES } from './graph-limits.js';
import type { HeapGraph } from './heap-graph.js';
import { GEN_UNKNOWN, NODE_UNDEFINED, NONE } from './heap-graph.js';
import type { SnapshotMetadata } from './metadata.js';
import { ProblemList } from './problems.js';

/**
 * Builds a HeapGraph from any reader (gcdump, nettrace events, CF heap logs, tests).
 *
 * Nodes are created first (`createNode`/`createNodes`, each starts UNDEFINED) and described later
 * with `setNode`, in any order, the way PerfView's MutableGraph works. Edges are appended to one
 * growable pool; when nodes were described in ordinal order (the common case) that pool already
 * is the CSR edge array and `finish()` hands it out (a view when its unused tail is at most as
 * long as the used part, EDGE_POOL_MAX_SLACK, else a trimmed copy), otherwise `finish()` puts it
 * into node order (edge-pool-order.ts: in place when the nodes fall into few runs, else by a copy).
 *
 * Data problems (an edge to a node that does not exist, an unknown type, a node never described)
 * are collected into the problem list, never thrown: bad input is normal input.
 *
 * Build-time memory: the final columns plus the pool's doubling slack; pass
 * `expectedNodes`/`expectedEdges` when known to avoid the slack. While nodes come in ordinal order
 * the per-node pool start column is the CSR offsets themselves (it becomes the graph's firstEdge,
 * no count column, no second offsets array); the first out-of-order description costs one pass to
 * derive a count column (4 bytes per node) and `finish()` then builds the offsets over the start
 * column and orders the pool.
 *
 * `sharedMemory` (a host that hands the graph to other threads, ReadOptions.sharedMemory): every
 * column is born in a SharedArrayBuffer and `finish()` hands out views of it, so neither the
 * trim of the edge pool nor the host's shareGraph copies the graph (without it, 4 bytes per
 * reference for the trim and the whole graph again for the share, both resident at once with
 * the builder's scratch). A pool hint larger than the final count leaves a never-written tail:
 * address space, not memory.
 */
/**
 * The most unused pool capacity, relative to the references stored, that the graph keeps as a
 * view instead of trimming the pool by a copy. The tail was never written (the pool is filled
 * from the front; a grown pool got only the used part copied), so it costs address space, not
 * memory, while the copy costs the whole column once more at the end of the parse, with the
 * reader's scratch still resident: at 100M objects the .gcdump hint (blob bytes / 3) left 14%
 * unused, and that copy (10 B/node) was the peak of `heapscope report`'s low-memory mode. A tail
 * longer than the references themselves (a hint far off, a pool that doubled early) is still trimmed.
 */
const EDGE_POOL_MAX_SLACK = 1;

export class HeapGraphBuilder {
  readonly problems = new ProblemList();
  private readonly typeNames: string[] = [];
  private readonly typeModules: (string | null)[] = [];
  private readonly typeSizes: number[] = [];

  private readonly nodeType: GrowableUint32Array;
  private readonly selfSize: GrowableUint32Array;
  private readonly nodeFlags: GrowableUint8Array;
  private readonly generation: GrowableUint8Array;
  private readonly addressWords: GrowableUint32Array; // lo, hi per node
  /** Per node: where its references start in the pool; nodeCount + 1 entries in order (the CSR offsets). */
  private readonly edgeStart: GrowableUint32Array;
  /** Per node reference counts, only once the order broke (in order they are start differences). */
  private edgeCount: GrowableUint32Array | null = null;
  private readonly edges: GrowableUint32Array;

  private count = 0;
  private rootIndex = NONE;
  /** True while every setNode so far described node (last + 1): the pool is then already CSR. */
  private inOrder = true; // false from breakOrder() on, which creates edgeCount
  private lastSet = -1;
  private generationsSet = false;
  /** edgeRoom's Int32 view of the edge pool (rebuilt when the pool grows). */
  private poolView: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private poolOf: Uint32Array | null = null;

  private readonly sharedMemory: boolean;

  constructor(hint: { expectedNodes?: number; expectedEdges?: number; sharedMemory?: boolean } = {}) {
    const n = Math.max(16, hint.expectedNodes ?? 1024);
    const e = Math.max(16, hint.expectedEdges ?? n * 2);
    const shared = (this.sharedMemory = hint.sharedMemory === true);
    this.nodeType = new GrowableUint32Array(n, shared);
    this.selfSize = new GrowableUint32Array(n, shared);
    this.nodeFlags = new GrowableUint8Array(n, shared);
    this.generation = new GrowableUint8Array(n, shared);
    this.addressWords = new GrowableUint32Array(2 * n, shared);
    this.edgeStart = new GrowableUint32Array(n + 1, shared); // + 1: finish() hands it out as firstEdge
    this.edges = new GrowableUint32Array(e, shared);
    this.addType('UNDEFINED', null, 0);
  }

  get nodeCount(): number {
    return this.count;
  }

  get typeCount(): number {
    return this.typeNames.length;
  }

  /** Append a type; returns its index. Type 0 is always the implicit "UNDEFINED". */
  addType(name: string, module: string | null = null, size = -1): number {
    this.typeNames.push(name);
    this.typeModules.push(module);
    this.typeSizes.push(size);
    return this.typeNames.length - 1;
  }

  /** Replace type `index` (readers that must reproduce a file's type table exactly). */
  setType(index: number, name: string, module: string | null, size: number): void {
    this.typeNames[index] = name;
    this.typeModules[index] = module;
    this.typeSizes[index] = size;
  }

  typeName(index: number): string {
    return this.typeNames[index];
  }

  /** A new, not yet described node. */
  createNode(): number {
    return this.createNodes(1);
  }

  /** `n` new undescribed nodes; returns the first ordinal. */
  createNodes(n: number): number {
    const first = this.count;
    const end = first + n;
    checkGraphSize(end, this.edges.length); // before the columns grow (graph-limits.ts)
    this.nodeType.set(end - 1, 0);
    this.selfSize.set(end - 1, 0);
    this.generation.set(end - 1, 0);
    this.addressWords.set(2 * end - 1, 0);
    this.edgeStart.set(end - 1, 0);
    this.edgeCount?.set(end - 1, 0);
    this.nodeFlags.set(end - 1, 0);
    this.nodeFlags.raw.fill(NODE_UNDEFINED, first, end);
    this.generation.raw.fill(GEN_UNKNOWN, first, end);
    this.count = end;
    return first;
  }

  /**
   * Describe `node`: its type, size and the references `children[start .. start + n)`.
   *
   * A reference to a node ≥ nodeCount is dropped and reported ('dangling-reference'); a type
   * index out of range becomes UNDEFINED and is reported ('unknown-type').
   */
  setNode(node: number, type: number, size: number, children: ArrayLike<number>, start = 0, n = children.length - start): void {
    if (node < 0 || node >= this.count) {
      this.problems.add('dangling-reference', `setNode on node ${node}, but only ${this.count} nodes exist`);
      return;
    }
    if (type < 0 || type >= this.typeNames.length) {
      this.problems.add('unknown-type', `node ${node} has type index ${type}, but only ${this.typeNames.length} types exist`);
      type = 0;
    }
    if (size < 0 || size > 0xffffffff || !Number.isFinite(size)) {
      this.problems.add('size-overflow', `node ${node} has size ${size}; stored as 0`);
      size = 0;
    }
    const flags = this.nodeFlags.raw;
    if ((flags[node] & NODE_UNDEFINED) === 0) {
      this.problems.add('duplicate-node', `node ${node} was described twice; the last description wins`);
      this.breakOrder();
    }
    if (node !== this.lastSet + 1) this.breakOrder();
    this.lastSet = node;
    flags[node] &= ~NODE_UNDEFINED;
    this.nodeType.raw[node] = type;
    this.selfSize.raw[node] = size;

    const edges = this.edges;
    const at = edges.length;
    if (at + n > MAX_GRAPH_EDGES) checkGraphSize(this.count, at + n); // the edge pool is the Uint32 CSR column
    edges.reserve(n);
    const pool = edges.raw;
    const limit = this.count;
    let kept = 0;
    for (let i = 0; i < n; i++) {
      const c = children[start + i];
      if (c >= 0 && c < limit) pool[at + kept++] = c;
      else this.problems.add('dangling-reference', `node ${node} references node ${c}, but only ${limit} nodes exist`);
    }
    edges.length = at + kept;
    this.edgeStart.raw[node] = at;
    if (this.edgeCount) this.edgeCount.raw[node] = kept;
  }

  /**
   * Room for `n` references decoded straight into the edge pool, from `edgePoolLength` on, for
   * `setNodeFromPool`: a reader then writes each reference once instead of into a buffer that
   * setNode copies. The view is Int32 so a wrapped negative reference reads back as setNode's
   * Int32 callers gave it (problem texts stay the same); it is valid until the pool next grows.
   */
  edgeRoom(n: number): Int32Array<ArrayBufferLike> {
    const edges = this.edges;
    if (edges.length + n > MAX_GRAPH_EDGES) checkGraphSize(this.count, edges.length + n);
    edges.reserve(n);
    const raw = edges.raw;
    if (this.poolOf !== raw) {
      this.poolOf = raw;
      this.poolView = new Int32Array(raw.buffer, raw.byteOffset, raw.length);
    }
    return this.poolView;
  }

  get edgePoolLength(): number {
    return this.edges.length;
  }

  /**
   * setNode(node, type, size, pool, edgePoolLength, n) for references written by `edgeRoom`'s
   * caller: the same columns, pool and problems. `inRange` (the caller saw every reference in
   * 0 … nodeCount − 1) together with a valid node, type and size skips the per-reference copy.
   */
  setNodeFromPool(node: number, type: number, size: number, n: number, inRange: boolean): void {
    const flags = this.nodeFlags.raw;
    if (!inRange || node < 0 || node >= this.count || type < 0 || type >= this.typeNames.length || !(size >= 0 && size <= 0xffffffff) || (flags[node] & NODE_UNDEFINED) === 0) {
      this.setNode(node, type, size, this.edgeRoom(n), this.edges.length, n);
      return;
    }
    if (node !== this.lastSet + 1) this.breakOrder();
    this.lastSet = node;
    flags[node] &= ~NODE_UNDEFINED;
    this.nodeType.raw[node] = type;
    this.selfSize.raw[node] = size;
    const at = this.edges.length;
    this.edges.length = at + n;
    this.edgeStart.raw[node] = at;
    if (this.edgeCount) this.edgeCount.raw[node] = n;
  }

  /**
   * setNode for nodes first … first + type.length − 1, in order, with `children` holding their
   * references one node after the other: the same columns, pool and state as those setNode calls
   * when the caller has checked what setNode would report (every type < typeCount, size ≥ 0,
   * child < nodeCount, each node still undescribed). A reader that decoded records on another
   * thread (formats/gcdump/blob-split.ts) hands them over with copies, not a call per node.
   */
  setCheckedNodes(first: number, type: Int32Array, size: Int32Array, count: Uint32Array, children: Uint32Array): void {
    const k = type.length;
    if (k === 0) return;
    if (first !== this.lastSet + 1) this.breakOrder();
    this.lastSet = first + k - 1;
    // valid types and sizes are non-negative: their Int32 bits are the Uint32 values
    this.nodeType.raw.set(new Uint32Array(type.buffer, type.byteOffset, k), first);
    this.selfSize.raw.set(new Uint32Array(size.buffer, size.byteOffset, k), first);
    const flags = this.nodeFlags.raw;
    for (let i = first; i < first + k; i++) flags[i] &= ~NODE_UNDEFINED;
    const at = this.appendReferences(children);
    const start = this.edgeStart.raw;
    let s = at;
    for (let i = 0; i < k; i++) {
      start[first + i] = s;
      s += count[i];
    }
    if (this.edgeCount) this.edgeCount.raw.set(count.subarray(0, k), first);
  }

  /**
   * The node columns another thread may fill (a .gcdump blob decoded on two threads,
   * formats/gcdump/blob-split.ts): whole SharedArrayBuffer views of the type, size and start
   * columns, indexed by node. That thread writes the type, size and reference count (in the start
   * slot) of the nodes it describes, none of them described here; commitDirectNodes (records in
   * node order) or commitDirectVisits (any order) then takes them in. Null when the columns are not
   * shared (nothing can write them from elsewhere). Valid until createNodes adds nodes.
   */
  directColumns(): { nodeType: Uint32Array; selfSize: Uint32Array; counts: Uint32Array } | null {
    if (!this.sharedMemory) return null;
    const n = this.count;
    return { nodeType: this.nodeType.raw.subarray(0, n), selfSize: this.selfSize.raw.subarray(0, n), counts: this.edgeStart.raw.subarray(0, n) };
  }

  /**
   * Describe nodes first … nodeCount − 1, in order, from what directColumns' writer left: a node
   * with `described[node]` ≠ 0 has its type, size and reference count there (the caller checked
   * what setNode would report, as for setCheckedNodes) and its references in `children`, one node
   * after the other; the others become undescribed nodes without references, as
   * setNode(node, 0, 0, []) plus NODE_UNDEFINED would leave them. The same columns, pool and state
   * as those calls, with one pass over the nodes and one copy of the references.
   */
  commitDirectNodes(first: number, described: Uint32Array, children: Uint32Array, token: CancellationToken = NEVER_CANCELLED): void {
    const n = this.count;
    if (first >= n) return;
    if (first !== this.lastSet + 1) this.breakOrder();
    this.lastSet = n - 1;
    const at = this.appendReferences(children);
    const start = this.edgeStart.raw;
    const type = this.nodeType.raw;
    const size = this.selfSize.raw;
    const flags = this.nodeFlags.raw;
    const cnt = this.edgeCount?.raw ?? null;
    let s = at;
    for (let i = first; i < n; i++) {
      if ((i & 0xffff) === 0) token.throwIfCancelled();
      let c = 0;
      if (described[i] !== 0) {
        c = start[i];
        flags[i] &= ~NODE_UNDEFINED;
      } else {
        type[i] = 0;
        size[i] = 0;
        flags[i] |= NODE_UNDEFINED;
      }
      start[i] = s;
      if (cnt !== null) cnt[i] = c;
      s += c;
    }
    if (s !== this.edges.length) throw new BugError('commitDirectNodes: the reference counts do not add up to the references given', { counted: s - at, given: children.length });
  }

  /**
   * commitDirectNodes for records in any node order: `nodes` are the nodes directColumns' writer
   * described, in the order their references follow each other in `children` (each had no
   * description yet, and the caller checked what setNode would report). The same columns, pool
   * and state as setNode on each of them in that order.
   */
  commitDirectVisits(nodes: Uint32Array, children: Uint32Array, token: CancellationToken = NEVER_CANCELLED): void {
    const k = nodes.length;
    if (k === 0) return;
    let inSequence = nodes[0] === this.lastSet + 1;
    for (let j = 1; inSequence && j < k; j++) inSequence = nodes[j] === nodes[0] + j;
    if (!inSequence) this.breakOrder();
    this.lastSet = nodes[k - 1];
    const at = this.appendReferences(children);
    const start = this.edgeStart.raw;
    const flags = this.nodeFlags.raw;
    const cnt = this.edgeCount?.raw ?? null;
    let s = at;
    for (let j = 0; j < k; j++) {
      if ((j & 0xffff) === 0) token.throwIfCancelled();
      const node = nodes[j];
      const c = start[node];
      flags[node] &= ~NODE_UNDEFINED;
      start[node] = s;
      if (cnt !== null) cnt[node] = c;
      s += c;
    }
    if (s !== this.edges.length) throw new BugError('commitDirectVisits: the reference counts do not add up to the references given', { counted: s - at, given: children.length });
  }

  /** `children` appended to the edge pool in one copy; returns where they start. */
  private appendReferences(children: Uint32Array): number {
    const edges = this.edges;
    const at = edges.length;
    if (at + children.length > MAX_GRAPH_EDGES) checkGraphSize(this.count, at + children.length);
    edges.reserve(children.length);
    edges.raw.set(children, at);
    edges.length = at + children.length;
    return at;
  }

  /**
   * Leave in-order mode: derive the count column the in-order build did without (each described
   * node's count is the next start minus its own; the last one ends at the pool's length; nodes
   * not yet described have none). Called before the out-of-order node's own entries are written.
   */
  private breakOrder(): void {
    if (!this.inOrder) return;
    this.inOrder = false;
    const n = this.count;
    const counts = new GrowableUint32Array(n);
    if (n > 0) counts.set(n - 1, 0);
    const cnt = counts.raw;
    const start = this.edgeStart.raw;
    const last = this.lastSet;
    for (let i = 0; i < last; i++) cnt[i] = start[i + 1] - start[i];
    if (last >= 0) cnt[last] = this.edges.length - start[last];
    this.edgeCount = counts;
  }

  /** Set the 64-bit address from its two 32-bit halves. */
  setAddressWords(node: number, lo: number, hi: number): void {
    const w = this.addressWords.raw;
    w[2 * node] = lo >>> 0;
    w[2 * node + 1] = hi >>> 0;
  }

  /** Set the address from a number (exact below 2^53). */
  setAddress(node: number, address: number): void {
    this.setAddressWords(node, address % 4294967296, Math.floor(address / 4294967296));
  }

  /** Copy `count` little-endian u64 addresses for nodes [firstNode, firstNode + count) straight from file bytes. */
  setAddressBytes(firstNode: number, bytes: Uint8Array): void {
    const w = this.addressWords.raw;
    new Uint8Array(w.buffer, w.byteOffset + firstNode * 8, bytes.length).set(bytes);
  }

  /**
   * The address column's bytes for nodes [firstNode, firstNode + count), as a view a reader may
   * fill in place with little-endian u64s (what setAddressBytes copies).
   */
  addressBytes(firstNode: number, count: number): Uint8Array {
    const w = this.addressWords.raw;
    return new Uint8Array(w.buffer, w.byteOffset + firstNode * 8, count * 8);
  }

  addFlags(node: number, flags: number): void {
    this.nodeFlags.raw[node] |= flags;
  }

  /** Producers that know each object's generation (EventPipe ranges, CF logs) set it directly. */
  setGeneration(node: number, gen: number): void {
    this.generation.raw[node] = gen;
    this.generationsSet = true;
  }

  setRoot(node: number): void {
    this.rootIndex = node;
  }

  /**
   * Validate and freeze. Generations come from `metadata.segments` unless the producer set them.
   *
   * Throws FormatError only when no graph can be made at all (no nodes, no root); every other
   * defect is already in `problems`.
   */
  finish(metadata: SnapshotMetadata, token: CancellationToken = NEVER_CANCELLED): HeapGraph {
    const n = this.count;
    if (n === 0) throw new FormatError('format/corrupt', 'the snapshot contains no objects');
    if (this.rootIndex === NONE || this.rootIndex >= n) {
      throw new FormatError('format/corrupt', `the snapshot has no valid root node (root index ${this.rootIndex}, ${n} nodes)`);
    }
    const { firstEdge, edgeTarget } = this.buildCsr(token);
    // every reference and type was range-checked as it was stored (or vouched for by the caller)
    return graphFromBuilderColumns(
      {
        nodeType: this.nodeType.finish(),
        selfSize: this.selfSize.finish(),
        firstEdge,
        edgeTarget,
        addressWords: this.addressWords.finish(),
        nodeFlags: this.nodeFlags.finish(),
        generation: this.generationsSet ? this.generation.finish() : null, // else from metadata.segments
        // every node of it is still GEN_UNKNOWN (createNodes): filled from the segments in place
        ...(this.generationsSet ? {} : { unknownGenerations: this.generation.finishUsed() }),
        rootIndex: this.rootIndex,
        types: { names: this.typeNames, modules: this.typeModules, sizes: this.typeSizes },
        metadata,
        problems: this.problems,
      },
      token,
    );
  }

  private buildCsr(token: CancellationToken): { firstEdge: Uint32Array; edgeTarget: Uint32Array } {
    const n = this.count;
    if (this.edgeCount === null) {
      // In order: the start column is the CSR offsets; nodes after the last described have no
      // references, so they (and the end entry n) start at the pool's end.
      const end = this.edges.length;
      this.edgeStart.set(n, end);
      this.edgeStart.raw.fill(end, this.lastSet + 1, n + 1);
      return { firstEdge: this.edgeStart.finishUsed(), edgeTarget: this.edges.finishUsed(EDGE_POOL_MAX_SLACK) };
    }
    const cnt = this.edgeCount.raw;
    const limit = inPlaceLimit(n);
    const segments = countSegments(this.edgeStart.raw, cnt, n, limit + 1);
    if (segments <= limit) {
      this.edgeStart.set(n, 0); // room for the end offset
      const sum = orderInPlace(this.edges.raw, this.edgeStart.raw, cnt, n, segments, token);
      this.edgeCount = null;
      this.edges.length = sum; // a duplicate's older references are dropped
      return { firstEdge: this.edgeStart.finishUsed(), edgeTarget: this.edges.finishUsed(EDGE_POOL_MAX_SLACK) };
    }
    const firstEdge = newUint32Array(n + 1, this.sharedMemory);
    const edgeTarget = orderByCopy(this.edges.raw, this.edgeStart.raw, cnt, n, firstEdge, (length) => newUint32Array(length, this.sharedMemory), token);
    return { firstEdge, edgeTarget };
  }
}

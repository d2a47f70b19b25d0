import type { GrowingMemoryCheck } from '../../graph/memory-estimate.js';
import type { HeapSegment } from '../../graph/metadata.js';
import { ProblemList } from '../../graph/problems.js';
import { GrowableUint8Array } from '../../util/growable-array.js';
import { namesCutMessage } from '../name-cap.js';
import { AddressMap } from './address-map.js';
import type { NetTraceEvent } from './nettrace-event.js';
import { PayloadCursor } from './payload-cursor.js';
import { PseudoNodeTree } from './pseudo-node-tree.js';
import { BLOCK, edgePartition, PackedReferences } from './packed-references.js';
import { RecordChunks } from './record-chunks.js';
import { FRONT, RowColumns } from './row-columns.js';

/**
 * The events of one heap dump, gathered while the stream arrives (nettrace-format.md §C2).
 *
 * Root events are applied at once, as dotnet-gcdump does: they create pseudo-nodes (which take
 * node indices 0, 1, … in creation order). The few addresses they name (roots, dependent
 * handles, statics, CCWs, RCWs) get a provisional id ("pid", via AddressMap); a pseudo-node's
 * child list holds `childOfPid(pid)` (a negative number) until the objects are numbered, and
 * `touched[pid]` says the address is a node of the graph (dotnet-gcdump's nodeFor was called).
 *
 * Objects and references are the bulk (10M objects, 25M references in a big heap) and are only
 * appended here, raw, in arrival order: no lookup per address while the stream arrives. They are
 * numbered once at the end, by address (buildGraphFromDump). Memory: 20 bytes per object
 * (address in chunks, RecordChunks; size, type key and reference count in columns, RowColumns)
 * and 4 per reference (PackedReferences); for a walk in address order the columns and the
 * references become the graph's own.
 */
export interface StaticRoot {
  objectPid: number;
  typeKey: number;
  typeIdLo: number;
  typeIdHi: number;
  flags: number;
  field: string;
}

export interface CcwRoot {
  iUnknownLo: number;
  iUnknownHi: number;
  iUnknownPid: number;
  objectPid: number;
  typeKey: number;
}

export class HeapDumpCollection {
  readonly problems = new ProblemList();
  /** Pseudo-nodes created so far (the next one's node index; the root PN took 0). */
  nextNode = 0;
  readonly pn: PseudoNodeTree;
  /** Root-side addresses only (not objects' or references' addresses). */
  readonly addresses = new AddressMap(1024);
  /** Per pid: 1 when its address is a node (touched, in dotnet-gcdump's terms). */
  readonly touched = new GrowableUint8Array(1024);
  /** One row per collected BulkNode entry: address lo, hi. */
  readonly rowAddress = new RecordChunks(2);
  /** Per row: size, type key, EdgeCount, each a contiguous column (they become the graph's own for a walk in address order). */
  readonly rows: RowColumns;
  /**
   * Edge targets of the BulkEdge entries, concatenated in arrival order, packed one word each;
   * resolved in place into the graph's edge column. Per block, the targets per address partition
   * are counted here, in the loop that copies them anyway, so that resolving the references needs
   * no counting pass of its own (reference-batches.ts).
   */
  readonly edgeTargets: PackedReferences;
  /** The 4 GiB window of the last packed target (its high word, its window bits). */
  private lastWindowHi = -1;
  private lastWindowBits = 0;
  /** Σ EdgeCount of the collected objects. */
  edgesDeclared = 0;
  edgesSeen = 0;
  nodeEvents = 0;
  edgeEvents = 0;
  readonly ccws: CcwRoot[] = [];
  readonly statics: StaticRoot[] = [];
  /** BulkRCW: object pid → IUnknown pid (later entries overwrite). */
  readonly rcw = new Map<number, number>();
  readonly weakPids: number[] = [];
  /** Dependent handles (one per ConditionalWeakTable entry) as key pid, value pid, …; their [Dependent Handles] pseudo-node or -1. */
  readonly dependentPairs: number[] = [];
  dependentCategory = -1;
  readonly pinnedPids: number[] = [];
  readonly segments: HeapSegment[] = [];
  /** Collection stopped adding objects because the node cap was reached. */
  capped = false;
  /** memory/too-large before each batch is stored (HeapSnapshotAssembler sets it when the host has a budget). */
  memory: GrowingMemoryCheck | null = null;
  private readonly typeCacheLo = new Uint32Array(TYPE_CACHE);
  private readonly typeCacheHi = new Uint32Array(TYPE_CACHE);
  private readonly typeCacheKey = new Int32Array(TYPE_CACHE).fill(-1);
  /** Lowest and highest row address, and the OR of all rows' low address bits (their alignment). */
  minLo = 0xffffffff;
  minHi = 0xffffffff;
  maxLo = 0;
  maxHi = 0;
  lowBits = 0;
  /** Rows so far have strictly increasing addresses (then rows = distinct addresses). */
  increasing = true;
  private lastLo = 0;
  private lastHi = 0;
  /** The rows and references were handed to the graph builder (which frees them as it goes). */
  consumed = false;
  gcNumber = -1;
  startTimestamp = 0;

  constructor(
    private readonly pointerSize: number,
    private readonly maxNodes: number,
    private readonly keepWeakRoots: boolean,
    private readonly typeKeyOf: (lo: number, hi: number) => number,
    maxRefs?: number,
    maxRows?: number,
    sharedMemory = true,
    /** dotnet-gcdump's dependent handles: values as roots, no key → value reference. */
    private readonly dependentAsRoots = false,
  ) {
    this.edgeTargets = new PackedReferences(pointerSize, maxRefs, sharedMemory);
    this.rows = new RowColumns(maxRows, sharedMemory);
    this.pn = new PseudoNodeTree('[.NET Roots]', () => this.nextNode++);
  }

  get hasObjects(): boolean {
    return this.nodeEvents > 0;
  }

  pid(lo: number, hi: number): number {
    const id = this.addresses.intern(lo, hi);
    if (id === this.touched.length) this.touched.push(0);
    return id;
  }

  /** Make `pid`'s address a node (dotnet-gcdump's nodeFor); returns the child-list entry for it. */
  touch(pid: number): number {
    this.touched.raw[pid] = 1;
    return childOfPid(pid);
  }

  /** GCBulkRootEdge (§B7, §C2): categories by kind/flags; weak handles kept aside. */
  rootEdges(e: NetTraceEvent): void {
    const P = this.pointerSize;
    const stride = 5 + 2 * P; // ptr, u8, u32, ptr: 21 bytes when P = 8 (the spec's "13 + 2P" is a typo)
    const count = this.entryCount(e, 10, stride, 4, 'GCBulkRootEdge');
    const pn = this.pn;
    pn.child(pn.root, '[static vars]');
    const v = e.view;
    let p = e.payloadOffset + 10;
    for (let i = 0; i < count; i++, p += stride) {
      const lo = v.getUint32(p, true);
      const hi = P === 8 ? v.getUint32(p + 4, true) : 0;
      const kind = v.getUint8(p + P);
      const flags = v.getUint32(p + P + 1, true);
      if (flags & 0x2) {
        // Weak handles do not keep objects alive; dotnet-gcdump drops them. We keep them in a
        // separate NODE_WEAK_EDGES category, created last (after every other pseudo-node).
        if (this.keepWeakRoots) this.weakPids.push(this.pid(lo, hi));
        continue;
      }
      let parent: number;
      let name: string;
      if (kind === 0) {
        parent = pn.root;
        name = '[local vars]';
      } else {
        parent = pn.child(pn.root, '[other roots]');
        if (flags & 0x8) name = '[COM/WinRT Objects]';
        else if (kind === 1) name = '[finalizer Handles]';
        else if (kind === 2) name = flags === 0x1 ? '[pinning Handles]' : '[strong Handles]';
        else name = '[other Handles]';
      }
      const category = pn.child(parent, name);
      const pid = this.pid(lo, hi);
      pn.addNode(category, this.touch(pid));
      if (flags & 0x1) this.pinnedPids.push(pid);
    }
  }

  /** GCBulkRootConditionalWeakTableElementEdge (§B8): dependent handles, kept for key → value references (dependent-edges.ts) or as dotnet-gcdump's roots. */
  dependentHandles(e: NetTraceEvent): void {
    const P = this.pointerSize;
    const count = this.entryCount(e, 10, 3 * P, 4, 'GCBulkRootConditionalWeakTableElementEdge');
    const pn = this.pn;
    const dep = pn.child(pn.child(pn.root, '[other roots]'), '[Dependent Handles]');
    this.dependentCategory = dep;
    const v = e.view;
    let p = e.payloadOffset + 10;
    for (let i = 0; i < count; i++, p += 3 * P) {
      const keyLo = v.getUint32(p, true);
      const keyHi = P === 8 ? v.getUint32(p + 4, true) : 0;
      if (keyLo === 0 && keyHi === 0) continue;
      const valLo = v.getUint32(p + P, true);
      const valHi = P === 8 ? v.getUint32(p + P + 4, true) : 0;
      const value = this.pid(valLo, valHi);
      const child = this.touch(value);
      if (this.dependentAsRoots) pn.addNode(dep, child);
      else this.dependentPairs.push(this.pid(keyLo, keyHi), value);
    }
  }

  /** GCBulkNode (§B9): one row per object. */
  nodes(e: NetTraceEvent): void {
    this.nodeEvents++;
    if (this.capped) return;
    const P = this.pointerSize;
    const stride = P + 24;
    const count = this.entryCount(e, 10, stride, 4, 'GCBulkNode');
    this.memory?.atLeast(this.nextNode + this.rowAddress.length + count, Math.max(this.edgesDeclared, this.edgeTargets.length));
    const v = e.view;
    const addr = this.rowAddress.room(count);
    const rowCols = this.rows;
    rowCols.room(count);
    const { size: sizeOf, type: typeOf, edges: edgesOf } = rowCols;
    let wa = this.rowAddress.wordAt;
    let wi = rowCols.wordAt;
    let rows = this.rowAddress.length;
    let p = e.payloadOffset + 10;
    // The running minimum, maximum, alignment and order in locals (fields written back once per event).
    let { minLo, minHi, maxLo, maxHi, lowBits, increasing, lastLo, lastHi, edgesDeclared } = this;
    const typeKeyOf = this.typeKeyOf;
    const { typeCacheLo, typeCacheHi, typeCacheKey } = this;
    const maxNodes = this.maxNodes;
    for (let i = 0; i < count; i++, p += stride) {
      const lo = v.getUint32(p, true);
      const hi = P === 8 ? v.getUint32(p + 4, true) : 0;
      const sizeLo = v.getUint32(p + P, true);
      const sizeHi = v.getUint32(p + P + 4, true);
      const edges = v.getUint32(p + P + 16, true);
      if (v.getUint32(p + P + 20, true) !== 0) this.problems.add('malformed-record', `object 0x${hex64(lo, hi)} claims more than 2^32 references`);
      addr[wa++] = lo;
      addr[wa++] = hi;
      // dotnet-gcdump truncates to i32 and stores negatives as 2^31−1; we clamp anything ≥ 2^31.
      if (sizeHi !== 0 || sizeLo > 0x7fffffff) {
        this.problems.add('size-overflow', `object 0x${hex64(lo, hi)} has size ${sizeHi * 4294967296 + sizeLo}; stored as 2147483647`);
        sizeOf[wi] = 0x7fffffff;
      } else sizeOf[wi] = sizeLo;
      // The type id's key through a direct-mapped cache (a hash probe per object cost ~5 ns).
      // Slots by a multiplicative hash: type ids spaced by a power of two (0x100 apart, say) took
      // 8 of 256 slots when taken from their low bits, so nearly every object missed.
      const tLo = v.getUint32(p + P + 8, true);
      const tHi = v.getUint32(p + P + 12, true);
      const slot = Math.imul(tLo ^ Math.imul(tHi, 0x85ebca6b), 0x9e3779b1) >>> (32 - TYPE_CACHE_BITS);
      if (typeCacheKey[slot] < 0 || typeCacheLo[slot] !== tLo || typeCacheHi[slot] !== tHi) {
        typeCacheKey[slot] = typeKeyOf(tLo, tHi);
        typeCacheLo[slot] = tLo;
        typeCacheHi[slot] = tHi;
      }
      typeOf[wi] = typeCacheKey[slot];
      edgesOf[wi++] = edges;
      edgesDeclared += edges;
      rows++;
      if (hi < minHi || (hi === minHi && lo < minLo)) {
        minHi = hi;
        minLo = lo;
      }
      if (hi > maxHi || (hi === maxHi && lo > maxLo)) {
        maxHi = hi;
        maxLo = lo;
      }
      lowBits |= lo & 7;
      if (increasing && rows > 1 && (hi < lastHi || (hi === lastHi && lo <= lastLo))) increasing = false;
      lastLo = lo;
      lastHi = hi;
      if (increasing && rows >= maxNodes) {
        // Each of these rows is a distinct address, so dotnet-gcdump's walk (§C7) has reached
        // maxNodes by this object: nothing after it can be part of the graph.
        this.capped = true;
        break;
      }
    }
    this.minLo = minLo;
    this.minHi = minHi;
    this.maxLo = maxLo;
    this.maxHi = maxHi;
    this.lowBits = lowBits;
    this.increasing = increasing;
    this.lastLo = lastLo;
    this.lastHi = lastHi;
    this.edgesDeclared = edgesDeclared;
    this.rowAddress.commit(wa);
    rowCols.commit(wi - FRONT);
  }

  /** GCBulkEdge (§B10): targets of all objects' references, concatenated in object order. */
  edges(e: NetTraceEvent): void {
    this.edgeEvents++;
    const P = this.pointerSize;
    const stride = P + 4;
    const count = this.entryCount(e, 10, stride, 4, 'GCBulkEdge');
    const v = e.view;
    const store = this.edgeTargets;
    let keep = count;
    if (this.capped) keep = Math.max(0, Math.min(count, this.edgesDeclared - store.length));
    this.edgesSeen += count;
    if (keep === 0) return;
    this.memory?.atLeast(this.nextNode + this.rowAddress.length, Math.max(this.edgesDeclared, store.length + keep));
    const out = store.room(keep);
    let w = store.wordAt;
    let p = e.payloadOffset + 10;
    // The common case inline: the same 4 GiB window as the previous target, aligned.
    const { s, windowShift } = store;
    const align = (1 << s) - 1;
    let winHi = this.lastWindowHi;
    let winBits = this.lastWindowBits;
    for (let i = 0, at = store.length; i < keep; ) {
      const parts = store.partsOf(at);
      const end = Math.min(keep, i + BLOCK - (at % BLOCK)); // the block's last reference + 1
      at += end - i;
      for (; i < end; i++, p += stride) {
        const lo = v.getUint32(p, true);
        const hi = P === 8 ? v.getUint32(p + 4, true) : 0;
        if (hi === winHi && (lo & align) === 0) out[w++] = winBits | (lo >>> s);
        else {
          const word = store.encode(lo, hi);
          out[w++] = word;
          if (word >>> windowShift !== store.esc) {
            winHi = hi;
            winBits = (word & ~((1 << windowShift) - 1)) >>> 0;
          }
        }
        parts[edgePartition(lo, hi)]++;
      }
    }
    this.lastWindowHi = winHi;
    this.lastWindowBits = winBits;
    store.commit(w);
  }

  /** GCBulkRootStaticVar (§B14): queued; named at the end from the type table. */
  staticVars(e: NetTraceEvent): void {
    const c = new PayloadCursor(e.bytes, e.payloadOffset, e.payloadOffset + e.payloadLength);
    const count = c.u32();
    c.skip(10); // AppDomainID, ClrInstanceID
    for (let i = 0; i < count; i++) {
      if (c.remaining < 28) {
        this.problems.add('malformed-record', `GCBulkRootStaticVar ends after ${i} of ${count} entries`);
        return;
      }
      c.skip(8); // GCRootID
      const objLo = c.u32();
      const objHi = c.u32();
      const typeIdLo = c.u32();
      const typeIdHi = c.u32();
      const flags = c.u32();
      const field = c.utf16z();
      if (c.stringsCut > 0) {
        this.problems.add('malformed-record', namesCutMessage(1, c.longestCut, 'static field name(s)'));
        c.stringsCut = 0;
      }
      this.statics.push({ objectPid: this.pid(objLo, objHi), typeKey: this.typeKeyOf(typeIdLo, typeIdHi), typeIdLo, typeIdHi, flags, field });
    }
  }

  /** GCBulkRootCCW (§B12): queued; stride 44 (48 for an old padded layout). */
  ccwRoots(e: NetTraceEvent): void {
    const v = e.view;
    const count = e.payloadLength >= 4 ? v.getUint32(e.payloadOffset, true) : 0;
    const stride = e.payloadLength === 6 + 48 * count ? 48 : 44;
    const n = this.entryCount(e, 6, stride, 0, 'GCBulkRootCCW');
    let p = e.payloadOffset + 6;
    for (let i = 0; i < n; i++, p += stride) {
      const objectPid = this.pid(v.getUint32(p + 8, true), v.getUint32(p + 12, true));
      const typeKey = this.typeKeyOf(v.getUint32(p + 16, true), v.getUint32(p + 20, true));
      const iUnknownLo = v.getUint32(p + 24, true);
      const iUnknownHi = v.getUint32(p + 28, true);
      const iUnknownPid = iUnknownLo || iUnknownHi ? this.pid(iUnknownLo, iUnknownHi) : -1;
      this.ccws.push({ iUnknownLo, iUnknownHi, iUnknownPid, objectPid, typeKey });
    }
  }

  /** GCBulkRCW (§B13): rcw[ObjectID] = IUnknown. */
  rcws(e: NetTraceEvent): void {
    const n = this.entryCount(e, 6, 40, 0, 'GCBulkRCW');
    const v = e.view;
    let p = e.payloadOffset + 6;
    for (let i = 0; i < n; i++, p += 40) {
      this.rcw.set(this.pid(v.getUint32(p, true), v.getUint32(p + 4, true)), this.pid(v.getUint32(p + 16, true), v.getUint32(p + 20, true)));
    }
  }

  /**
   * Entries that fit: `Count` is at `countAt` (after an i32 Index when countAt is 4); a payload
   * shorter than Count entries is reported and only the complete entries are used.
   */
  private entryCount(e: NetTraceEvent, headerSize: number, stride: number, countAt: number, what: string): number {
    if (e.payloadLength < headerSize) {
      this.problems.add('malformed-record', `${what} event of ${e.payloadLength} bytes`);
      return 0;
    }
    const declared = e.view.getUint32(e.payloadOffset + countAt, true);
    const fit = Math.floor((e.payloadLength - headerSize) / stride);
    if (declared > fit) {
      this.problems.add('malformed-record', `${what} declares ${declared} entries but its payload holds ${fit}`);
      return fit;
    }
    return declared;
  }
}

/** Type-id cache slots (12 bytes each): with a few hundred hot types, few of them share a slot. */
const TYPE_CACHE_BITS = 12;
const TYPE_CACHE = 1 << TYPE_CACHE_BITS;

/** A pseudo-node child that is an address (pid) rather than a node index: negative until numbered. */
export function childOfPid(pid: number): number {
  return -1 - pid;
}

function hex64(lo: number, hi: number): string {
  return hi ? hi.toString(16) + lo.toString(16).padStart(8, '0') : lo.toString(16);
}

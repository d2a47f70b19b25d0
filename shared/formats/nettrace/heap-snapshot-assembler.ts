import { FormatError } from '../../errors.js';
import type { HeapGraph } from '../../graph/heap-graph.js';
import type { GrowingMemoryCheck } from '../../graph/memory-estimate.js';
import type { Problem } from '../../graph/problems.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { NEVER_CANCELLED } from '../../util/cancellation.js';
import { namesCutMessage } from '../name-cap.js';
import { AddressMap } from './address-map.js';
import { CLR_PROVIDER } from './clr-event-names.js';
import { GcEventId, isModuleEvent, readGcEnd, readGcStart, readGenerationRange, readModule } from './clr-gc-payloads.js';
import { HeapDumpCollection } from './heap-dump-collection.js';
import { buildGraphFromDump, type BulkTypeEntry } from './heap-graph-from-dump.js';
import type { NetTraceEvent, NetTraceHeader } from './nettrace-event.js';
import { PayloadCursor } from './payload-cursor.js';

/**
 * Turns CLR heap-snapshot events into a HeapGraph, fed one event at a time (nettrace-format.md
 * Part C, dotnet-gcdump semantics).
 *
 * Feed it every event of the stream **in timestamp order** (NetTraceParser with `sort: true`)
 * with `onEvent`, then call `finish()`. It works the same for a file and for a live session: it
 * keeps nothing from the event beyond what it decodes. Which GC is the heap dump follows
 * dotnet-gcdump (§C2): an induced, blocking gen-2 GC (or a GenAware dump) whose walk produced
 * objects; `select` picks the n-th such dump (0-based). Types and module names are taken from
 * the whole stream, because the runtime may log them before, during or after the GC (module
 * paths arrive with the rundown at the very end).
 *
 * Deviations from dotnet-gcdump, on purpose:
 * - a qualifying GC whose walk produced no objects is not a dump (dotnet-gcdump would stop there
 *   with an empty graph if any type had been logged);
 * - weak-handle roots are kept (unless `weakRoots: 'drop'`) under `[weak Handles]`, a root child
 *   flagged NODE_WEAK_EDGES so analyses do not count them as keeping objects alive; it is created
 *   last, so every type index equals dotnet-gcdump's;
 * - a dependent handle (a ConditionalWeakTable entry: the value is alive only while the key is)
 *   is a key → value reference, appended to the key's references, instead of a root under
 *   [Dependent Handles] (unless `dependentHandles: 'roots'`), so a value counts as retained by
 *   its key; the category stays, empty unless a key is not an object of the walk;
 * - nodes are numbered pseudo-nodes first, then objects by address, then other addresses
 *   (heap-graph-from-dump.ts), not in dotnet-gcdump's first-touch order: the same graph up to a
 *   node permutation, much cheaper to build;
 * - sizes ≥ 2^31 are clamped to 2^31−1 (dotnet-gcdump truncates to 32 bits) and reported.
 */
export interface HeapSnapshotAssemblerOptions {
  /** 0-based heap dump to take; default 0. */
  select?: number;
  /** Node cap: dotnet-gcdump stops at 10,000,000 nodes (§C7); the graph is then partial. */
  maxNodes?: number;
  /** 'category' (default): keep weak-handle roots under a weak `[weak Handles]` node; 'drop': as dotnet-gcdump. */
  weakRoots?: 'category' | 'drop';
  /** 'references' (default): a dependent handle is a key → value reference; 'roots': its value is a root under [Dependent Handles], as dotnet-gcdump. */
  dependentHandles?: 'references' | 'roots';
  /**
   * The trace's size in bytes, when known (a file): it bounds the references a heap walk can
   * hold, and so the address space their storage reserves (PackedReferences). Live streams leave
   * it out (the storage then reserves a default and copies past it).
   */
  streamBytes?: number;
  /**
   * The graph's big columns (references, sizes, types, edge starts) in SharedArrayBuffers, for a
   * host that hands the graph to other threads without copying it (ReadOptions.sharedMemory);
   * default: plain memory, whose first touches cost less here (InPlaceWords).
   */
  sharedMemory?: boolean;
  /** memory/too-large as the walk arrives (ReadOptions.memoryBudget); none: no check. */
  memory?: GrowingMemoryCheck;
}

export type AssemblerState = 'waiting' | 'collecting' | 'complete';

export class HeapSnapshotAssembler {
  private header: NetTraceHeader | null = null;
  private pointerSize = 8;
  private readonly select: number;
  private readonly maxNodes: number;
  private readonly keepWeak: boolean;
  private readonly dependentAsRoots: boolean;
  private readonly streamBytes: number | undefined;
  private readonly sharedMemory: boolean;
  private readonly memory: GrowingMemoryCheck | null;
  // §C2 state
  private seenStart = false;
  private ignore = true;
  private gcId = -1;
  private dumpsFound = 0;
  private collection: HeapDumpCollection | null = null;
  private done: HeapDumpCollection | null = null;
  // whole-stream tables
  private readonly typeIds = new AddressMap(4096);
  private readonly types: BulkTypeEntry[] = [];
  private typeEvents = 0;
  private readonly moduleNames = new Map<number, string>();
  private readonly nativeModules = new Set<number>();
  private malformedTypes = 0;
  /** Type and module names cut to MAX_NAME_CHARS (name-cap.ts), and the longest of them. */
  private namesCut = 0;
  private longestCut = 0;

  constructor(opts: HeapSnapshotAssemblerOptions = {}) {
    this.select = opts.select ?? 0;
    this.maxNodes = opts.maxNodes ?? 10_000_000;
    this.keepWeak = (opts.weakRoots ?? 'category') === 'category';
    this.dependentAsRoots = opts.dependentHandles === 'roots';
    this.streamBytes = opts.streamBytes;
    this.sharedMemory = opts.sharedMemory === true;
    this.memory = opts.memory ?? null;
  }

  setHeader(h: NetTraceHeader): void {
    this.header = h;
    this.pointerSize = h.pointerSize;
  }

  get state(): AssemblerState {
    if (this.done) return 'complete';
    return this.collection && !this.ignore ? 'collecting' : 'waiting';
  }

  /** Heap dumps completed so far (including skipped ones before `select`). */
  get heapDumpsSeen(): number {
    return this.dumpsFound;
  }

  onEvent(e: NetTraceEvent): void {
    const m = e.metadata;
    if (m.provider !== CLR_PROVIDER) {
      if (isModuleEvent(e)) this.module(e);
      return;
    }
    switch (m.eventId) {
      case GcEventId.GCStart: {
        const s = readGcStart(e);
        if (this.seenStart || this.done) return;
        if (s.depth >= 2 && s.type === 0 && s.reason === 1) this.begin(s.count, e.timestamp);
        return;
      }
      case GcEventId.GCEnd:
        if (!this.ignore && readGcEnd(e).count === this.gcId) this.end();
        return;
      case GcEventId.GenAwareBegin:
        if (!this.seenStart && !this.done) this.begin(-2, e.timestamp);
        return;
      case GcEventId.GenAwareEnd:
        if (!this.ignore) this.end();
        return;
      case GcEventId.BulkType:
        this.bulkType(e);
        return;
      default:
        break;
    }
    if (isModuleEvent(e)) {
      this.module(e);
      return;
    }
    const c = this.collection;
    if (this.ignore || !c) return;
    switch (m.eventId) {
      case GcEventId.BulkNode:
        return c.nodes(e);
      case GcEventId.BulkEdge:
        return c.edges(e);
      case GcEventId.BulkRootEdge:
        return c.rootEdges(e);
      case GcEventId.BulkRootConditionalWeakTableElementEdge:
        return c.dependentHandles(e);
      case GcEventId.BulkRootStaticVar:
        return c.staticVars(e);
      case GcEventId.BulkRootCCW:
        return c.ccwRoots(e);
      case GcEventId.BulkRCW:
        return c.rcws(e);
      case GcEventId.GenerationRange: {
        // Only the ranges logged after the walk (post-GC) describe the dumped heap.
        if (!c.hasObjects) return;
        const r = readGenerationRange(e, this.pointerSize);
        if (!r || r.generation > 4) {
          c.problems.add('malformed-record', `GCGenerationRange with generation ${r?.generation ?? '?'}`);
          return;
        }
        const start = (BigInt(r.startHi) << 32n) | BigInt(r.startLo);
        const end = start + BigInt(r.usedLength);
        const seg = { start, end, gen0End: 0n, gen1End: 0n, gen2End: 0n, gen3End: 0n, gen4End: 0n };
        seg[(['gen0End', 'gen1End', 'gen2End', 'gen3End', 'gen4End'] as const)[r.generation]] = end;
        c.segments.push(seg);
        return;
      }
      default:
        return;
    }
  }

  /**
   * Build the graph of the selected dump. Throws `format/no-heap-dump` when the stream had none
   * and `format/truncated` when the dump started but never ended.
   */
  finish(opts: { token?: CancellationToken; traceExtra?: Record<string, string | number>; problems?: readonly Problem[] } = {}): HeapGraph {
    const token = opts.token ?? NEVER_CANCELLED;
    const c = this.done;
    if (!c) {
      if (this.collection && !this.ignore && this.collection.hasObjects) {
        throw new FormatError('format/truncated', `the heap dump of GC #${this.gcId} started but did not finish (no GCEnd): the trace was cut off during the heap walk`);
      }
      const which = this.select > 0 ? ` (asked for heap dump #${this.select}, found ${this.dumpsFound})` : '';
      throw new FormatError('format/no-heap-dump', `this trace has no GC heap snapshot${which} (it can still be shown as a GC timeline)`);
    }
    for (const p of opts.problems ?? []) c.problems.add(p.code, p.message);
    if (this.malformedTypes > 0) c.problems.addMany('malformed-record', this.malformedTypes, `${this.malformedTypes} BulkType entries could not be decoded`);
    if (this.namesCut > 0) c.problems.addMany('malformed-record', this.namesCut, namesCutMessage(this.namesCut, this.longestCut, 'type or module name(s)'));
    return buildGraphFromDump(c, {
      types: this.types,
      typeIdKeys: this.typeIds.keysByOrdinal(),
      typeKeyCount: this.typeIds.size,
      moduleNames: this.moduleNames,
      header: this.header,
      maxNodes: this.maxNodes,
      token,
      extra: { ...opts.traceExtra, heapDumpIndex: this.select, bulkTypeEvents: this.typeEvents },
    });
  }

  private begin(gcId: number, timestamp: number): void {
    this.gcId = gcId;
    this.ignore = false;
    this.seenStart = true;
    // A BulkEdge entry is at least 8 bytes of the stream, a BulkNode entry at least 28.
    const bound = (bytes: number) => (this.streamBytes === undefined ? undefined : this.streamBytes / bytes);
    const c = new HeapDumpCollection(this.pointerSize, this.maxNodes, this.keepWeak, (lo, hi) => this.typeIds.intern(lo, hi), bound(8), bound(28), this.sharedMemory, this.dependentAsRoots);
    c.gcNumber = gcId;
    c.startTimestamp = timestamp;
    if (this.memory) {
      // Every entry that adds a node or a reference is at least 8 bytes of the stream and adds at
      // most one of each (a dependent-handle pair, 16 bytes, at most two nodes), plus the few
      // category pseudo-nodes: an upper bound only, which lets the per-batch checks be skipped
      // when even it fits.
      if (this.streamBytes !== undefined) this.memory.bound(this.streamBytes / 8 + 64, this.streamBytes / 8);
      c.memory = this.memory;
    }
    this.collection = c;
  }

  private end(): void {
    this.ignore = true;
    const c = this.collection;
    this.collection = null;
    this.seenStart = false;
    if (!c || !c.hasObjects) return; // not a dump: wait for another qualifying GC
    if (this.dumpsFound++ === this.select) this.done = c;
  }

  private bulkType(e: NetTraceEvent): void {
    this.typeEvents++;
    const c = new PayloadCursor(e.bytes, e.payloadOffset, e.payloadOffset + e.payloadLength);
    let count = 0;
    let i = 0;
    try {
      count = c.u32();
      c.skip(2);
      for (; i < count; i++) {
        const idLo = c.u32();
        const idHi = c.u32();
        const moduleId = c.u64();
        const typeNameId = c.u32();
        const flags = c.u32();
        c.skip(1); // CorElementType
        const name = c.utf16z();
        const params = c.u32();
        c.skip(8 * params);
        this.types.push({ typeKey: this.typeIds.intern(idLo, idHi), moduleId, typeNameId, flags, name });
      }
    } catch (err) {
      if (!(err instanceof FormatError)) throw err;
      this.malformedTypes += Math.max(1, count - i);
    }
    this.noteCut(c.stringsCut, c.longestCut);
  }

  private noteCut(n: number, longest: number): void {
    this.namesCut += n;
    this.longestCut = Math.max(this.longestCut, longest);
  }

  private module(e: NetTraceEvent): void {
    const m = readModule(e);
    if (!m) return;
    if (m.cutFrom > 0) this.noteCut(1, m.cutFrom);
    if (m.flags & 0x2) {
      this.nativeModules.add(m.moduleId); // native image (Project N); its types are deferred
      return;
    }
    if (!this.moduleNames.has(m.moduleId)) this.moduleNames.set(m.moduleId, m.ilPath);
  }
}

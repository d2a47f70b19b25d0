import { HeapGraphBuilder } from '../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { NODE_PSEUDO } from '../../shared/graph/heap-graph.js';
import { emptyMetadata, type HeapSegment } from '../../shared/graph/metadata.js';
import { SyntheticTypes } from './synthetic-types.js';

/**
 * A realistic, deterministic .NET-like heap of any size, for benchmarks and property tests.
 *
 * Shape (per seed, identical on every run):
 *
 *   [.NET Roots]
 *   ├─ [static vars] ─ [static var T.field] × S      each holds one "unit" head
 *   ├─ [other roots] ─ [strong Handles]               unit heads + every large (LOH) array
 *   │               └─ [pinning Handles]              the pinned (POH) buffers
 *   ├─ [local vars]                                   up to 24 unit heads, with repeats
 *   └─ [COM/WinRT Objects]                            empty, as dotnet-gcdump writes it
 *
 * Node ordinals: pseudo-nodes first, then small objects (SOH), then a few unreachable objects,
 * then the large (LOH) and pinned (POH) arrays; addresses increase with the ordinal, so the
 * optional segments put every object in a generation (gen2 80 %, gen1 12 %, gen0 the rest,
 * LOH, POH).
 *
 * The small objects come in units of a few thousand, each reachable from one root:
 * - tree units (65 %): classes, strings, arrays and List backing arrays laid out breadth-first,
 *   like a freshly built object graph, with some references back to the unit head (cycles);
 * - list units (20 %): 1,000–4,000 nodes, each with a string value; alternately a .NET
 *   LinkedList (a circular doubly-linked ring) and a singly-linked chain whose dominator chain is
 *   as deep as the list (far references never land on a list node, only on its value);
 * - dictionary units (15 %): a Dictionary with buckets, an entries array, string keys and values.
 * Every container also takes "extra" references (shared strings, objects elsewhere in the heap)
 * until the heap averages `refsPerObject` references per object.
 *
 * Cost: no object per node; the builder's typed arrays plus one child scratch buffer. 10M objects
 * build in a few seconds with ~350 MB of graph.
 */
export interface SyntheticHeapOptions {
  /** Heap objects (pseudo-nodes come on top). At least 100. */
  objects: number;
  seed?: number;
  /** Average references per heap object (default 2.5). */
  refsPerObject?: number;
  /** Attach gen0/1/2/LOH/POH segments so generations are populated (default true). */
  segments?: boolean;
}

const SOH_BASE = 0x7f00_0000_0000;
const LOH_BASE = 0x7f40_0000_0000;
const POH_BASE = 0x7f80_0000_0000;
const POH_OBJECTS = 4;

/** Deterministic 32-bit generator (xorshift32 over a SplitMix-style seed hash). */
function rng(seed: number): () => number {
  let s = Math.imul((seed >>> 0) ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  s = Math.imul(s ^ (s >>> 13), 0xc2b2ae35) >>> 0;
  if (s === 0) s = 0x6d2b79f5;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const align8 = (n: number): number => (n + 7) & ~7;

/** Unit kinds. */
const TREE = 0;
const LIST = 1;
const DICT = 2;

export function makeSyntheticHeap(opts: SyntheticHeapOptions): HeapGraph {
  const objects = Math.floor(opts.objects);
  if (!(objects >= 100)) throw new RangeError(`makeSyntheticHeap needs at least 100 objects (got ${opts.objects})`);
  const rand = rng(opts.seed ?? 1);
  const randInt = (n: number): number => Math.floor(rand() * n);
  const refsPerObject = opts.refsPerObject ?? 2.5;

  // ---- object regions (relative to the first object) ----
  const largeCount = Math.max(2, Math.min(60, Math.round(objects / 200_000)));
  const unreachableCount = Math.max(3, Math.min(1000, Math.round(objects / 10_000)));
  const sohCount = objects - largeCount - POH_OBJECTS - unreachableCount;

  // ---- units: lengths first, so roots can point at their heads ----
  const unitStart: number[] = [];
  const unitKind: number[] = [];
  for (let at = 0; at < sohCount; ) {
    let kind = rand() < 0.65 ? TREE : rand() < 0.57 ? LIST : DICT;
    if (unitStart.length === 1 && sohCount > 10_000) kind = LIST; // always at least one deep chain
    let len = kind === LIST ? 2001 + randInt(6000) : kind === DICT ? 500 + randInt(2500) : 200 + randInt(4000);
    if (sohCount - (at + len) < 200) len = sohCount - at; // no tiny tail unit
    unitStart.push(at);
    unitKind.push(len < 8 ? TREE : kind);
    at += len;
  }
  const unitCount = unitStart.length;
  const staticCount = Math.max(1, Math.min(3000, Math.ceil(unitCount * 0.6)));
  const localCount = Math.min(unitCount - staticCount, 24);

  // ---- pseudo-node ordinals ----
  const ROOT = 0;
  const STATIC_VARS = 1;
  const FIRST_HOLDER = 2;
  const OTHER_ROOTS = FIRST_HOLDER + staticCount;
  const STRONG = OTHER_ROOTS + 1;
  const PINNING = OTHER_ROOTS + 2;
  const LOCALS = OTHER_ROOTS + 3;
  const COM = OTHER_ROOTS + 4;
  const first = COM + 1; // first heap object
  const sohEnd = first + sohCount; // exclusive end of reachable small objects
  const unreachStart = sohEnd;
  const lohStart = unreachStart + unreachableCount;
  const pohStart = lohStart + largeCount;
  const nodeCount = pohStart + POH_OBJECTS;
  const head = (u: number): number => first + unitStart[u];

  const expectedEdges = Math.ceil(objects * refsPerObject) + nodeCount / 100 + 50_000;
  const b = new HeapGraphBuilder({ expectedNodes: nodeCount, expectedEdges });
  const T = new SyntheticTypes(b);
  b.createNodes(nodeCount);
  b.setRoot(ROOT);

  // ---- pseudo-nodes ----
  const pseudo = (node: number, type: number, children: ArrayLike<number>) => {
    b.setNode(node, type, 0, children);
    b.addFlags(node, NODE_PSEUDO);
  };
  const holderTypes: number[] = [];
  for (let j = 0; j < staticCount; j++) holderTypes.push(T.pseudo(`[static var ${T.className(j * 7)}.s_field${j}]`));
  const rootType = T.pseudo('[.NET Roots]');
  pseudo(ROOT, rootType, [STATIC_VARS, OTHER_ROOTS, LOCALS, COM]);
  pseudo(STATIC_VARS, T.pseudo('[static vars]'), Array.from({ length: staticCount }, (_, j) => FIRST_HOLDER + j));
  for (let j = 0; j < staticCount; j++) pseudo(FIRST_HOLDER + j, holderTypes[j], j < unitCount ? [head(j)] : []);
  pseudo(OTHER_ROOTS, T.pseudo('[other roots]'), [STRONG, PINNING]);
  const strong: number[] = [];
  for (let u = staticCount + localCount; u < unitCount; u++) strong.push(head(u));
  for (let i = lohStart; i < pohStart; i++) strong.push(i);
  pseudo(STRONG, T.pseudo('[strong Handles]'), strong);
  pseudo(PINNING, T.pseudo('[pinning Handles]'), Array.from({ length: POH_OBJECTS }, (_, k) => pohStart + k));
  const locals: number[] = [];
  for (let u = staticCount; u < staticCount + localCount; u++) locals.push(head(u), ...(u % 3 === 0 ? [head(u)] : []));
  if (locals.length === 0) locals.push(head(0), head(0)); // stack roots repeat
  pseudo(LOCALS, T.pseudo('[local vars]'), locals);
  pseudo(COM, T.pseudo('[COM/WinRT Objects]'), []);

  // A reference from elsewhere into the middle of a list would cut its dominator chain short:
  // lists are reached only through their head, far references to a list node land on its value.
  const absStart = Int32Array.from(unitStart, (x) => x + first);
  const awayFromLists = (target: number): number => {
    let lo = 0;
    let hi = unitCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (absStart[mid] <= target) lo = mid;
      else hi = mid - 1;
    }
    if (unitKind[lo] !== LIST || target === absStart[lo]) return target;
    const end = lo + 1 < unitCount ? absStart[lo + 1] : sohEnd;
    // ring lists: nodes at odd offsets; chains: nodes at even offsets; the value follows its node
    const isNode = ((target - absStart[lo]) & 1) === ((lo & 1) === 0 ? 1 : 0);
    return isNode && target + 1 < end ? target + 1 : isNode ? absStart[lo] : target;
  };

  // ---- heap objects ----
  const kids = new Uint32Array(65_536);
  let nk = 0;
  let edges = 0; // object references so far
  let addr = SOH_BASE;
  let done = 0; // objects described so far
  // generation boundaries inside the small-object segment: the oldest 80 % gen2, the next 12 % gen1
  const gen2Node = first + Math.floor(sohCount * 0.8);
  const gen1Node = first + Math.floor(sohCount * 0.92);
  let gen2End = SOH_BASE;
  let gen1End = SOH_BASE;
  const place = (node: number, type: number, size: number) => {
    if (node === gen2Node) gen2End = addr;
    if (node === gen1Node) gen1End = addr;
    b.setNode(node, type, size, kids, 0, nk);
    b.setAddress(node, addr);
    T.noteSize(type, size);
    addr += align8(size);
    edges += nk;
    done++;
  };
  /** References this object should add so the heap stays on `refsPerObject` on average. */
  const deficit = () => Math.floor(refsPerObject * (done + 1)) - edges - nk;
  /** An extra reference: a shared object in the unit, the unit head (a cycle) or anywhere in the live small heap. */
  const extraTarget = (node: number, us: number): number => {
    const r = rand();
    if (r < 0.45 && node > us) return us + randInt(node - us);
    if (r < 0.6) return us;
    return awayFromLists(r < 0.9 && node > first ? first + randInt(node - first) : first + randInt(sohCount));
  };
  const addExtras = (node: number, us: number, cap: number) => {
    const want = Math.min(cap, deficit());
    for (let k = 0; k < want; k++) kids[nk++] = extraTarget(node, us);
  };
  const placeString = (node: number) => {
    nk = 0;
    const size = T.stringSize(rand());
    place(node, T.sized(T.string, size), size);
  };

  for (let u = 0; u < unitCount; u++) {
    const us = head(u);
    const ue = u + 1 < unitCount ? head(u + 1) : sohEnd;
    const kind = unitKind[u];
    if (kind === TREE) {
      let next = us + 1; // breadth-first: the next node still waiting for a parent
      for (let i = us; i < ue; i++) {
        nk = 0;
        const forced = next === i + 1 && next < ue; // i + 1 would be orphaned otherwise
        const c = T.pickTreeType(rand(), forced);
        const room = ue - next;
        const wantTree = c.maxTree === 0 ? 0 : Math.max(forced ? 1 : 0, randInt(c.maxTree + 1));
        const k = Math.min(wantTree, room);
        for (let j = 0; j < k; j++) kids[nk++] = next + j;
        next += k;
        if (c.maxRefs > nk) addExtras(i, us, c.maxRefs - nk);
        const size = c.array ? T.arraySize(c, c.holdsRefs ? nk : 8 + randInt(200)) : c.leaf === 'string' ? T.stringSize(rand()) : c.size;
        place(i, T.sized(c, size), size);
      }
    } else if (kind === LIST && (u & 1) === 0) {
      // .NET LinkedList: us, then (node, value) pairs in a circular doubly-linked ring; a
      // leftover slot is a string the last node holds
      const pairs = (ue - us - 1) >> 1;
      const firstNode = us + 1;
      const lastNode = us + 1 + 2 * (pairs - 1);
      nk = 0;
      kids[nk++] = firstNode;
      place(us, T.linkedList, 48);
      for (let p = 0; p < pairs; p++) {
        const node = us + 1 + 2 * p;
        nk = 0;
        kids[nk++] = node === lastNode ? firstNode : node + 2; // next (circular)
        kids[nk++] = node === firstNode ? lastNode : node - 2; // prev
        kids[nk++] = node + 1; // item
        kids[nk++] = us; // list
        if (node === lastNode && node + 2 < ue) kids[nk++] = node + 2;
        place(node, T.linkedListNode, 48);
        placeString(node + 1);
      }
      if (us + 1 + 2 * pairs < ue) placeString(ue - 1);
    } else if (kind === LIST) {
      // a singly-linked chain (next, value): a dominator chain as deep as the list is long
      for (let node = us; node < ue; node += 2) {
        nk = 0;
        if (node + 1 < ue) kids[nk++] = node + 1;
        if (node + 2 < ue) kids[nk++] = node + 2;
        place(node, T.chainNode, 32);
        if (node + 1 < ue) placeString(node + 1);
      }
    } else {
      // us: Dictionary → buckets, entries; entries → every key and value; values are classes
      const entries = (ue - us - 3) >> 1;
      nk = 0;
      kids[nk++] = us + 1;
      kids[nk++] = us + 2;
      place(us, T.dictionary, 80);
      nk = 0;
      const bucketSize = 24 + 4 * entries;
      place(us + 1, T.sized(T.int32Array, bucketSize), bucketSize);
      nk = 0;
      for (let i = us + 3; i < ue; i++) kids[nk++] = i;
      const entrySize = align8(24 + 24 * entries);
      place(us + 2, T.sized(T.entryArray, entrySize), entrySize);
      for (let i = us + 3; i < ue; i++) {
        nk = 0;
        if ((i - us - 3) % 2 === 0) placeString(i);
        else {
          kids[nk++] = i - 1; // its key
          addExtras(i, us, 4);
          place(i, T.customer, 56);
        }
      }
    }
  }

  // ---- unreachable: a small dead cycle nobody references ----
  for (let i = unreachStart; i < lohStart; i++) {
    nk = 0;
    kids[nk++] = i + 1 < lohStart ? i + 1 : unreachStart;
    place(i, T.customer, 56);
  }
  const sohLimit = addr;

  // ---- large objects: byte buffers, and one object cache array on big heaps ----
  addr = LOH_BASE;
  for (let i = lohStart; i < pohStart; i++) {
    nk = 0;
    let size: number;
    let type: number;
    if (i === lohStart && sohCount >= 100_000) {
      for (let k = 0; k < 12_000; k++) kids[nk++] = awayFromLists(first + randInt(sohCount));
      size = 24 + 8 * nk;
      type = T.sized(T.objectArray, size);
    } else {
      size = 85_000 + randInt(900_000);
      type = T.sized(T.byteArray, size);
    }
    place(i, type, size);
  }
  const lohLimit = addr;
  addr = POH_BASE;
  for (let i = pohStart; i < nodeCount; i++) {
    nk = 0;
    place(i, T.sized(T.byteArray, 4096), 4096);
  }
  const pohLimit = addr;

  T.finish();
  const meta = emptyMetadata('synthetic');
  meta.formatVersion = 'synthetic v1';
  meta.creationTool = 'heapscope-synthetic';
  meta.pointerSize = 8;
  meta.processName = 'SyntheticApp';
  meta.processId = 4242;
  meta.machineName = 'synthetic-host';
  meta.timeCollected = '2024-01-02T03:04:05.000';
  if (opts.segments !== false) {
    const seg = (start: number, end: number, gen2: number, gen1: number, gen3: number, gen4: number): HeapSegment => ({
      start: BigInt(start),
      end: BigInt(end),
      gen0End: BigInt(end),
      gen1End: BigInt(gen1),
      gen2End: BigInt(gen2),
      gen3End: BigInt(gen3),
      gen4End: BigInt(gen4),
    });
    meta.segments = [
      seg(SOH_BASE, sohLimit, gen2End, gen1End, SOH_BASE, 0),
      seg(LOH_BASE, lohLimit, lohLimit, lohLimit, lohLimit, 0),
      seg(POH_BASE, pohLimit, pohLimit, pohLimit, pohLimit, pohLimit),
    ];
  }
  const g = b.finish(meta);
  meta.declaredTotalSize = g.totalSize;
  meta.totalProcessCommit = Math.round(g.totalSize * 1.5);
  meta.totalProcessWorkingSet = Math.round(g.totalSize * 1.25);
  return g;
}

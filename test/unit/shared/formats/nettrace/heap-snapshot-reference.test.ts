import { describe, expect, it } from 'vitest';
import { readNetTraceSnapshot } from '../../../../../shared/formats/nettrace/read-nettrace-snapshot.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import type { NodeDef, RootDef, StaticDef, TypeDef } from '../../../../helpers/clr-event-payloads.js';
import {
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
} from '../../../../helpers/clr-event-payloads.js';
import { NetTraceWriter } from '../../../../helpers/nettrace-writer.js';
import type { ReferenceOptions } from './reference-heap-snapshot.js';
import { referenceHeapSnapshot } from './reference-heap-snapshot.js';
import { mulberry32 as rng } from '../../../../helpers/prng.js';
import { defineHeapDumpEvents } from '../../../../helpers/heap-trace.js';

/**
 * The optimized assembler (address-ordered numbering through a bitmap index, columns laid out
 * directly) against a straightforward Part C implementation (reference-heap-snapshot.ts, which
 * numbers nodes by first touch as dotnet-gcdump does) on seeded random traces that stress what
 * the optimization could get wrong: BulkNode events out of address order and unsorted inside,
 * address-ordered runs sent out of order or interleaved, the same address in several BulkNode
 * entries, references and roots to addresses no object has (and to 0), edge events sent before
 * the node events of their objects, too few and too many references, RCWs/CCWs/statics/dependent
 * and weak handles, several heap dumps in one trace (`select`), node caps, 32- and 64-bit,
 * addresses across 4 GiB boundaries, far apart, and scattered (the index's sparse form).
 *
 * The two number nodes differently by design, so the graphs are compared after mapping every
 * reference node to ours: pseudo-nodes by their order, every other node by its address (each
 * address is one node in both). Every node's type, size, address, flags, generation and children
 * (in order) must then be equal, and so must the root, the type table, the problems (node
 * numbers in messages mapped) and the metadata. Our numbering contract is checked on its own:
 * pseudo-nodes first, then the objects by ascending address, then the other addresses ascending.
 */


interface Case {
  bytes: Uint8Array;
  opts: ReferenceOptions;
}

/**
 * 'address': objects sent as the runtime does, by increasing address (no duplicates, no
 * shuffling). 'runs': increasing runs (no duplicates), sent in shuffled run order, or two runs
 * interleaved event by event (their address ranges overlap). 'any': shuffled, with duplicates.
 */
type Order = 'any' | 'address' | 'runs';

function randomTrace(seed: number, mode: Order = 'any'): Case {
  const inAddressOrder = mode !== 'any';
  const r = rng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]) => xs[int(xs.length)];
  const chance = (p: number) => r() < p;
  const P: 4 | 8 = chance(0.3) ? 4 : 8;
  const w = new NetTraceWriter({ pointerSize: P, eventsPerBlock: 1 + int(40) });
  const id = defineHeapDumpEvents(w);
  let ts = 1000;
  const emit = (meta: number, payload: Uint8Array) => w.event(meta, payload, { timestamp: (ts += 1 + int(3)), threadId: 5 });
  const names = ['System.String', 'System.Object[]', 'App.Item', 'List`1[App.Item]', '', 'Dictionary`2[System.Int32,System.String]', 'App.Com'];
  const types: TypeDef[] = names.map((name, i) => ({ id: 0x7000 + i * 0x40, module: pick([0x10, 0x20, 0x30]), nameId: 0x0200_0000 + i, name, flags: name === '' ? pick([0, 8]) : name === 'App.Com' ? 4 : 0 }));
  const typeIds = [...types.map((t) => Number(t.id)), 0x9990, 0x9998];
  const typesEarly = chance(0.7);
  if (typesEarly) emit(id.type, bulkType(types));
  // 64-bit bases: ordinary, just below a 4 GiB boundary (address halves carry), or ≥ 2^52 (no
  // 32-bit keys at all); some heaps also have objects 2^36 bytes away (keys too wide for them).
  const base = P === 4 ? 0x1000_0000 : chance(0.1) ? 2 ** 52 + 0x1000 * int(16) : 0x1_0000_0000 * (1 + int(0x7fff)) - (chance(0.4) ? 0x400 : 0);
  const far = P === 8 && chance(0.15) ? (chance(0.3) ? 2 ** 44 : 2 ** 36) : 0;
  const dumps = chance(0.3) ? 2 + int(2) : 1;
  let gc = 3;
  if (chance(0.3)) {
    emit(id.start, gcStart(gc, 2, 1, 0)); // an induced GC without a heap walk: not a dump
    emit(id.end, gcEnd(gc++, 2));
  }
  for (let dump = 0; dump < dumps; dump++, gc++) {
    const n = 1 + int(dump === 0 ? 200 : 60);
    const stride = pick([8, 16, 24, 0x40, 0x40, 0x18_0000]); // the last scatters objects (sparse index)
    const addr = (i: number) => base + i * stride + (inAddressOrder ? (2 * i >= n ? far : 0) : i % 3 === 1 ? far : 0);
    const stray = () => (chance(0.1) ? 0 : base + stride * (n + 5 + int(40)) + pick([0, 4, 8])); // no object there
    const target = () => (chance(0.1) ? stray() : addr(int(n)));
    const sizes = [0, 24, 56, 1001, 9999, 150_000, 2_500_000, 24, 0x8000_0000, 40];
    const objects: (NodeDef & { refs: number[] })[] = [];
    for (let i = 0; i < n; i++) {
      const refs = Array.from({ length: int(5) }, target);
      const address = !inAddressOrder && chance(0.04) && i > 0 ? objects[int(i)].address : addr(i); // duplicate address
      objects.push({ address, size: pick(sizes), type: pick(typeIds), edges: refs.length, refs });
    }
    emit(id.start, gcStart(gc, 2, 1, 0));
    if (chance(0.5)) emit(id.range, generationRange(int(3), base, stride * n, stride * n + 4096, P));
    const roots: RootDef[] = Array.from({ length: int(25) }, () => ({ address: chance(0.1) ? 0 : target(), kind: int(6), flags: pick([0, 0, 1, 2, 3, 5, 8, 2]) }));
    if (roots.length) emit(id.root, bulkRootEdge(0, roots, P));
    if (chance(0.3)) emit(id.dep, bulkDependentHandles(0, Array.from({ length: 1 + int(4) }, () => ({ key: pick([0, addr(int(n)), addr(int(n)), target()]), value: target() })), P));
    const rcwObjects = chance(0.3) ? Array.from({ length: 1 + int(3) }, () => ({ object: objects[int(n)].address, type: types[0].id, iUnknown: 0xd000 + int(3) * 8 })) : [];
    if (rcwObjects.length && chance(0.5)) emit(id.rcw, bulkRcw(rcwObjects));
    // Node events in shuffled order, some unsorted inside; edges as one stream, cut anywhere.
    const order = objects.map((_, i) => i);
    const chunk = 1 + int(40);
    const nodeEvents: number[][] = [];
    for (let i = 0; i < n; i += chunk) nodeEvents.push(order.slice(i, i + chunk));
    if (!inAddressOrder && chance(0.5)) nodeEvents.sort(() => r() - 0.5);
    for (const ev of nodeEvents) if (!inAddressOrder && chance(0.2)) ev.sort(() => r() - 0.5);
    if (mode === 'runs' && nodeEvents.length > 1) {
      if (chance(0.5)) {
        // two runs over overlapping ranges (even and odd objects), alternating event by event
        const runs = [order.filter((i) => i % 2 === 0), order.filter((i) => i % 2 === 1)].map((run) => {
          const evs: number[][] = [];
          for (let i = 0; i < run.length; i += chunk) evs.push(run.slice(i, i + chunk));
          return evs;
        });
        nodeEvents.length = 0;
        for (let i = 0; i < Math.max(runs[0].length, runs[1].length); i++) for (const run of runs) if (i < run.length) nodeEvents.push(run[i]);
      } else {
        // several runs of whole events, sent in shuffled run order (disjoint ranges)
        const cuts = [0, ...Array.from({ length: 1 + int(4) }, () => int(nodeEvents.length)).sort((a, b) => a - b), nodeEvents.length];
        const runs = cuts.slice(1).map((end, i) => nodeEvents.slice(cuts[i], end)).filter((x) => x.length > 0);
        runs.sort(() => r() - 0.5);
        nodeEvents.splice(0, nodeEvents.length, ...runs.flat());
      }
    }
    const queue = nodeEvents.flat();
    const targets = queue.flatMap((i) => objects[i].refs);
    if (chance(0.1)) targets.length = Math.max(0, targets.length - 1 - int(5)); // not enough edge data
    else if (chance(0.1)) targets.push(target(), target()); // extra edge data
    const edgesPer = 1 + int(30);
    const edgeEvents: number[][] = [];
    for (let i = 0; i < targets.length; i += edgesPer) edgeEvents.push([i, Math.min(targets.length, i + edgesPer)]);
    let nodeAt = 0;
    let edgeAt = 0;
    let nodeIndex = 0;
    let edgeIndex = 0;
    const edgesFirst = chance(0.5);
    while (nodeAt < nodeEvents.length || edgeAt < edgeEvents.length) {
      const sendEdge = edgeAt < edgeEvents.length && (nodeAt >= nodeEvents.length || (edgesFirst ? chance(0.6) : chance(0.3)));
      if (sendEdge) {
        const [from, to] = edgeEvents[edgeAt++];
        emit(id.edge, bulkEdge(edgeIndex++, targets.slice(from, to), P));
      } else {
        emit(id.node, bulkNode(nodeIndex++, nodeEvents[nodeAt++].map((i) => objects[i]), P));
      }
    }
    if (rcwObjects.length && nodeAt > 0) emit(id.rcw, bulkRcw(rcwObjects));
    const statics: StaticDef[] = Array.from({ length: int(8) }, () => ({ object: target(), type: pick(typeIds), field: pick(['s_a', 's_b']), flags: pick([0, 0, 1]) }));
    if (statics.length) emit(id.statics, bulkStaticVars(statics));
    if (chance(0.3)) emit(id.ccw, bulkCcw(Array.from({ length: 1 + int(3) }, () => ({ object: target(), type: pick(typeIds), iUnknown: pick([0, 0xc000 + int(3) * 8, objects[int(n)].address]) }))));
    if (chance(0.5)) emit(id.range, generationRange(int(3), base, stride * n, stride * n + 4096, P));
    emit(id.end, gcEnd(gc, 2));
  }
  if (!typesEarly) emit(id.type, bulkType(types));
  w.sequencePoint(ts + 1);
  emit(id.moduleEnd, moduleEvent(0x10, '/app/a.dll'));
  emit(id.moduleEnd, moduleEvent(0x20, '/app/b.dll'));
  const opts: ReferenceOptions = { select: int(dumps), weakRoots: chance(0.5) ? 'category' : 'drop' };
  if (chance(0.25)) opts.maxNodes = 1 + int(120);
  if (chance(0.5)) opts.dependentHandles = 'roots';
  return { bytes: w.finish({ endMarker: chance(0.9) }), opts };
}

const PSEUDO = NODE_PSEUDO;

/** Reference node → our node: pseudo-nodes in order, every other node by its address. */
function nodeMapping(got: HeapGraph, want: HeapGraph, label: string): Int32Array {
  const ours = new Map<bigint, number>();
  const ourPseudo: number[] = [];
  for (let n = 0; n < got.nodeCount; n++) {
    if (got.nodeFlags[n] & PSEUDO) ourPseudo.push(n);
    else {
      expect({ label, duplicateAddress: ours.has(got.address[n]) }).toEqual({ label, duplicateAddress: false });
      ours.set(got.address[n], n);
    }
  }
  const map = new Int32Array(want.nodeCount).fill(-1);
  let p = 0;
  for (let n = 0; n < want.nodeCount; n++) map[n] = want.nodeFlags[n] & PSEUDO ? (ourPseudo[p++] ?? -1) : (ours.get(want.address[n]) ?? -1);
  expect({ label, unmapped: map.indexOf(-1), pseudo: p }).toEqual({ label, unmapped: -1, pseudo: ourPseudo.length });
  return map;
}

/** Our numbering contract: pseudo-nodes, then objects by ascending address, then the other addresses ascending. */
function expectAddressOrder(got: HeapGraph, label: string): void {
  const kindOf = (m: number) => (got.nodeFlags[m] & PSEUDO ? 'pseudo' : !(got.nodeFlags[m] & NODE_UNDEFINED) && !got.types.names[got.nodeType[m]].startsWith('[CCW ') ? 'object' : 'other');
  const kinds: string[] = [];
  let notAscending = -1;
  for (let m = 0; m < got.nodeCount; m++) {
    const kind = kindOf(m);
    if (kinds.at(-1) !== kind) kinds.push(kind);
    else if (kind !== 'pseudo' && !(got.address[m] > got.address[m - 1]) && notAscending < 0) notAscending = m;
  }
  const blocks = ['pseudo', 'object', 'other'].filter((k) => kinds.includes(k));
  expect({ label, kinds, notAscending }).toEqual({ label, kinds: blocks, notAscending: -1 });
}

function expectSameGraph(got: HeapGraph, want: HeapGraph, label: string): void {
  expect({ label, nodeCount: got.nodeCount, edgeCount: got.edgeCount }).toEqual({ label, nodeCount: want.nodeCount, edgeCount: want.edgeCount });
  const map = nodeMapping(got, want, label);
  expect({ label, root: got.rootIndex }).toEqual({ label, root: map[want.rootIndex] });
  expectAddressOrder(got, label);
  const row = (g: HeapGraph, n: number, kids: (k: number) => number) => ({
    type: g.nodeType[n],
    size: g.selfSize[n],
    address: g.address[n],
    flags: g.nodeFlags[n],
    generation: g.generation[n],
    children: Array.from(g.edgeTarget.subarray(g.firstEdge[n], g.firstEdge[n + 1]), kids),
  });
  for (let n = 0; n < want.nodeCount; n++) {
    expect({ label, node: n, ...row(got, map[n], (k) => k) }).toEqual({ label, node: n, ...row(want, n, (k) => map[k]) });
  }
  expect({ label, names: got.types.names, modules: got.types.modules, sizes: Array.from(got.types.sizes) }).toEqual({ label, names: want.types.names, modules: want.types.modules, sizes: Array.from(want.types.sizes) });
  // Node numbers in problem messages are the reference's, mapped to ours.
  const mapped = want.problems.entries.map((e) => ({ code: e.code, message: e.message.replace(/^node (\d+) was described twice/, (_, m: string) => `node ${map[Number(m)]} was described twice`) }));
  expect({ label, problems: got.problems.entries, counts: got.problems.counts, total: got.problems.total }).toEqual({ label, problems: mapped, counts: want.problems.counts, total: want.problems.total });
  expect({ label, hasGen: got.hasGenerationData, total: got.totalSize, extra: got.metadata.extra, segments: got.metadata.segments }).toEqual({
    label,
    hasGen: want.hasGenerationData,
    total: want.totalSize,
    extra: want.metadata.extra,
    segments: want.metadata.segments,
  });
}

/** Read one seeded trace both ways and compare column by column; the reference's graph, or null when both failed alike. */
async function compareWithReference(seed: number, mode: Order): Promise<{ want: HeapGraph; select: number } | null> {
  const { bytes, opts } = randomTrace(seed, mode);
  let want: HeapGraph | Error;
  try {
    want = await referenceHeapSnapshot(bytes, opts);
  } catch (e) {
    want = e as Error;
  }
  const got = await readNetTraceSnapshot(new MemoryByteSource(bytes, 't.nettrace'), { select: String(opts.select ?? 0), maxNodes: opts.maxNodes, weakRoots: opts.weakRoots, dependentHandles: opts.dependentHandles }).catch((e: Error) => e);
  if (want instanceof Error) {
    expect({ seed, error: got instanceof Error ? (got as { code?: string }).code : 'graph' }).toEqual({ seed, error: (want as { code?: string }).code });
    return null;
  }
  expect(got).not.toBeInstanceOf(Error);
  expectSameGraph(got as HeapGraph, want, `seed ${seed}`);
  return { want, select: opts.select ?? 0 };
}

describe('heap snapshots from random traces equal a straightforward Part C implementation', () => {
  it('for 300 seeded traces: every column, the type table, problems and dump metadata', async () => {
    const seen = { duplicates: 0, capped: 0, dangling: 0, select: 0, edgesFirst: 0 };
    for (let seed = 1; seed <= 300; seed++) {
      const res = await compareWithReference(seed, 'any');
      if (!res) continue;
      const { want } = res;
      if (want.problems.counts['duplicate-node']) seen.duplicates++;
      if (want.problems.counts['node-cap-reached']) seen.capped++;
      if (want.problems.counts['undefined-node']) seen.dangling++;
      if (res.select > 0) seen.select++;
    }
    // The generator really produced the interesting cases.
    expect(seen.duplicates).toBeGreaterThan(20);
    expect(seen.capped).toBeGreaterThan(20);
    expect(seen.dangling).toBeGreaterThan(100);
    expect(seen.select).toBeGreaterThan(20);
  });

  it('for 300 seeded traces whose objects arrive in address order (the runtime\'s heap walk)', async () => {
    const seen = { capped: 0, dangling: 0 };
    for (let seed = 1001; seed <= 1300; seed++) {
      const res = await compareWithReference(seed, 'address');
      if (!res) continue;
      const { want } = res;
      if (want.problems.counts['node-cap-reached']) seen.capped++;
      if (want.problems.counts['undefined-node']) seen.dangling++;
    }
    expect(seen.capped).toBeGreaterThan(20);
    expect(seen.dangling).toBeGreaterThan(100);
  });

  it('for 200 seeded traces whose address-ordered runs arrive out of order or interleaved', async () => {
    const seen = { capped: 0, dangling: 0, compared: 0 };
    for (let seed = 2001; seed <= 2200; seed++) {
      const res = await compareWithReference(seed, 'runs');
      if (!res) continue;
      seen.compared++;
      if (res.want.problems.counts['node-cap-reached']) seen.capped++;
      if (res.want.problems.counts['undefined-node']) seen.dangling++;
    }
    expect(seen.compared).toBeGreaterThan(180);
    expect(seen.capped).toBeGreaterThan(15);
    expect(seen.dangling).toBeGreaterThan(60);
  });
});

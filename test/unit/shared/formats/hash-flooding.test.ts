import { describe, expect, it } from 'vitest';
import { readCfHeapLog, readCfHeapLogFragment } from '../../../../shared/formats/cf-heaplog/cf-heaplog-reader.js';
import { readNetTraceSnapshot } from '../../../../shared/formats/nettrace/read-nettrace-snapshot.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { NODE_PSEUDO } from '../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { addressColliding, cfColliding32, cfColliding64, cfLogWithIds, orderPreservingOrdinary, traceWithAddresses, widenIds } from '../../../helpers/adversarial-ids.js';

/**
 * Hash flooding (issue 13), whole readers: a CF log and a heap-walk trace of 160K objects whose
 * ids / addresses (and some dangling ones) were crafted to collide in the id tables' old fixed
 * hashes. Before the tables were keyed these reads were quadratic (minutes at this size; see
 * test/perf/hash-flood.bench.ts); the timeout below only catches such a blow-up, the exact checks are the
 * graph's: it must equal the reading of the same heap with ordinary ids, node for node, but
 * for the address column, which must hold the crafted ids. The table-level tests
 * (id-table, id-resolution, address-map) count the probes.
 */
const FLOOD_TIMEOUT = 30_000;
const n = 160_000;
const d = 2_000;

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);
const big = (w: Uint32Array, i: number): bigint => (BigInt(w[2 * i + 1]) << 32n) | BigInt(w[2 * i]);

/** The two graphs equal but for addresses; crafted address k ↦ ordinary address k. */
function expectSameGraph(crafted: HeapGraph, ordinary: HeapGraph, craftedIds: Uint32Array, ordinaryIds: Uint32Array): void {
  expect(crafted.nodeCount).toBe(ordinary.nodeCount);
  expect(crafted.rootIndex).toBe(ordinary.rootIndex);
  expect(crafted.types.names).toEqual(ordinary.types.names);
  for (const col of ['nodeType', 'selfSize', 'firstEdge', 'edgeTarget', 'nodeFlags', 'generation'] as const) {
    // typed-array equality in one compare (toEqual on 160K elements is slow to diff, not to pass)
    expect(Buffer.compare(Buffer.from(crafted[col].buffer, crafted[col].byteOffset, crafted[col].byteLength), Buffer.from(ordinary[col].buffer, ordinary[col].byteOffset, ordinary[col].byteLength)), col).toBe(0);
  }
  const toOrdinary = new Map<bigint, bigint>();
  for (let i = 0; i < craftedIds.length / 2; i++) toOrdinary.set(big(craftedIds, i), big(ordinaryIds, i));
  let mismatched = 0;
  for (let v = 0; v < crafted.nodeCount; v++) {
    const want = crafted.nodeFlags[v] & NODE_PSEUDO ? 0n : toOrdinary.get(crafted.address[v]); // (crafted id 0 is an object)
    if (ordinary.address[v] !== want || (want === 0n && crafted.address[v] !== 0n)) mismatched++;
  }
  expect(mismatched).toBe(0);
  expect(crafted.problems.entries.map((p) => p.code)).toEqual(ordinary.problems.entries.map((p) => p.code));
}

describe('CF heap log with crafted object ids', () => {
  for (const [name, all] of [
    ['32-bit ids (a device log)', widenIds(cfColliding32(n + d))],
    ['64-bit ids', cfColliding64(n + d)],
  ] as const) {
    it(
      `${name}: opens, equal to the same log with ordinary ids`,
      async () => {
        const ordinary = new Uint32Array(all.length);
        for (let i = 0; i < n + d; i++) ordinary[2 * i] = 0x100000 + 16 * i;
        const read = (ids: Uint32Array) => readCfHeapLog(new MemoryByteSource(bytesOf(cfLogWithIds(ids.subarray(0, 2 * n), { seed: 5, dangling: ids.subarray(2 * n) })), 'flood.log'));
        const g = await read(all);
        const o = await read(ordinary);
        expect(g.nodeCount).toBeGreaterThan(n + d); // objects, dangling ids, root pseudo-nodes
        expect(g.problems.entries.filter((p) => p.code === 'dangling-reference').length).toBeGreaterThan(0);
        expectSameGraph(g, o, all, ordinary);
      },
      FLOOD_TIMEOUT,
    );
  }
});

describe('CF heap log with crafted object ids, read on two threads', () => {
  it(
    'the split read (second half as a fragment, as the app and the CLI read a big log) equals the whole read',
    async () => {
      // dangling ids too: they get fresh ordinals in the table's (keyed) bucket order, renumbered
      // by first reference, so two reads (two random keys) must agree on them to the message
      const all = widenIds(cfColliding32(n + d));
      const ids = all.subarray(0, 2 * n);
      const bytes = bytesOf(cfLogWithIds(ids, { seed: 6, dangling: all.subarray(2 * n) }));
      let at = bytes.indexOf(10, bytes.length >> 1) + 1;
      if (at === 0) at = bytes.length;
      let calls = 0;
      const split = await readCfHeapLog(new MemoryByteSource(bytes), {
        splitAt: at,
        stretchReader: (req, token) => {
          calls++;
          return { result: readCfHeapLogFragment(new MemoryByteSource(bytes), req.from, { chunkSize: req.chunkSize, maxLineBytes: req.maxLineBytes, token }), cancel() {} };
        },
      });
      const whole = await readCfHeapLog(new MemoryByteSource(bytes));
      expect(calls).toBe(1);
      expectSameGraph(split, whole, all, all);
      expect(Buffer.compare(Buffer.from(split.address.buffer, split.address.byteOffset, split.address.byteLength), Buffer.from(whole.address.buffer, whole.address.byteOffset, whole.address.byteLength))).toBe(0);
      expect(whole.problems.entries.filter((p) => p.code === 'dangling-reference').length).toBeGreaterThan(50);
      expect(split.problems).toEqual(whole.problems);
    },
    FLOOD_TIMEOUT,
  );
});

describe('heap-walk trace with crafted BulkNode addresses', () => {
  it(
    'opens (the sparse index), equal to the same heap at ordinary addresses (the dense index)',
    async () => {
      const objects = addressColliding(n);
      const strays = addressColliding(d, 0x0badf00d); // addresses no object has, colliding too
      const all = new Uint32Array(2 * (n + d));
      all.set(objects);
      all.set(strays, 2 * n);
      const ordinary = orderPreservingOrdinary(all);
      const read = (ids: Uint32Array) => readNetTraceSnapshot(new MemoryByteSource(traceWithAddresses(ids.subarray(0, 2 * n), { seed: 5, strays: ids.subarray(2 * n) }), 'flood.nettrace'));
      const g = await read(all);
      const o = await read(ordinary);
      expect(g.nodeCount).toBeGreaterThan(n + d / 2);
      expectSameGraph(g, o, all, ordinary);
    },
    FLOOD_TIMEOUT,
  );
});

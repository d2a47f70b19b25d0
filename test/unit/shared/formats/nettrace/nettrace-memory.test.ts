import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors.js';
import { readNetTraceSnapshot } from '../../../../../shared/formats/nettrace/read-nettrace-snapshot.js';
import { BYTES_PER_EDGE, BYTES_PER_NODE, GrowingMemoryCheck } from '../../../../../shared/graph/memory-estimate.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { writeHeapTrace, type SyntheticHeap } from '../../../../helpers/heap-trace.js';

/**
 * memory/too-large for .nettrace heap walks (issue 17): the trace does not say how big the heap
 * is, so the reader checks the counts so far before it stores each BulkNode / BulkEdge batch.
 *
 * The heap: 1,000 objects of one type, each referring to the next two (2,000 references), one
 * stack root; 100 objects per BulkNode event, 150 references per BulkEdge event, all node events
 * first (as writeHeapTrace writes them). Pseudo-nodes when the objects arrive: [.NET Roots],
 * [static vars] and [local vars] (made by the root event) = 3. The graph then has 1,004 nodes
 * ([COM/WinRT Objects] is made after the walk) and 2,004 references ([.NET Roots] → its three
 * categories, [local vars] → the root object).
 */
const BASE = 0x2000_0000_0000;
const N = 1000;
function chainHeap(): SyntheticHeap {
  const T = 0x7ffe_0000_0100;
  return {
    modules: [{ id: 0x7ff0_0000_1000, path: '/app/App.dll' }],
    types: [{ id: T, module: 0x7ff0_0000_1000, name: 'App.Node' }],
    objects: Array.from({ length: N }, (_, i) => ({ address: BASE + 64 * i, size: 32, type: T, refs: [BASE + 64 * ((i + 1) % N), BASE + 64 * ((i + 2) % N)] })),
    roots: [{ address: BASE, kind: 0, flags: 0 }],
  };
}
const TRACE = writeHeapTrace(chainHeap(), { nodesPerEvent: 100, edgesPerEvent: 150 });
const PSEUDO = 3;
/** What the last batch (the last 50 references) is checked with: every object and every reference. */
const FULL = (PSEUDO + N) * BYTES_PER_NODE + 2 * N * BYTES_PER_EDGE;

const read = (availableBytes: number | null) =>
  readNetTraceSnapshot(new MemoryByteSource(TRACE, 'walk.nettrace'), availableBytes === null ? {} : { memoryBudget: () => ({ availableBytes, source: 'test' }) });

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('the .nettrace reader asks for memory as the heap walk arrives', () => {
  it('opens the walk with exactly the estimate of all its objects and references available', async () => {
    expect(FULL).toBe(76_192);
    const g = await read(FULL);
    expect([g.nodeCount, g.edgeCount]).toEqual([1004, 2004]);
  });

  it('refuses it with one byte less, at the last reference batch, with the counts read so far', async () => {
    const e = await refusal(read(FULL - 1));
    expect(e.code).toBe('memory/too-large');
    expect(e.detail).toEqual({ estimateBytes: FULL, availableBytes: FULL - 1, nodes: 1003, edges: 2000, complete: false, limit: 'test' });
    expect(e.message).toBe('walk.nettrace needs at least 74.4 KB of memory to open (at least 1,003 nodes and 2,000 references, read so far), but only 74.4 KB is available (test)');
  });

  it('refuses before storing the batch that would not fit: the second node batch here', async () => {
    // The first batch is checked with 103 nodes and no references yet = 6,592 bytes; the second
    // with 203 nodes and the first batch's 200 declared references = 14,192 bytes.
    const e = await refusal(read(14_191));
    expect(e.detail).toMatchObject({ estimateBytes: 14_192, nodes: 203, edges: 200 });
    const g = await read(null);
    expect(g.nodeCount).toBe(1004);
  });

  it('without a budget, or when even the stream size bound fits, never asks again', () => {
    let asked = 0;
    const check = new GrowingMemoryCheck('x.nettrace', () => (asked++, { availableBytes: 1000 * BYTES_PER_NODE + 1000 * BYTES_PER_EDGE, source: 'test' }));
    check.bound(1000, 1000);
    check.atLeast(1_000_000, 1_000_000); // bigger than the bound: a stream cannot hold it, nothing to check
    expect(asked).toBe(1);
    const strict = new GrowingMemoryCheck('x.nettrace', () => ({ availableBytes: 100, source: 'test' }));
    strict.bound(1000, 1000);
    expect(() => strict.atLeast(2, 0)).toThrow('x.nettrace needs at least 128 bytes of memory to open (at least 2 nodes and 0 references, read so far), but only 100 bytes is available (test)');
    expect(() => new GrowingMemoryCheck('x', undefined).atLeast(1e12, 1e12)).not.toThrow();
  });
});

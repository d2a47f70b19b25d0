import { describe, expect, it } from 'vitest';
import { readGcdump } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import { writeGcdump } from '../../../../../shared/formats/gcdump/gcdump-writer.js';
import { countRuns } from '../../../../../shared/formats/gcdump/offset-order.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { producerOrder } from '../../../../tools/producer-order.js';
import { makeSyntheticHeap } from '../../../../tools/synthetic-heap.js';
import { concat, expectSameGraph } from './gcdump-test-utils.js';

// `npm run gen -- --producer-order`: the benchmark heap numbered and written as dotnet-gcdump's
// producer writes it, so the reader's general out-of-order path can be measured at scale.
describe('producer-order benchmark heap', () => {
  it('is the same heap renumbered, many records out of place, the root last; it reads back exactly', async () => {
    const g = makeSyntheticHeap({ objects: 20_000, seed: 3 });
    const { graph, recordOrder } = producerOrder(g);
    expect(graph.nodeCount).toBe(g.nodeCount);
    expect(graph.edgeCount).toBe(g.edgeCount);
    expect(graph.rootIndex).toBe(0);
    expect(recordOrder[recordOrder.length - 1]).toBe(0);
    expect(new Set(recordOrder).size).toBe(g.nodeCount); // each node's record once
    // a renumbering: the same multiset of (type, size, reference count)
    const profile = (h: typeof g) => {
      const keys: string[] = [];
      for (let i = 0; i < h.nodeCount; i++) keys.push(`${h.nodeType[i]}:${h.selfSize[i]}:${h.firstEdge[i + 1] - h.firstEdge[i]}:${h.address[i]}`);
      return keys.sort();
    };
    expect(profile(graph)).toEqual(profile(g));

    const bytes = concat(writeGcdump(graph, { recordOrder }));
    const offsets = new Uint32Array(graph.nodeCount);
    for (let k = 0; k < recordOrder.length; k++) offsets[recordOrder[k]] = k + 1; // blob order, as the file has it
    expect(countRuns(offsets)).toBeGreaterThan(graph.nodeCount / 10); // the radix sort's and the copy's path
    let collections = 0;
    const read = await readGcdump(new MemoryByteSource(bytes, 'p.gcdump'), { collectGarbage: () => collections++ });
    expectSameGraph(read, graph, { metadata: false });
    expect(collections).toBe(1); // the reader's scratch is garbage before the builder's finish
  });
});

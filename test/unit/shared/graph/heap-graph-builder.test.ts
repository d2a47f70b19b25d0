import { describe, expect, it } from 'vitest';
import { HeapGraphBuilder } from '../../../../shared/graph/heap-graph-builder.js';
import { GEN_UNKNOWN, NODE_UNDEFINED } from '../../../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../../../shared/graph/metadata.js';
import { FormatError } from '../../../../shared/errors.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';

describe('HeapGraphBuilder', () => {
  it('builds CSR in order without compaction', () => {
    const b = new HeapGraphBuilder();
    const t = b.addType('Foo', 'a.dll', 24);
    const first = b.createNodes(3);
    expect(first).toBe(0);
    b.setNode(0, t, 0, [1, 2]);
    b.setNode(1, t, 24, [2]);
    b.setNode(2, t, 32, []);
    b.setRoot(0);
    const g = b.finish(emptyMetadata('synthetic'));
    expect(g.nodeCount).toBe(3);
    expect(g.edgeCount).toBe(3);
    expect(Array.from(g.firstEdge)).toEqual([0, 2, 3, 3]);
    expect(Array.from(g.edgeTarget)).toEqual([1, 2, 2]);
    expect(g.totalSize).toBe(56);
    expect(g.types.names).toEqual(['UNDEFINED', 'Foo']);
    expect(g.problems.total).toBe(0);
  });

  it('compacts out-of-order descriptions and keeps the last of a duplicate', () => {
    const b = new HeapGraphBuilder();
    const t = b.addType('T');
    b.createNodes(4);
    b.setNode(3, t, 1, [0]);
    b.setNode(0, t, 2, [1, 3]);
    b.setNode(1, t, 3, [2]);
    b.setNode(1, t, 4, [3, 3]); // duplicate: replaces
    b.setRoot(0);
    const g = b.finish(emptyMetadata('synthetic'));
    expect(Array.from(g.firstEdge)).toEqual([0, 2, 4, 4, 5]);
    expect(Array.from(g.edgeTarget)).toEqual([1, 3, 3, 3, 0]);
    expect(g.selfSize[1]).toBe(4);
    expect(g.nodeFlags[2] & NODE_UNDEFINED).toBe(NODE_UNDEFINED);
    expect(g.problems.counts['duplicate-node']).toBe(1);
    expect(g.problems.counts['undefined-node']).toBe(1);
  });

  it('reports dangling references and unknown types instead of throwing', () => {
    const b = new HeapGraphBuilder();
    b.createNodes(2);
    b.setNode(0, 7, 10, [1, 5, -1]);
    b.setNode(1, 0, -3, []);
    b.setRoot(0);
    const g = b.finish(emptyMetadata('synthetic'));
    expect(g.edgeCount).toBe(1);
    expect(g.problems.counts['dangling-reference']).toBe(2);
    expect(g.problems.counts['unknown-type']).toBe(1);
    expect(g.problems.counts['size-overflow']).toBe(1);
    expect(g.nodeType[0]).toBe(0);
  });

  it('caps problem messages but keeps exact counts', () => {
    const b = new HeapGraphBuilder();
    b.createNodes(1);
    const bad = Array.from({ length: 250 }, () => 99);
    b.setNode(0, 0, 0, bad);
    b.setRoot(0);
    const g = b.finish(emptyMetadata('synthetic'));
    expect(g.problems.entries.length).toBe(100);
    expect(g.problems.counts['dangling-reference']).toBe(250);
    expect(g.problems.total).toBe(250);
  });

  it('refuses a graph with no root or no nodes', () => {
    expect(() => new HeapGraphBuilder().finish(emptyMetadata('synthetic'))).toThrow(FormatError);
    const b = new HeapGraphBuilder();
    b.createNodes(1);
    expect(() => b.finish(emptyMetadata('synthetic'))).toThrow(/no valid root/);
  });

  it('computes generations from segments, and unknown without them', () => {
    const b = new HeapGraphBuilder();
    b.createNodes(5);
    const addrs = [0, 1000, 2500, 2900, 9000];
    addrs.forEach((a, i) => {
      b.setNode(i, 0, 0, []);
      b.setAddress(i, a);
    });
    b.setRoot(0);
    const meta = emptyMetadata('gcdump');
    // SOH segment [1000, 3000): gen2 [1000,2000), gen1 [2000,2800), gen0 [2800,3000); LOH segment [9000, 9100)
    meta.segments = [
      { start: 1000n, end: 3000n, gen0End: 3000n, gen1End: 2800n, gen2End: 2000n, gen3End: 1000n, gen4End: 0n },
      { start: 9000n, end: 9100n, gen0End: 9100n, gen1End: 9100n, gen2End: 9100n, gen3End: 9100n, gen4End: 0n },
    ];
    const g = b.finish(meta);
    expect(g.hasGenerationData).toBe(true);
    expect(Array.from(g.generation)).toEqual([GEN_UNKNOWN, 2, 1, 0, 3]);
    const g2 = tinyGraph((t) => t.root('[static vars]').ref('A')).graph;
    expect(g2.hasGenerationData).toBe(false);
  });

  it('copies little-endian address bytes directly', () => {
    const b = new HeapGraphBuilder();
    b.createNodes(2);
    const bytes = new Uint8Array(16);
    const dv = new DataView(bytes.buffer);
    dv.setBigUint64(0, 0x7fff12345678n, true);
    dv.setBigUint64(8, 0x1n, true);
    b.setAddressBytes(0, bytes);
    b.setNode(0, 0, 0, []);
    b.setNode(1, 0, 0, []);
    b.setRoot(0);
    const g = b.finish(emptyMetadata('synthetic'));
    expect(g.address[0]).toBe(0x7fff12345678n);
    expect(g.address[1]).toBe(1n);
  });
});

describe('HeapGraphBuilder: references decoded into the edge pool', () => {
  /** The same descriptions through setNode and through edgeRoom + setNodeFromPool. */
  function both(describe: (set: (node: number, type: number, size: number, kids: number[]) => void) => void) {
    const viaSetNode = new HeapGraphBuilder({ expectedEdges: 16 });
    const viaPool = new HeapGraphBuilder({ expectedEdges: 16 }); // small: the pool grows while filled
    for (const b of [viaSetNode, viaPool]) {
      b.addType('T', null, 8);
      b.createNodes(5);
    }
    describe((node, type, size, kids) => viaSetNode.setNode(node, type, size, kids));
    describe((node, type, size, kids) => {
      const pool = viaPool.edgeRoom(kids.length);
      const at = viaPool.edgePoolLength;
      kids.forEach((k, i) => (pool[at + i] = k));
      viaPool.setNodeFromPool(node, type, size, kids.length, kids.every((k) => k >= 0 && k < 5));
    });
    const [a, b] = [viaSetNode, viaPool].map((x) => {
      x.setRoot(0);
      return x.finish(emptyMetadata('synthetic'));
    });
    return { a, b };
  }

  it('gives setNode\'s columns and problems, in order and out of order, valid and damaged', () => {
    const { a, b } = both((set) => {
      set(0, 1, 8, [1, 2, 3]);
      set(1, 1, 16, Array.from({ length: 40 }, (_, i) => i % 5)); // past the 16-edge pool
      set(3, 7, 24, [4, -2, 9, 0]); // out of order, unknown type, two dangling
      set(2, 1, -1, [0]); // size-overflow
      set(2, 1, 4, [1]); // duplicate
    });
    expect(Array.from(b.firstEdge)).toEqual([0, 3, 43, 44, 46, 46]);
    expect(Array.from(b.edgeTarget.subarray(43))).toEqual([1, 4, 0]);
    expect(Array.from(b.nodeType)).toEqual([1, 1, 1, 0, 0]);
    expect(Array.from(b.selfSize)).toEqual([8, 16, 4, 24, 0]);
    for (const col of ['nodeType', 'selfSize', 'firstEdge', 'edgeTarget', 'nodeFlags'] as const) expect(Array.from(b[col]), col).toEqual(Array.from(a[col]));
    expect(b.problems.entries).toEqual(a.problems.entries);
    expect(b.problems.counts).toEqual({ 'unknown-type': 1, 'dangling-reference': 2, 'size-overflow': 1, 'duplicate-node': 1, 'undefined-node': 1 });
    // a negative reference is worded with its signed value, as setNode's Int32 callers gave it
    expect(b.problems.entries.filter((e) => e.code === 'dangling-reference').map((e) => e.message)).toEqual(['node 3 references node -2, but only 5 nodes exist', 'node 3 references node 9, but only 5 nodes exist']);
  });

  it('addressBytes is the address column in place', () => {
    const b = new HeapGraphBuilder();
    b.createNodes(3);
    new DataView(b.addressBytes(1, 2).buffer, b.addressBytes(1, 2).byteOffset, 16).setBigUint64(8, 0x7fff00001234n, true);
    for (let i = 0; i < 3; i++) b.setNode(i, 0, 0, []);
    b.setRoot(0);
    expect(Array.from(b.finish(emptyMetadata('synthetic')).address)).toEqual([0n, 0n, 0x7fff00001234n]);
  });
});

describe('tinyGraph helper', () => {
  it('names nodes and leaves undeclared references undefined', () => {
    const t = tinyGraph((b) => {
      b.root('[static vars]').ref('A');
      b.node('A', 16).ref('B', 'Ghost');
      b.node('B', 8);
    });
    expect(t.graph.nodeCount).toBe(5);
    expect(t.name(t.id('A'))).toBe('A');
    expect(t.graph.nodeFlags[t.id('Ghost')] & NODE_UNDEFINED).toBe(NODE_UNDEFINED);
    expect(t.graph.totalSize).toBe(24);
  });
});

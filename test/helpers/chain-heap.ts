import { writeFileSync } from 'node:fs';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { HeapGraphBuilder } from '../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { NODE_PSEUDO } from '../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../shared/graph/metadata.js';

/**
 * Heaps with hostile shapes, built in code (nothing large is committed):
 *
 *   [root] (0) → [static vars] (1) → Chain.Link #2 → #3 → … → #(chain+1)    a list `chain` long
 *                                  → Wide.Type0 … Wide.Type(wide−1)          `copies` objects each
 *
 * Every object has 24 bytes at address 0x10000 + 32 × ordinal. A chain link's retained size is
 * 24 × (links from it to the end); the dominator tree has depth chain + 1 (root 0, category 1).
 * `wide` distinct types give commands like report/diff --top 0 one row per type.
 */
export interface ChainHeapOptions {
  chain: number;
  wide?: number;
  copies?: number;
}

export const LINK_BYTES = 24;

export function chainHeap(o: ChainHeapOptions): HeapGraph {
  const wide = o.wide ?? 0;
  const copies = o.copies ?? 1;
  const n = 2 + o.chain + wide * copies;
  const b = new HeapGraphBuilder({ expectedNodes: n, expectedEdges: n });
  b.createNodes(n);
  const root = b.addType('[root]', null, 0);
  const statics = b.addType('[static vars]', null, 0);
  const link = b.addType('Chain.Link', 'chain.dll', LINK_BYTES);
  const wideTypes = Array.from({ length: wide }, (_, i) => b.addType(`Wide.Type${i}`, 'wide.dll', LINK_BYTES));
  const firstWide = 2 + o.chain;
  const held = [2, ...Array.from({ length: wide * copies }, (_, i) => firstWide + i)];
  b.setNode(0, root, 0, [1]);
  b.setNode(1, statics, 0, o.chain > 0 ? held : held.slice(1));
  b.addFlags(0, NODE_PSEUDO);
  b.addFlags(1, NODE_PSEUDO);
  for (let i = 2; i < firstWide; i++) {
    b.setNode(i, link, LINK_BYTES, i + 1 < firstWide ? [i + 1] : []);
    b.setAddress(i, 0x10000 + 32 * i);
  }
  for (let k = 0; k < wide * copies; k++) {
    const node = firstWide + k;
    b.setNode(node, wideTypes[k % wide], LINK_BYTES, []);
    b.setAddress(node, 0x10000 + 32 * node);
  }
  b.setRoot(0);
  return b.finish(emptyMetadata('synthetic'));
}

export function writeChainGcdump(path: string, o: ChainHeapOptions): void {
  writeFileSync(path, Buffer.concat(writeGcdump(chainHeap(o))));
}

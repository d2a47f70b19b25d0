import { HeapGraphBuilder } from '../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NODE_WEAK_EDGES } from '../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../shared/graph/metadata.js';

export { mulberry32 } from './prng.js';
import { mulberry32 } from './prng.js';

export interface RandomGraphOptions {
  /** Total nodes including the root and categories (≥ 1). */
  nodes: number;
  /** Object types to draw from; few types make same-type nesting likely. */
  types: number;
  /** Mean out-degree of an object. */
  avgDegree: number;
}

/**
 * A small random heap graph for oracle comparisons. Node 0 is the pseudo root; 1–3 pseudo
 * category nodes follow (each weak with probability 1/3). The remaining nodes are objects with
 * random types and sizes (0–99 bytes) and random references, including self-edges, duplicates,
 * cycles, nodes only weakly reachable, and a "dead" tail of nodes that only each other point to
 * but that point back into the live part (an unreachable clique).
 */
export function randomGraph(seed: number, opts: RandomGraphOptions): HeapGraph {
  const rnd = mulberry32(seed);
  const int = (k: number): number => Math.floor(rnd() * k);
  const n = Math.max(1, opts.nodes);
  const b = new HeapGraphBuilder({ expectedNodes: n });
  const rootType = b.addType('[root]');
  const catType = b.addType('[category]');
  const firstObjType = b.typeCount;
  for (let t = 0; t < opts.types; t++) b.addType(`T${t}`, 'random.dll');
  b.createNodes(n);
  b.setRoot(0);

  const categories = Math.min(n - 1, 1 + int(3));
  const firstObj = 1 + categories;
  const objects = n - firstObj;
  // The last `dead` objects form the unreachable tail: live nodes never reference them.
  const dead = objects > 4 && rnd() < 0.5 ? 1 + int(Math.max(1, Math.floor(objects / 4))) : 0;
  const liveEnd = n - dead;

  const cats: number[] = [];
  for (let c = 0; c < categories; c++) cats.push(1 + c);
  b.setNode(0, rootType, 0, cats);
  b.addFlags(0, NODE_PSEUDO);
  const pickLive = (): number => (liveEnd > firstObj ? firstObj + int(liveEnd - firstObj) : 0);
  const pickAny = (): number => int(n);

  for (let c = 1; c <= categories; c++) {
    const refs: number[] = [];
    const k = 1 + int(4);
    for (let i = 0; i < k; i++) refs.push(pickLive());
    b.setNode(c, catType, 0, refs);
    b.addFlags(c, NODE_PSEUDO | (rnd() < 1 / 3 ? NODE_WEAK_EDGES : 0));
  }
  for (let v = firstObj; v < n; v++) {
    const refs: number[] = [];
    const k = int(2 * opts.avgDegree + 1);
    const isDead = v >= liveEnd;
    for (let i = 0; i < k; i++) {
      const roll = rnd();
      let t: number;
      if (roll < 0.05) t = v; // self-edge
      else if (roll < 0.1 && refs.length > 0) t = refs[int(refs.length)]; // duplicate
      else if (isDead) t = roll < 0.6 ? liveEnd + int(dead) : pickAny();
      else t = roll < 0.5 && v + 1 < liveEnd ? v + 1 + int(Math.min(8, liveEnd - v - 1)) : pickLive();
      if (!isDead && t >= liveEnd) t = pickLive();
      refs.push(t);
    }
    b.setNode(v, firstObjType + int(opts.types), int(100), refs);
  }
  return b.finish(emptyMetadata('synthetic'));
}

/**
 * A large heap-like graph for benchmarks, built without a per-node allocation: 8 root
 * categories (one weak) holding ~0.1% of the objects, objects with 1–2000 types (skewed) and
 * 16–272 byte sizes, and `edgesPerNode` references on average, 60% to a node just ahead (so
 * subtrees and long chains form, as in real heaps) and 40% uniform (shared objects, cycles).
 */
export function syntheticHeap(nodes: number, edgesPerNode: number, seed = 1): HeapGraph {
  const rnd = mulberry32(seed);
  const expectedEdges = Math.ceil(nodes * edgesPerNode * 1.05) + 1024;
  const b = new HeapGraphBuilder({ expectedNodes: nodes, expectedEdges });
  const rootType = b.addType('[.NET Roots]');
  const catType = b.addType('[category]');
  const firstObjType = b.typeCount;
  const typeCount = 2000;
  for (let t = 0; t < typeCount; t++) b.addType(`Synthetic.Type${t}`, 'synthetic.dll');
  b.createNodes(nodes);
  b.setRoot(0);
  const categories = 8;
  const firstObj = 1 + categories;
  const objects = nodes - firstObj;
  const children = new Uint32Array(Math.max(64, Math.ceil(objects / 1000) + 8));
  for (let c = 0; c < categories; c++) children[c] = 1 + c;
  b.setNode(0, rootType, 0, children, 0, categories);
  b.addFlags(0, NODE_PSEUDO);
  const perCategory = Math.max(1, Math.floor(objects / 1000 / categories));
  for (let c = 1; c <= categories; c++) {
    for (let i = 0; i < perCategory; i++) children[i] = firstObj + Math.floor(rnd() * objects);
    b.setNode(c, catType, 0, children, 0, perCategory);
    b.addFlags(c, NODE_PSEUDO | (c === categories ? NODE_WEAK_EDGES : 0));
  }
  const maxDegree = Math.max(1, Math.round(2 * edgesPerNode));
  for (let v = firstObj; v < nodes; v++) {
    const k = Math.floor(rnd() * (maxDegree + 1));
    for (let i = 0; i < k; i++) {
      const near = rnd() < 0.6 && v + 1 < nodes;
      children[i] = near ? v + 1 + Math.floor(rnd() * Math.min(64, nodes - v - 1)) : firstObj + Math.floor(rnd() * objects);
    }
    const r = rnd();
    const type = firstObjType + Math.floor(r * r * typeCount);
    b.setNode(v, type, 16 + 8 * Math.floor(rnd() * 33), children, 0, k);
  }
  return b.finish(emptyMetadata('synthetic'));
}

/**
 * The worst case of one type: `n` objects of 'Only.Type' (16–4,111 bytes from a fixed LCG, at
 * address 0x10000 + 32 × ordinal), all directly under the root: one group of N for the grouped
 * dominator tree's instance sort, one item with N children for the Sunburst (`--one-type` of
 * the dominator-groups and dominator-sunburst benchmarks).
 */
export function oneTypeHeap(n: number): HeapGraph {
  const b = new HeapGraphBuilder({ expectedNodes: n + 1, expectedEdges: n });
  const rootType = b.addType('[root]', null, 0);
  const t = b.addType('Only.Type', 'x.dll', 24);
  b.createNodes(n + 1);
  const kids = new Uint32Array(n);
  for (let i = 0; i < n; i++) kids[i] = i + 1;
  b.setNode(0, rootType, 0, kids);
  b.addFlags(0, NODE_PSEUDO);
  let s = 7;
  for (let i = 1; i <= n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    b.setNode(i, t, 16 + (s % 4096), []);
    b.setAddress(i, 0x10000 + i * 32);
  }
  b.setRoot(0);
  return b.finish(emptyMetadata('synthetic'));
}

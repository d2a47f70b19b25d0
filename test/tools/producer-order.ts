import type { HeapGraph } from '../../shared/graph/heap-graph.js';

/**
 * A graph renumbered, and its records ordered, the way dotnet-gcdump's and PerfView's
 * producers write a .gcdump (`npm run gen -- --producer-order`): a node's index is the order in
 * which the heap walk first sees it (as an object or as a reference), the walk describes objects
 * in a depth-first order from the roots (a mark stack), and the root's record comes last. So most
 * records follow index order but many are out of place: the reader's general path for records
 * out of node order (radix sort by offset, the builder's pool copied into node order), which
 * neither a file in node order nor one with just the root last takes.
 *
 * Memory: the graph again (renumbered), plus 12 bytes per node of walk state.
 */
export function producerOrder(g: HeapGraph): { graph: HeapGraph; recordOrder: Uint32Array } {
  const n = g.nodeCount;
  const { firstEdge, edgeTarget } = g;
  const newId = new Int32Array(n).fill(-1);
  const recordOrder = new Uint32Array(n); // new ids, in blob order
  const described = new Uint8Array(n);
  let ids = 0;
  let records = 0;
  const see = (node: number) => {
    if (newId[node] < 0) newId[node] = ids++;
  };
  see(g.rootIndex);
  described[g.rootIndex] = 1; // described last, below
  let stack = new Uint32Array(1024);
  let top = 0;
  const walkFrom = (start: number) => {
    stack[top++] = start;
    while (top > 0) {
      const x = stack[--top];
      if (described[x]) continue;
      described[x] = 1;
      recordOrder[records++] = newId[x];
      for (let e = firstEdge[x]; e < firstEdge[x + 1]; e++) {
        const c = edgeTarget[e];
        see(c);
        if (described[c]) continue;
        if (top === stack.length) {
          const grown = new Uint32Array(stack.length * 2);
          grown.set(stack);
          stack = grown;
        }
        stack[top++] = c;
      }
    }
  };
  for (let e = firstEdge[g.rootIndex]; e < firstEdge[g.rootIndex + 1]; e++) see(edgeTarget[e]);
  for (let e = firstEdge[g.rootIndex]; e < firstEdge[g.rootIndex + 1]; e++) walkFrom(edgeTarget[e]);
  for (let i = 0; i < n; i++) {
    if (described[i]) continue; // unreachable objects: the walk's leftovers, in index order
    see(i);
    walkFrom(i);
  }
  recordOrder[records++] = newId[g.rootIndex];

  const oldOf = new Uint32Array(n);
  for (let i = 0; i < n; i++) oldOf[newId[i]] = i;
  const nodeType = new Uint32Array(n);
  const selfSize = new Uint32Array(n);
  const nodeFlags = new Uint8Array(n);
  const generation = new Uint8Array(n);
  const address = new BigUint64Array(n);
  const first = new Uint32Array(n + 1);
  const targets = new Uint32Array(g.edgeCount);
  let at = 0;
  for (let j = 0; j < n; j++) {
    const i = oldOf[j];
    nodeType[j] = g.nodeType[i];
    selfSize[j] = g.selfSize[i];
    nodeFlags[j] = g.nodeFlags[i];
    generation[j] = g.generation[i];
    address[j] = g.address[i];
    first[j] = at;
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e++) targets[at++] = newId[edgeTarget[e]];
  }
  first[n] = at;
  const graph = { ...g, nodeType, selfSize, nodeFlags, generation, address, firstEdge: first, edgeTarget: targets, rootIndex: newId[g.rootIndex] } as HeapGraph;
  return { graph, recordOrder };
}

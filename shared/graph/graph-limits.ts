import { AppError } from '../errors.js';

/**
 * How big a HeapGraph can be, from the widths of its columns (heap-graph.ts), and the one check
 * every reader's graph passes before a column could overflow (HeapGraphBuilder, graphFromColumns).
 *
 * - Nodes: `address` is two Uint32 words per node in one typed array, and V8's longest typed array
 *   has 2^32 elements, so at most 2^31 nodes; one less keeps node ordinals positive Int32 values
 *   (a .gcdump's node count is an i32 anyway) and NONE (0xffffffff) free as "no node".
 * - References: `firstEdge` is Uint32 and its last entry is the reference count, so at most
 *   2^32 − 1. (The dominator DFS allows fewer: dominators-dfs.ts says why.)
 *
 * Past either, the graph is refused with a coded `format/too-large` error (the counts in its
 * detail) before anything that size is allocated, never a RangeError or a wrapped offset.
 * Sizes in bytes are not limited here: per-node sizes are Uint32, and every sum of them
 * (totalSize, retained sizes, per-type sums) is a double, exact to 2^53 bytes.
 */
export const MAX_GRAPH_NODES = 0x7fffffff;
export const MAX_GRAPH_EDGES = 0xffffffff;
/** V8's longest typed array, in elements (any element type). */
export const MAX_TYPED_ARRAY_LENGTH = 2 ** 32;

/** Throws `format/too-large` when a graph of `nodes` nodes and `edges` references cannot be held. */
export function checkGraphSize(nodes: number, edges: number): void {
  if (nodes > MAX_GRAPH_NODES) {
    throw new AppError('format/too-large', `the snapshot has ${nodes} objects; a graph holds at most ${MAX_GRAPH_NODES} (2^31 − 1)`, { nodes, edges });
  }
  if (edges > MAX_GRAPH_EDGES) {
    throw new AppError('format/too-large', `the snapshot has ${edges} references; a graph holds at most ${MAX_GRAPH_EDGES} (2^32 − 1)`, { nodes, edges });
  }
}

import { NODE_WEAK_EDGES } from '../graph/heap-graph.js';

/**
 * Which references keep an object alive: the one rule shared by every pass that walks "live" edges.
 *
 * A reference counts unless its source node is flagged NODE_WEAK_EDGES (a weak-handle category:
 * the GC clears those references instead of following them). The rule is decided by the source
 * alone, so a pass can skip a weak node's whole edge row at once, and the forward DFS (which
 * reads out-edges) and the backward semidominator scan (which reads retainers) cannot disagree:
 * both call this function on the edge's source (memlab's lesson: two predicates drift apart and
 * produce dominators that are not dominators).
 *
 * Self-edges and duplicate edges count too; they never change dominators, so no pass needs to
 * filter them.
 */
export function countsOutEdges(nodeFlags: Uint8Array, source: number): boolean {
  return (nodeFlags[source] & NODE_WEAK_EDGES) === 0;
}

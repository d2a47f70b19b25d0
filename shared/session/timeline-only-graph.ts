import { HeapGraphBuilder } from '../graph/heap-graph-builder.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { NODE_PSEUDO } from '../graph/heap-graph.js';
import { emptyMetadata } from '../graph/metadata.js';

/**
 * The graph of a trace that holds GC events but no heap snapshot: the synthetic root alone.
 *
 * Opening such a trace is still useful (its GC timeline), so instead of failing the load with
 * `format/no-heap-dump` the session gets this one-node graph and a `no-heap-dump` warning: every
 * heap view is empty (and says so), the GC timeline works.
 */
export function timelineOnlyGraph(): HeapGraph {
  const b = new HeapGraphBuilder({ expectedNodes: 1, expectedEdges: 0 });
  const t = b.addType('[trace without heap snapshot]', null, 0);
  b.createNodes(1);
  b.setNode(0, t, 0, []);
  b.addFlags(0, NODE_PSEUDO);
  b.setRoot(0);
  return b.finish(emptyMetadata('nettrace'));
}

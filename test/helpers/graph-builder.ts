import { HeapGraphBuilder } from '../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NODE_WEAK_EDGES } from '../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../shared/graph/metadata.js';

/**
 * Tiny graphs by name for analysis tests (DevTools' HeapSnapshotBuilder idea).
 *
 *   const t = tinyGraph((b) => {
 *     b.root('[static vars]').ref('A');     // a root category under the synthetic root
 *     b.node('A', 16).ref('B').ref('C');    // type name defaults to the node name
 *     b.node('B', 8, 'Leaf').ref('D');
 *   });
 *   t.id('A')  // ordinal of A
 *
 * Node 0 is always the synthetic root "[root]"; categories are pseudo-nodes of size 0.
 * A node referenced but never declared with b.node() stays UNDEFINED (a dangling object).
 */
export interface TinyGraph {
  graph: HeapGraph;
  id(name: string): number;
  name(node: number): string;
}

interface NodeDecl {
  name: string;
  size: number;
  type: string;
  refs: string[];
  flags: number;
}

export interface TinyBuilder {
  root(category: string, opts?: { weak?: boolean }): NodeHandle;
  node(name: string, size: number, type?: string): NodeHandle;
}

export interface NodeHandle {
  ref(...names: string[]): NodeHandle;
}

export function tinyGraph(define: (b: TinyBuilder) => void): TinyGraph {
  const decls = new Map<string, NodeDecl>();
  const order: string[] = ['[root]'];
  const rootDecl: NodeDecl = { name: '[root]', size: 0, type: '[root]', refs: [], flags: NODE_PSEUDO };
  decls.set('[root]', rootDecl);
  const handle = (d: NodeDecl): NodeHandle => {
    const h: NodeHandle = {
      ref(...names) {
        d.refs.push(...names);
        return h;
      },
    };
    return h;
  };
  const declare = (d: NodeDecl): NodeDecl => {
    const existing = decls.get(d.name);
    if (existing) {
      existing.size = d.size;
      existing.type = d.type;
      existing.flags |= d.flags;
      return existing;
    }
    decls.set(d.name, d);
    order.push(d.name);
    return d;
  };
  define({
    root(category, opts) {
      const d = declare({ name: category, size: 0, type: category, refs: [], flags: NODE_PSEUDO | (opts?.weak ? NODE_WEAK_EDGES : 0) });
      if (!rootDecl.refs.includes(category)) rootDecl.refs.push(category);
      return handle(d);
    },
    node(name, size, type) {
      return handle(declare({ name, size, type: type ?? name, refs: [], flags: 0 }));
    },
  });
  // names referenced but never declared become undefined nodes
  for (const d of [...decls.values()]) for (const r of d.refs) if (!decls.has(r)) {
    decls.set(r, { name: r, size: -1, type: 'UNDEFINED', refs: [], flags: 0 });
    order.push(r);
  }
  const b = new HeapGraphBuilder();
  const typeIndex = new Map<string, number>([['UNDEFINED', 0]]);
  const ids = new Map<string, number>();
  b.createNodes(order.length);
  order.forEach((name, i) => ids.set(name, i));
  order.forEach((name, i) => {
    const d = decls.get(name)!;
    if (d.size < 0) return; // undefined
    let t = typeIndex.get(d.type);
    if (t === undefined) {
      t = b.addType(d.type, d.flags & NODE_PSEUDO ? null : 'tiny.dll', d.size);
      typeIndex.set(d.type, t);
    }
    b.setNode(i, t, d.size, d.refs.map((r) => ids.get(r)!));
    b.setAddress(i, d.flags & NODE_PSEUDO ? 0 : 0x1000 + i * 0x10);
    if (d.flags) b.addFlags(i, d.flags);
  });
  b.setRoot(0);
  const graph = b.finish(emptyMetadata('synthetic'));
  return {
    graph,
    id(name) {
      const v = ids.get(name);
      if (v === undefined) throw new Error(`no node named ${name}`);
      return v;
    },
    name(node) {
      return order[node];
    },
  };
}

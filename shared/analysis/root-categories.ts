import type { HeapGraph } from '../graph/heap-graph.js';
import { NODE_PSEUDO } from '../graph/heap-graph.js';

/**
 * What hangs below the synthetic root: "[static vars]", "[local vars]", "[other roots]" →
 * "[strong Handles]", … (dotnet-gcdump), "[Strong handles]", "[Pinned handles]" (PerfView), or
 * plain objects (a JS heap's "[JS Roots]").
 *
 * A root child is expanded one more level when it is a pure group of categories: a pseudo-node
 * all of whose children are pseudo-nodes other than static-variable holders ("[other roots]").
 * "[static vars]" is never expanded (its children are one holder per static field, thousands).
 *
 * Counts are references (out-degree), not distinct targets: "[local vars]" may list the same
 * object several times and dotnet-gcdump keeps those duplicates. Cost: O(root children + their
 * children); it never walks the heap.
 */
export interface RootCategory {
  name: string;
  node: number;
  /** Direct references of this node. */
  childCount: number;
  pseudo: boolean;
  /** Sub-categories when this is a group like "[other roots]", else null. */
  children: RootCategory[] | null;
}

export interface RootCount {
  /** Category path, e.g. "[static vars]" or "[other roots]/[strong Handles]"; the root's own name for objects directly below it. */
  category: string;
  /** References from that category (for "[static vars]": static-variable holders). */
  count: number;
}

export interface RootSummary {
  rootName: string;
  categories: RootCategory[];
  /** Leaf categories with their reference counts, in root order. */
  byCategory: RootCount[];
}

const STATIC_VAR_HOLDER = /^\[(thread )?static var /;

export function rootCategories(g: HeapGraph): RootSummary {
  const names = g.types.names;
  const { firstEdge, edgeTarget, nodeFlags, nodeType } = g;
  const root = g.rootIndex;
  const describe = (node: number): RootCategory => ({
    name: names[nodeType[node]],
    node,
    childCount: firstEdge[node + 1] - firstEdge[node],
    pseudo: (nodeFlags[node] & NODE_PSEUDO) !== 0,
    children: null,
  });
  const isGroup = (node: number): boolean => {
    if ((nodeFlags[node] & NODE_PSEUDO) === 0) return false;
    const end = firstEdge[node + 1];
    if (end === firstEdge[node]) return false;
    for (let e = firstEdge[node]; e < end; e++) {
      const c = edgeTarget[e];
      if ((nodeFlags[c] & NODE_PSEUDO) === 0 || STATIC_VAR_HOLDER.test(names[nodeType[c]])) return false;
    }
    return true;
  };

  const categories: RootCategory[] = [];
  const byCategory: RootCount[] = [];
  const rootName = names[nodeType[root]];
  let directObjects = 0;
  for (let e = firstEdge[root]; e < firstEdge[root + 1]; e++) {
    const child = edgeTarget[e];
    const cat = describe(child);
    if (child !== root && isGroup(child)) {
      cat.children = [];
      for (let f = firstEdge[child]; f < firstEdge[child + 1]; f++) {
        const sub = describe(edgeTarget[f]);
        cat.children.push(sub);
        byCategory.push({ category: `${cat.name}/${sub.name}`, count: sub.childCount });
      }
    } else if (cat.pseudo) {
      byCategory.push({ category: cat.name, count: cat.childCount });
    } else {
      directObjects++;
    }
    categories.push(cat);
  }
  if (directObjects > 0) byCategory.push({ category: rootName, count: directObjects });
  return { rootName, categories, byCategory };
}

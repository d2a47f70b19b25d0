import type { HeapAnalysis } from '../analysis/analyze.js';
import { isPseudo } from '../analysis/paths-to-roots.js';
import { AppError } from '../errors.js';
import type { DominatorRow, DominatorTypeGroupRow, RowWindow } from '../ipc/contract.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import { OrderCache, windowOf } from './row-order.js';
import { sortIdsByKeyDesc } from './retained-order.js';

/**
 * The dominator tree grouped by type (MAT's "group by class"), issue 14.
 *
 * A type's group holds its OUTERMOST instances: reachable objects of the type that no other
 * object of the same type dominates (the graph's root node is the tree's top, not a row, and is
 * in no group). Dominator subtrees are nested or disjoint, so the outermost instances' subtrees
 * are disjoint and Σ of their retained sizes counts every byte once: it is exactly the type's
 * retained size of type-retained.ts (typeRetained: the Types view's "Retained size"; summed here
 * from the instances, which gives the same number for every type but the root node's own).
 * Expanding a group lists those instances, largest retained first; expanding an instance is the
 * ordinary dominatorChildren query, so nested instances of the type appear under their outer one.
 *
 * Cost, on first use per analysis: one iterative walk of the dominator tree (open[t] counts the
 * instances of t on the current root→node chain, as in type-retained.ts) marking outermost nodes
 * in a Uint8Array (1 byte per node), then a counting sort by type into a CSR of the marked nodes
 * (4 bytes per outermost node + 4 per type). A group's instance order is sorted on first
 * expansion (a radix sort, retained-order.ts) and kept in a small LRU; every window is then a slice.
 */
interface Groups {
  readonly analysis: HeapAnalysis;
  /** Outermost instances of type t: nodes[first[t] .. first[t + 1]), ascending ordinal. */
  readonly first: Uint32Array;
  readonly nodes: Uint32Array;
  /** Σ retained size of type t's outermost instances (= typeRetained[t] for every type but the root node's). */
  readonly retained: Float64Array;
  /** Types with at least one outermost instance, by retained size desc, ties by type index. */
  readonly order: Uint32Array;
}

export class GroupedDominatorView {
  private groups: Groups | null = null;
  private readonly cache = new OrderCache(8);

  constructor(
    private readonly g: HeapGraph,
    private readonly dominatorRow: (a: HeapAnalysis, n: number) => DominatorRow,
    private readonly totalSize: number,
  ) {}

  /** Type groups, largest retained size first. */
  groupRows(a: HeapAnalysis, start: number, end: number, token: CancellationToken = NEVER_CANCELLED): RowWindow<DominatorTypeGroupRow> {
    const gr = this.groupsOf(a, token);
    return windowOf(gr.order, start, end, (t) => this.groupRow(a, gr, t));
  }

  /** Outermost instances of `typeIndex`, largest retained size first (ties by ascending ordinal). */
  instances(a: HeapAnalysis, typeIndex: number, start: number, end: number, token: CancellationToken = NEVER_CANCELLED): RowWindow<DominatorRow> {
    if (!Number.isInteger(typeIndex) || typeIndex < 0 || typeIndex >= this.g.types.count) {
      throw new AppError('usage/bad-argument', `no type with index ${typeIndex}`);
    }
    const gr = this.groupsOf(a, token);
    const order = this.cache.get(String(typeIndex), () => sortIdsByKeyDesc(gr.nodes.slice(gr.first[typeIndex], gr.first[typeIndex + 1]), a.retainedSize));
    return windowOf(order, start, end, (n) => this.dominatorRow(a, n));
  }

  /** The outermost instances of every type (CSR, ascending ordinal per type): tests and exports. */
  outermost(a: HeapAnalysis, token: CancellationToken = NEVER_CANCELLED): { first: Uint32Array; nodes: Uint32Array } {
    const gr = this.groupsOf(a, token);
    return { first: gr.first, nodes: gr.nodes };
  }

  private groupRow(a: HeapAnalysis, gr: Groups, t: number): DominatorTypeGroupRow {
    const retained = gr.retained[t];
    return {
      typeIndex: t,
      type: this.g.types.names[t],
      count: gr.first[t + 1] - gr.first[t],
      reachableCount: a.typeReachableCount[t],
      retainedSize: retained,
      retainedPercent: this.totalSize > 0 ? (retained / this.totalSize) * 100 : 0,
      pseudo: isPseudo(this.g, gr.nodes[gr.first[t]]),
    };
  }

  private groupsOf(a: HeapAnalysis, token: CancellationToken): Groups {
    if (this.groups?.analysis === a) return this.groups;
    this.cache.clear();
    this.groups = null; // a new analysis (computed again): drop the old one's arrays first
    this.groups = computeGroups(this.g, a, token);
    return this.groups;
  }
}

function computeGroups(g: HeapGraph, a: HeapAnalysis, token: CancellationToken): Groups {
  const n = g.nodeCount;
  const tc = g.types.count;
  const nodeType = g.nodeType;
  const outer = markOutermost(g, a, token);

  const first = new Uint32Array(tc + 1);
  for (let v = 0; v < n; v++) if (outer[v]) first[nodeType[v] + 1]++;
  for (let t = 0; t < tc; t++) first[t + 1] += first[t];
  const fill = first.slice(0, tc);
  const nodes = new Uint32Array(first[tc]);
  for (let v = 0; v < n; v++) {
    if ((v & 0xffff) === 0) token.throwIfCancelled();
    if (outer[v]) nodes[fill[nodeType[v]]++] = v;
  }
  // Summed here rather than read from typeRetained: the same numbers, except for the root node's
  // type, whose typeRetained counts the root (the whole heap) although the root is in no group.
  const retained = new Float64Array(tc);
  const rs = a.retainedSize;
  for (let t = 0; t < tc; t++) {
    let sum = 0;
    for (let i = first[t]; i < first[t + 1]; i++) sum += rs[nodes[i]];
    retained[t] = sum;
  }
  let k = 0;
  for (let t = 0; t < tc; t++) if (first[t + 1] > first[t]) k++;
  const order = new Uint32Array(k);
  k = 0;
  for (let t = 0; t < tc; t++) if (first[t + 1] > first[t]) order[k++] = t;
  order.sort((x, y) => retained[y] - retained[x] || x - y);
  return { analysis: a, first, nodes, retained, order };
}

/**
 * outer[v] = 1 when v is reachable, not the root, and no proper dominator of v has v's type.
 *
 * One iterative DFS of the dominator tree (no recursion: chains are thousands deep) keeping
 * open[t] = instances of t on the current root→node chain. It runs over tree positions (the
 * analysis' DFS preorder), with each node's type and its children's positions gathered first in
 * sequential passes, and with children visited in ascending position (a counting sort by parent
 * position, as in type-retained.ts): walking node columns through domChildren instead chases
 * random addresses one dependent load after another, several times slower on a big heap.
 * Transient memory: 16 bytes per reachable node plus a stack of 8 bytes per tree level.
 */
function markOutermost(g: HeapGraph, a: HeapAnalysis, token: CancellationToken): Uint8Array {
  const nodeType = g.nodeType;
  const n = g.nodeCount;
  const { treePosition, idom } = a;
  const r = a.treeChildStart.length - 1; // reachable nodes; position 0 is the root
  const order = new Uint32Array(r);
  for (let v = 0; v < n; v++) {
    if ((v & 0xffff) === 0) token.throwIfCancelled();
    const p = treePosition[v];
    if (p !== NONE) order[p] = v;
  }
  // children by parent position (counting sort; filled backwards so each run ascends)
  const posType = new Uint32Array(r);
  const firstChild = new Uint32Array(r + 1);
  const parent = new Uint32Array(r);
  for (let p = 0; p < r; p++) {
    if ((p & 0xffff) === 0) token.throwIfCancelled();
    const v = order[p];
    posType[p] = nodeType[v];
    if (p === 0) continue;
    const q = treePosition[idom[v]];
    parent[p] = q;
    firstChild[q + 1]++;
  }
  for (let p = 0; p < r; p++) firstChild[p + 1] += firstChild[p];
  const fill = firstChild.slice(1); // run ends, walked down to run starts
  const kids = new Uint32Array(Math.max(0, r - 1));
  for (let p = r - 1; p >= 1; p--) kids[--fill[parent[p]]] = p;

  const outerPos = new Uint8Array(r);
  const open = new Int32Array(g.types.count);
  let stackPos: Uint32Array = new Uint32Array(1024);
  let stackNext: Uint32Array = new Uint32Array(1024);
  let sp = 0;
  let visited = 0;
  let p = 0;
  for (;;) {
    // enter p (the root counts as no instance: it is above the rows)
    if (p !== 0) {
      const t = posType[p];
      if (open[t] === 0) outerPos[p] = 1;
      open[t]++;
    }
    if ((++visited & 0xffff) === 0) token.throwIfCancelled();
    if (sp === stackPos.length) {
      stackPos = grow(stackPos);
      stackNext = grow(stackNext);
    }
    stackPos[sp] = p;
    stackNext[sp] = firstChild[p];
    sp++;
    let next = -1;
    while (sp > 0) {
      const top = sp - 1;
      const u = stackPos[top];
      const c = stackNext[top];
      if (c < firstChild[u + 1]) {
        stackNext[top] = c + 1;
        next = kids[c];
        break;
      }
      if (u !== 0) open[posType[u]]--;
      sp--;
    }
    if (next < 0) break;
    p = next;
  }
  const outer = new Uint8Array(n);
  for (let q = 1; q < r; q++) if (outerPos[q]) outer[order[q]] = 1;
  return outer;
}

function grow(a: Uint32Array): Uint32Array {
  const b = new Uint32Array(a.length * 2);
  b.set(a);
  return b;
}

import type { HeapAnalysis } from '../analysis/analyze.js';
import { childRange } from '../analysis/dominator-tree.js';
import { isPseudo } from '../analysis/paths-to-roots.js';
import { AppError } from '../errors.js';
import type { DominatorRow, DominatorTypeGroupRow, RowWindow } from '../ipc/contract.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import { OrderCache, sortByNumber, windowOf } from './row-order.js';

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
 * expansion (O(k log k)) and kept in a small LRU; every window is then a slice.
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
    const order = this.cache.get(String(typeIndex), () => sortByNumber(gr.nodes.slice(gr.first[typeIndex], gr.first[typeIndex + 1]), a.retainedSize, 'desc', null));
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
 * Iterative DFS over the sorted dominator tree (no recursion: chains are thousands deep).
 */
function markOutermost(g: HeapGraph, a: HeapAnalysis, token: CancellationToken): Uint8Array {
  const nodeType = g.nodeType;
  const root = g.rootIndex;
  const outer = new Uint8Array(g.nodeCount);
  const open = new Int32Array(g.types.count);
  const { domChildren } = a;
  let stackNode: Uint32Array = new Uint32Array(1024);
  let stackNext: Uint32Array = new Uint32Array(1024);
  let stackEnd: Uint32Array = new Uint32Array(1024);
  let sp = 0;
  let visited = 0;
  let v = root;
  for (;;) {
    // enter v (the root counts as no instance: it is above the rows)
    if (v !== root) {
      const t = nodeType[v];
      if (open[t] === 0) outer[v] = 1;
      open[t]++;
    }
    if ((++visited & 0xffff) === 0) token.throwIfCancelled();
    if (sp === stackNode.length) {
      stackNode = grow(stackNode);
      stackNext = grow(stackNext);
      stackEnd = grow(stackEnd);
    }
    const range = childRange(a, v);
    stackNode[sp] = v;
    stackNext[sp] = range.start;
    stackEnd[sp] = range.end;
    sp++;
    let next = -1;
    while (sp > 0) {
      const top = sp - 1;
      const c = stackNext[top];
      if (c < stackEnd[top]) {
        stackNext[top] = c + 1;
        next = domChildren[c];
        break;
      }
      const u = stackNode[top];
      if (u !== root) open[nodeType[u]]--;
      sp--;
    }
    if (next < 0) break;
    v = next;
  }
  return outer;
}

function grow(a: Uint32Array): Uint32Array {
  const b = new Uint32Array(a.length * 2);
  b.set(a);
  return b;
}

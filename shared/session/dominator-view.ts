import type { HeapAnalysis } from '../analysis/analyze.js';
import { dominatorChildCount, dominatorChildren, dominatorPath } from '../analysis/dominator-tree.js';
import { isPseudo } from '../analysis/paths-to-roots.js';
import { AppError } from '../errors.js';
import type { DominatorPath, DominatorRow, RowWindow } from '../ipc/contract.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { stringPreviewOf } from '../graph/string-values.js';
import { clipWindow } from './row-order.js';

/**
 * Dominator-tree windows: slices of CSR arrays the analysis already built (children sorted by
 * retained size desc), so a window costs O(end − start): no sort, no cache. (Reference windows
 * moved to object-inspector-view.ts.)
 */
export class DominatorView {
  constructor(
    private readonly g: HeapGraph,
    private readonly hex: (n: number) => string,
    private readonly totalSize: number,
  ) {}

  /** Children of `node` (null = the root), largest retained first. */
  children(a: HeapAnalysis, node: number | null, start: number, end: number): RowWindow<DominatorRow> {
    const parent = node ?? this.g.rootIndex;
    checkNode(this.g, parent);
    const total = dominatorChildCount(a, parent);
    const w = clipWindow(start, end, total);
    const kids = dominatorChildren(a, parent, w.start, w.end);
    const rows: DominatorRow[] = [];
    for (let i = 0; i < kids.length; i++) rows.push(this.row(a, kids[i]));
    return { start: w.start, end: w.end, total, rows };
  }

  /** The dominator chain root → node ([node] alone when it is unreachable). */
  path(a: HeapAnalysis, node: number): DominatorPath {
    checkNode(this.g, node);
    const chain = dominatorPath(a.idom, node);
    const path: DominatorRow[] = [];
    for (let i = 0; i < chain.length; i++) path.push(this.row(a, chain[i]));
    return { path };
  }

  row(a: HeapAnalysis, n: number): DominatorRow {
    const g = this.g;
    const t = g.nodeType[n];
    const retained = a.retainedSize[n];
    return {
      node: n,
      typeIndex: t,
      type: g.types.names[t],
      address: this.hex(n),
      size: g.selfSize[n],
      retainedSize: retained,
      retainedPercent: this.totalSize > 0 ? (retained / this.totalSize) * 100 : 0,
      childCount: dominatorChildCount(a, n),
      pseudo: isPseudo(g, n),
      ...(g.nodeStringValue ? { preview: stringPreviewOf(g, n) } : {}),
    };
  }
}

export function checkNode(g: HeapGraph, node: number): void {
  if (!Number.isInteger(node) || node < 0 || node >= g.nodeCount) {
    throw new AppError('usage/bad-argument', `no node with ordinal ${node} (the snapshot has ${g.nodeCount})`);
  }
}

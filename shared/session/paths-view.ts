import type { HeapAnalysis } from '../analysis/analyze.js';
import { describePath, findRetentionPaths, shortestPathTree, type RetentionPath, type ShortestPathTree } from '../analysis/paths-to-roots.js';
import { typeMaskByName, typePathTree, type TypePathBranch } from '../analysis/type-path-tree.js';
import { AppError } from '../errors.js';
import type { PathsToRoots, PathsToRootsReq, RetentionPathDto, TypePathNode } from '../ipc/contract.js';
import { GEN_FROZEN, type HeapGraph } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import { checkNode } from './dominator-view.js';

/**
 * "Why is this alive?" for one object (shortest + k distinct paths) or for a whole type (the merged
 * shortest-path tree). Both start from one BFS from the root (paths-to-roots.ts), computed on the
 * first question and kept: 8 bytes per node.
 */
export const MAX_PATHS = 50;
export const DEFAULT_PATHS = 5;

export class PathsView {
  private spt: ShortestPathTree | null = null;

  constructor(private readonly g: HeapGraph) {}

  /** Object paths need the analysis' retainers; type trees only the BFS. */
  static needsAnalysis(req: Pick<PathsToRootsReq, 'target'>): boolean {
    return req.target.kind === 'object';
  }

  paths(req: Omit<PathsToRootsReq, 'sessionId'>, a: HeapAnalysis | null, token: CancellationToken = NEVER_CANCELLED): PathsToRoots {
    const g = this.g;
    const spt = (this.spt ??= shortestPathTree(g, { token }));
    const target = req.target;
    if (target.kind === 'object') {
      checkNode(g, target.node);
      if (!a) throw new AppError('usage/bad-argument', 'object paths need the analysis');
      const maxPaths = Math.min(MAX_PATHS, Math.max(1, req.maxPaths ?? DEFAULT_PATHS));
      const found = findRetentionPaths(g, target.node, spt, a.retainers, { maxPaths, token });
      const paths = found.paths.map((p) => retentionPathDto(describePath(g, p)));
      return { kind: 'object', node: target.node, reachable: found.reachable, frozen: g.generation[target.node] === GEN_FROZEN, paths, truncated: found.truncated };
    }
    const t = target.typeIndex;
    if (!Number.isInteger(t) || t < 0 || t >= g.types.count) throw new AppError('usage/bad-argument', `no type with index ${t}`);
    const name = g.types.names[t];
    const tree = typePathTree(g, spt, typeMaskByName(g, name), { token });
    return {
      kind: 'type',
      typeIndex: t,
      type: name,
      instances: tree.instances,
      reachable: tree.reachable,
      unreachable: tree.unreachable,
      unreachableFrozen: tree.unreachableFrozen,
      nodes: flattenTypePathTree(tree.roots),
      incomplete: tree.incomplete,
    };
  }
}

/** The contract's form of a described path (the app's paths view and `heapscope paths --format csv` share it). */
export function retentionPathDto(d: RetentionPath): RetentionPathDto {
  return {
    length: d.length,
    rootCategory: d.rootCategory,
    rootDetail: d.rootDetail,
    steps: d.steps.map((s) => ({ node: s.node, type: s.typeName, address: s.address, size: s.selfSize, pseudo: s.pseudo, ...(s.preview !== undefined ? { preview: s.preview } : {}) })),
  };
}

/** Depth-first rows, a parent before its children, with an explicit stack (the tree is small: bounded breadth and depth). */
export function flattenTypePathTree(roots: readonly TypePathBranch[]): TypePathNode[] {
  const nodes: TypePathNode[] = [];
  const stack: { b: TypePathBranch; parent: number | null; depth: number }[] = [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ b: roots[i], parent: null, depth: 0 });
  while (stack.length > 0) {
    const { b, parent, depth } = stack.pop()!;
    const id = nodes.length;
    nodes.push({
      id,
      parent,
      depth,
      type: b.typeName,
      count: b.count,
      endsHere: b.endsHere,
      cutOff: b.cutOff,
      omittedBranches: b.omittedBranches,
      omittedCount: b.omittedCount,
    });
    for (let i = b.children.length - 1; i >= 0; i--) stack.push({ b: b.children[i], parent: id, depth: depth + 1 });
  }
  return nodes;
}

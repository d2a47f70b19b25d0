import type { RetentionPathDto, TypePathNode } from '../../../shared/ipc/contract';

/**
 * "Why is this alive?" trees: the target at the top, its retainers below it, GC roots at the
 * leaves. An object's k shortest paths are merged on common suffixes (same retainer chain from
 * the target), so five paths through one static field show as one branch with count 5. A type's
 * tree already comes merged from the back end; both end up in one flat parent-linked list.
 */
export interface PathTreeNode {
  id: string;
  parent: string | null;
  label: string;
  /** Secondary text: an address, or the root's detail. */
  sub: string;
  /** Paths (object mode) or target objects (type mode) passing through this node. */
  count: number;
  size: number | null;
  isRoot: boolean;
  pseudo: boolean;
  /** Type mode: objects whose shortest path reaches a root at this node. */
  endsHere: number;
  /** A synthetic row standing for branches or objects the back end did not list. */
  elided: boolean;
  /** Object mode: the object (node ordinal) this row is, for the inspector; absent for roots, pseudo-nodes and type rows. */
  object?: number;
  /**
   * Object mode ("what if", issue 16): the node of this row, pseudo-nodes included (the root row:
   * its root category's node; absent for the synthetic root itself), and the node of the row above,
   * which this row's node references along the path.
   */
  step?: number;
  refersTo?: number;
  /** Process dumps: a string's value, quoted and short (the back end's preview). */
  preview?: string;
}

export function mergeObjectPaths(paths: readonly RetentionPathDto[]): PathTreeNode[] {
  const out: PathTreeNode[] = [];
  const byId = new Map<string, PathTreeNode>();
  const add = (n: PathTreeNode) => {
    const had = byId.get(n.id);
    if (had) {
      had.count += 1;
      return;
    }
    byId.set(n.id, n);
    out.push(n);
  };
  for (const p of paths) {
    let parent: string | null = null;
    for (let i = p.steps.length - 1; i >= 0; i--) {
      const s = p.steps[i];
      const id: string = `${parent ?? ''}/${s.node}`;
      const what = { ...(i > 0 ? { step: s.node } : {}), ...(i < p.steps.length - 1 ? { refersTo: p.steps[i + 1].node } : {}) };
      add({ id, parent, label: s.type, sub: s.address, count: 1, size: s.size, isRoot: false, pseudo: s.pseudo, endsHere: 0, elided: false, ...(s.pseudo ? {} : { object: s.node }), ...(s.preview !== undefined ? { preview: s.preview } : {}), ...what });
      parent = id;
    }
    const rootLabel = p.rootCategory ?? 'GC root';
    const category = p.steps.length > 1 && p.steps[1].pseudo ? { step: p.steps[1].node } : {};
    add({ id: `${parent ?? ''}/root:${rootLabel}:${p.rootDetail ?? ''}`, parent, label: rootLabel, sub: p.rootDetail ?? '', count: 1, size: null, isRoot: true, pseudo: true, endsHere: 1, elided: false, ...category });
  }
  return out;
}

/**
 * The back end's merged type tree (depth-first, parents first). Branches it did not list (breadth
 * bound) and objects it stopped following (depth bound) become explicit "… more" rows, so the
 * counts under a node still add up to the node's count.
 */
export function fromTypeNodes(nodes: readonly TypePathNode[]): PathTreeNode[] {
  const out: PathTreeNode[] = [];
  const elided: PathTreeNode[] = []; // appended last so they sort after the real siblings
  for (const n of nodes) {
    const id = String(n.id);
    const rootish = /^\[.*\]$/.test(n.type); // "[static vars]", "[Strong handles]": GC root categories
    out.push({ id, parent: n.parent === null ? null : String(n.parent), label: n.type, sub: '', count: n.count, size: null, isRoot: rootish, pseudo: rootish, endsHere: n.endsHere, elided: false });
    if (n.omittedBranches > 0) {
      elided.push({ id: `${id}/omitted`, parent: id, label: `${n.omittedBranches} more retaining ${n.omittedBranches === 1 ? 'type' : 'types'} not listed`, sub: '', count: n.omittedCount, size: null, isRoot: false, pseudo: true, endsHere: 0, elided: true });
    }
    if (n.cutOff > 0) {
      elided.push({ id: `${id}/cut`, parent: id, label: 'paths not followed further (depth limit)', sub: '', count: n.cutOff, size: null, isRoot: false, pseudo: true, endsHere: 0, elided: true });
    }
  }
  return out.concat(elided);
}

export interface VisibleTreeRow {
  node: PathTreeNode;
  depth: number;
  hasChildren: boolean;
  expanded: boolean;
}

/** Children lists in input order (the back end sends them largest first). */
export function childIndex(nodes: readonly PathTreeNode[]): Map<string | null, PathTreeNode[]> {
  const m = new Map<string | null, PathTreeNode[]>();
  for (const n of nodes) {
    const list = m.get(n.parent);
    if (list) list.push(n);
    else m.set(n.parent, [n]);
  }
  return m;
}

/** Rows to show given the expanded set; explicit stack, no recursion (chains can be long). */
export function visibleRows(kids: Map<string | null, PathTreeNode[]>, expanded: ReadonlySet<string>): VisibleTreeRow[] {
  const out: VisibleTreeRow[] = [];
  const stack: { list: PathTreeNode[]; i: number; depth: number }[] = [{ list: kids.get(null) ?? [], i: 0, depth: 0 }];
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.i >= top.list.length) {
      stack.pop();
      continue;
    }
    const n = top.list[top.i++];
    const children = kids.get(n.id) ?? [];
    const open = expanded.has(n.id);
    out.push({ node: n, depth: top.depth, hasChildren: children.length > 0, expanded: open });
    if (open && children.length) stack.push({ list: children, i: 0, depth: top.depth + 1 });
  }
  return out;
}

/** Expand everything when small; otherwise the first `depth` levels. */
export function initialExpansion(nodes: readonly PathTreeNode[], limit = 400, depth = 3): Set<string> {
  if (nodes.length <= limit) return new Set(nodes.map((n) => n.id));
  const depthOf = new Map<string, number>();
  const open = new Set<string>();
  for (const n of nodes) {
    const d = n.parent === null ? 0 : (depthOf.get(n.parent) ?? 0) + 1;
    depthOf.set(n.id, d);
    if (d < depth) open.add(n.id);
  }
  return open;
}

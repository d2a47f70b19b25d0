import type { DominatorRow, RowWindow } from '../../../shared/ipc/contract';
import type { RowMenuTarget } from '../grids/use-row-menu';

/**
 * The part of the dominator tree the user has opened, flattened into grid rows.
 *
 * Only expanded nodes have children loaded, one window (`PAGE` rows, largest retained first) at a
 * time; a "show more" row stands for the rest. Memory is proportional to what the user opened,
 * never to the heap. A node appears at most once in a dominator tree, so its ordinal is a stable
 * row id. Flattening walks the expanded nodes with an explicit stack (no recursion: a chain of
 * thousands of single-child dominators is common, e.g. linked lists).
 */
export const PAGE = 200;
export type ParentKey = number | 'root';

export interface TreeRow {
  id: string;
  kind: 'node' | 'more';
  depth: number;
  parent: ParentKey;
  row: DominatorRow | null;
  expanded: boolean;
  /** For 'more' rows: children not loaded yet. */
  remaining: number;
}

interface Children {
  items: DominatorRow[];
  /** Children the server has. */
  total: number;
  /** How many rows of the server's order are loaded. */
  loaded: number;
  /** Rows placed by `reveal` ahead of their window (shown after the loaded ones until their page arrives). */
  pinned: Set<number>;
}

export class DominatorTreeModel {
  private readonly children = new Map<ParentKey, Children>();
  private readonly expanded = new Set<number>();

  constructor(private readonly fetchWindow: (parent: number | null, start: number, end: number) => Promise<RowWindow<DominatorRow>>) {}

  hasChildren(key: ParentKey): boolean {
    return this.children.has(key);
  }

  isExpanded(node: number): boolean {
    return this.expanded.has(node);
  }

  /** Load the first window of `key`'s children if not loaded yet. */
  async ensureChildren(key: ParentKey): Promise<void> {
    if (this.children.has(key)) return;
    const w = await this.fetchWindow(key === 'root' ? null : key, 0, PAGE);
    this.children.set(key, { items: w.rows.slice(), total: w.total, loaded: w.rows.length, pinned: new Set() });
  }

  /** Next window of children (the "show more" row). */
  async loadMore(key: ParentKey): Promise<void> {
    const c = this.children.get(key);
    if (!c || c.loaded >= c.total) return;
    const w = await this.fetchWindow(key === 'root' ? null : key, c.loaded, c.loaded + PAGE);
    const arriving = new Set(w.rows.map((r) => r.node));
    // pinned rows that arrive in their real place move there
    const kept = c.items.filter((r) => !(c.pinned.has(r.node) && arriving.has(r.node)));
    const regular = kept.filter((r) => !c.pinned.has(r.node));
    const pinned = kept.filter((r) => c.pinned.has(r.node));
    for (const n of arriving) c.pinned.delete(n);
    c.items = [...regular, ...w.rows, ...pinned];
    c.loaded += w.rows.length;
    c.total = w.total;
  }

  async expand(node: number): Promise<void> {
    await this.ensureChildren(node);
    this.expanded.add(node);
  }

  collapse(node: number): void {
    this.expanded.delete(node);
  }

  /**
   * Open every ancestor of the path's last node so it becomes visible. `path` is root first, as
   * dominatorPath gives it: path[0] is the graph's root node, whose children are the top level,
   * so it is never a row (for an unreachable object the path is that object alone, which is in no
   * row either). The walk therefore starts at path[1]. (It used to start at the first entry found
   * among the loaded top-level rows, falling back to path[0]: the root was then pinned as a row
   * among its own children whenever the top-level ancestor lay beyond the first window, or when
   * the root's own breadcrumb was clicked — issue 14.) A path node outside its parent's loaded
   * window is pinned after the loaded children.
   */
  async reveal(path: readonly DominatorRow[]): Promise<void> {
    await this.ensureChildren('root');
    let parent: ParentKey = 'root';
    for (let i = 1; i < path.length; i++) {
      const step = path[i];
      await this.ensureChildren(parent);
      const c = this.children.get(parent)!;
      if (!c.items.some((r) => r.node === step.node)) {
        c.items.push(step);
        c.pinned.add(step.node);
      }
      if (i < path.length - 1) await this.expand(step.node);
      parent = step.node;
    }
  }

  /** Visible rows in display order. Cost: O(visible rows). */
  flatten(): TreeRow[] {
    const out: TreeRow[] = [];
    const stack: { key: ParentKey; depth: number; i: number }[] = [{ key: 'root', depth: 0, i: 0 }];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const c = this.children.get(top.key);
      if (!c || top.i >= c.items.length) {
        stack.pop();
        if (c && c.loaded < c.total) {
          out.push({ id: `more-${top.key}`, kind: 'more', depth: top.depth, parent: top.key, row: null, expanded: false, remaining: c.total - c.loaded });
        }
        continue;
      }
      const r = c.items[top.i++];
      const open = this.expanded.has(r.node);
      out.push({ id: String(r.node), kind: 'node', depth: top.depth, parent: top.key, row: r, expanded: open, remaining: 0 });
      if (open) stack.push({ key: r.node, depth: top.depth + 1, i: 0 });
    }
    return out;
  }
}

/**
 * The row menu of a dominator tree row: an object's object menu, with the "what if" (issue 16)
 * Ignore references from this type (the row's dominator is not a referrer of it, so there is no
 * Ignore this reference); a pseudo-node row (a root category such as [static vars] or
 * [finalizer Handles]; the graph's root is never a row) gets Ignore root category only; "more"
 * rows have none.
 */
export function treeRowMenuTarget(t: TreeRow): RowMenuTarget {
  const r = t.kind === 'node' ? t.row : null;
  if (!r) return null;
  return r.pseudo ? { object: { node: r.node, address: '', rootCategory: r.type } } : { object: { node: r.node, address: r.address, ignoreType: true, typeIndex: r.typeIndex } };
}

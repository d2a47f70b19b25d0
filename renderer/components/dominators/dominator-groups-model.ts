import type { DominatorRow, DominatorTypeGroupRow, RowWindow } from '../../../shared/ipc/contract';
import type { RowMenuTarget } from '../grids/use-row-menu';
import { DominatorTreeModel, PAGE, treeRowMenuTarget, type TreeRow } from './dominator-tree-model';

/**
 * The dominator tree grouped by type, flattened into grid rows (issue 14).
 *
 * Top level: one row per type (its outermost instances' count and Σ retained), loaded a window
 * of `PAGE` at a time. Expanding a type opens an ordinary DominatorTreeModel whose top level is
 * that type's outermost instances (`dominatorTypeInstances`) and whose deeper levels are the real
 * dominator tree (`dominatorChildren`), so windows, "show more" rows and the stack-based
 * flattening are the tree's own. An object can show up under two groups (an outermost String
 * also sits under its Holder's group once expanded), so row ids carry the group: `t<type>/<id>`.
 * Memory is proportional to what the user opened.
 */
export type GroupRowKind = 'group' | 'node' | 'more';

export interface GroupedRow {
  id: string;
  kind: GroupRowKind;
  depth: number;
  /** The type group the row belongs to (null for the top-level "more" row). */
  typeIndex: number | null;
  group: DominatorTypeGroupRow | null;
  /** For 'node' rows and 'more' rows inside a group: the tree row (depth inside the group). */
  tree: TreeRow | null;
  expanded: boolean;
  /** For the top-level 'more' row: groups not loaded yet. */
  remaining: number;
}

export interface GroupFetchers {
  groups(start: number, end: number): Promise<RowWindow<DominatorTypeGroupRow>>;
  instances(typeIndex: number, start: number, end: number): Promise<RowWindow<DominatorRow>>;
  children(node: number, start: number, end: number): Promise<RowWindow<DominatorRow>>;
}

export class DominatorGroupsModel {
  private groups: DominatorTypeGroupRow[] = [];
  private total = 0;
  private loaded = false;
  private readonly trees = new Map<number, DominatorTreeModel>();
  private readonly open = new Set<number>();

  constructor(private readonly fetch: GroupFetchers) {}

  /** The first window of type groups. */
  async ensureGroups(): Promise<void> {
    if (this.loaded) return;
    const w = await this.fetch.groups(0, PAGE);
    this.groups = w.rows.slice();
    this.total = w.total;
    this.loaded = true;
  }

  async loadMoreGroups(): Promise<void> {
    if (this.groups.length >= this.total) return;
    const w = await this.fetch.groups(this.groups.length, this.groups.length + PAGE);
    this.groups.push(...w.rows);
    this.total = w.total;
  }

  /** The tree under one type group (created on first use). */
  tree(typeIndex: number): DominatorTreeModel {
    let t = this.trees.get(typeIndex);
    if (!t) {
      t = new DominatorTreeModel((parent, start, end) => (parent === null ? this.fetch.instances(typeIndex, start, end) : this.fetch.children(parent, start, end)));
      this.trees.set(typeIndex, t);
    }
    return t;
  }

  isGroupOpen(typeIndex: number): boolean {
    return this.open.has(typeIndex);
  }

  async expandGroup(typeIndex: number): Promise<void> {
    await this.tree(typeIndex).ensureChildren('root');
    this.open.add(typeIndex);
  }

  collapseGroup(typeIndex: number): void {
    this.open.delete(typeIndex);
  }

  /** Visible rows in display order. Cost: O(visible rows). */
  flatten(): GroupedRow[] {
    const out: GroupedRow[] = [];
    for (const g of this.groups) {
      const t = g.typeIndex;
      const open = this.open.has(t);
      out.push({ id: `t${t}`, kind: 'group', depth: 0, typeIndex: t, group: g, tree: null, expanded: open, remaining: 0 });
      if (!open) continue;
      for (const r of this.tree(t).flatten()) {
        out.push({ id: `t${t}/${r.id}`, kind: r.kind, depth: r.depth + 1, typeIndex: t, group: null, tree: r, expanded: r.expanded, remaining: r.remaining });
      }
    }
    if (this.groups.length < this.total) {
      out.push({ id: 'more-groups', kind: 'more', depth: 0, typeIndex: null, group: null, tree: null, expanded: false, remaining: this.total - this.groups.length });
    }
    return out;
  }
}

/**
 * The row menu of a grouped row: a group's type menu, an instance's object menu as in the tree
 * (treeRowMenuTarget: a pseudo-node instance offers Ignore root category; the graph's root is
 * never an instance); none for pseudo-node groups ([static vars]: no instances) or "more" rows.
 */
export function groupedRowMenuTarget(t: GroupedRow): RowMenuTarget {
  if (t.kind === 'group' && t.group && !t.group.pseudo) return { type: { type: t.group.type, typeIndex: t.group.typeIndex } };
  return t.kind === 'node' && t.tree ? treeRowMenuTarget(t.tree) : null;
}

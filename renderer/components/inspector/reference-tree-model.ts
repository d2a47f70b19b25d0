import type { ReferenceRow, RowWindow } from '../../../shared/ipc/contract';

/**
 * One direction of the object inspector's references (outgoing: what the object holds; incoming:
 * who holds it) as an expandable tree, flattened into rows for display.
 *
 * Children load one window (`REF_PAGE` rows) at a time; a "show more" row stands for the rest, so
 * a hub object with a million references costs 200 rows until the user asks for more. The
 * reference graph has cycles and shared objects, so a tree item is identified by its path (the
 * positions taken from the top: "3/0/17"), not by its object; an item whose object already
 * appears above it is marked `cycle` (it can still be opened, one level per click). Memory is
 * proportional to what the user opened. Flattening uses an explicit stack (no recursion).
 */
export const REF_PAGE = 200;
export type RefDirection = 'outgoing' | 'incoming';
export type RefFetch = (node: number, start: number, end: number) => Promise<RowWindow<ReferenceRow>>;

export interface RefItem {
  /** Path of positions from the inspected object ('' is the object itself, never shown). */
  key: string;
  kind: 'ref' | 'more';
  depth: number;
  parent: string;
  row: ReferenceRow | null;
  /** Position in the parent's list (file order for outgoing, ascending ordinal for incoming). */
  index: number;
  expandable: boolean;
  expanded: boolean;
  /** The object is one of this item's ancestors (a reference cycle). */
  cycle: boolean;
  /** 'more' rows: references not loaded yet. */
  remaining: number;
}

interface Children {
  node: number;
  items: ReferenceRow[];
  total: number;
}

export class ReferenceTreeModel {
  private readonly children = new Map<string, Children>();
  private readonly expanded = new Set<string>();

  constructor(
    readonly root: number,
    readonly direction: RefDirection,
    private readonly fetchWindow: RefFetch,
  ) {}

  /** Whether a row can be opened: it has references in this tree's direction. */
  expandable(row: ReferenceRow): boolean {
    return (this.direction === 'outgoing' ? row.outgoing : (row.incoming ?? 0)) > 0;
  }

  /** The inspected object's own first window. */
  async load(): Promise<void> {
    await this.ensure('', this.root);
  }

  /** Total references of the inspected object in this direction (null before `load`). */
  get total(): number | null {
    return this.children.get('')?.total ?? null;
  }

  isExpanded(key: string): boolean {
    return this.expanded.has(key);
  }

  async expand(key: string, node: number): Promise<void> {
    await this.ensure(key, node);
    this.expanded.add(key);
  }

  collapse(key: string): void {
    this.expanded.delete(key);
  }

  /** The next window of `key`'s references (its "show more" row). */
  async loadMore(key: string): Promise<void> {
    const c = this.children.get(key);
    if (!c || c.items.length >= c.total) return;
    const w = await this.fetchWindow(c.node, c.items.length, c.items.length + REF_PAGE);
    c.items.push(...w.rows);
    c.total = w.total;
  }

  /** Visible rows in display order. Cost: O(visible rows × depth) for the cycle marks. */
  flatten(): RefItem[] {
    const out: RefItem[] = [];
    const stack: { key: string; depth: number; i: number }[] = [{ key: '', depth: 0, i: 0 }];
    const onPath: number[] = [this.root];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const c = this.children.get(top.key);
      if (!c || top.i >= c.items.length) {
        stack.pop();
        if (top.key !== '') onPath.pop();
        if (c && c.items.length < c.total) {
          out.push({ key: `${top.key}/more`, kind: 'more', depth: top.depth, parent: top.key, row: null, index: c.items.length, expandable: false, expanded: false, cycle: false, remaining: c.total - c.items.length });
        }
        continue;
      }
      const index = top.i++;
      const row = c.items[index];
      const key = top.key === '' ? String(index) : `${top.key}/${index}`;
      const open = this.expanded.has(key) && this.children.has(key);
      out.push({ key, kind: 'ref', depth: top.depth, parent: top.key, row, index, expandable: this.expandable(row), expanded: open, cycle: onPath.includes(row.node), remaining: 0 });
      if (open) {
        stack.push({ key, depth: top.depth + 1, i: 0 });
        onPath.push(row.node);
      }
    }
    return out;
  }

  private async ensure(key: string, node: number): Promise<void> {
    if (this.children.has(key)) return;
    const w = await this.fetchWindow(node, 0, REF_PAGE);
    this.children.set(key, { node, items: w.rows.slice(), total: w.total });
  }
}

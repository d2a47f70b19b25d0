import type { RetainedByObjectRow, RetainedByRow, RowWindow } from '../../../shared/ipc/contract';
import type { RowMenuTarget } from '../grids/use-row-menu';
import { PAGE } from './dominator-tree-model';

/**
 * The "Retained by" grid's rows: one per immediate-dominator type (the whole list arrives at
 * once: one row per type at most), each expandable into the dominator objects behind it, loaded
 * a window of `PAGE` at a time behind a "more" row. Memory is proportional to what is open.
 */
export interface RetainedByGridRow {
  id: string;
  kind: 'type' | 'object' | 'more';
  depth: number;
  /** The immediate-dominator type this row belongs to. */
  dominatorType: number;
  row: RetainedByRow | null;
  object: RetainedByObjectRow | null;
  expanded: boolean;
  /** For 'more' rows: objects not loaded yet. */
  remaining: number;
}

interface Objects {
  items: RetainedByObjectRow[];
  total: number;
}

export class RetainedByModel {
  private rows: RetainedByRow[] = [];
  private readonly objects = new Map<number, Objects>();
  private readonly open = new Set<number>();

  constructor(private readonly fetch: (dominatorType: number, start: number, end: number) => Promise<RowWindow<RetainedByObjectRow>>) {}

  /** A new answer (another type asked): everything opened before is dropped. */
  setRows(rows: RetainedByRow[]): void {
    this.rows = rows;
    this.objects.clear();
    this.open.clear();
  }

  isOpen(dominatorType: number): boolean {
    return this.open.has(dominatorType);
  }

  async expand(dominatorType: number): Promise<void> {
    if (!this.objects.has(dominatorType)) {
      const w = await this.fetch(dominatorType, 0, PAGE);
      this.objects.set(dominatorType, { items: w.rows.slice(), total: w.total });
    }
    this.open.add(dominatorType);
  }

  collapse(dominatorType: number): void {
    this.open.delete(dominatorType);
  }

  async loadMore(dominatorType: number): Promise<void> {
    const o = this.objects.get(dominatorType);
    if (!o || o.items.length >= o.total) return;
    const w = await this.fetch(dominatorType, o.items.length, o.items.length + PAGE);
    o.items.push(...w.rows);
    o.total = w.total;
  }

  flatten(): RetainedByGridRow[] {
    const out: RetainedByGridRow[] = [];
    for (const r of this.rows) {
      const dt = r.typeIndex;
      const open = this.open.has(dt);
      out.push({ id: `t${dt}`, kind: 'type', depth: 0, dominatorType: dt, row: r, object: null, expanded: open, remaining: 0 });
      const o = this.objects.get(dt);
      if (!open || !o) continue;
      for (const x of o.items) out.push({ id: `t${dt}/${x.node}`, kind: 'object', depth: 1, dominatorType: dt, row: null, object: x, expanded: false, remaining: 0 });
      if (o.items.length < o.total) out.push({ id: `more-${dt}`, kind: 'more', depth: 1, dominatorType: dt, row: null, object: null, expanded: false, remaining: o.total - o.items.length });
    }
    return out;
  }
}

/**
 * The row menu of a Retained by row: a dominator type's type menu, a dominator object's object
 * menu (with "what if": Ignore references from this type; a dominator is not a referrer, so no
 * Ignore this reference); none for pseudo-nodes ([static vars], the root: no instances, no
 * address) or "more" rows.
 */
export function retainedByMenuTarget(t: RetainedByGridRow): RowMenuTarget {
  if (t.kind === 'type' && t.row && !t.row.pseudo) return { type: { type: t.row.type, typeIndex: t.row.typeIndex } };
  // a pseudo dominator may be the graph's root itself (which cannot be ignored, and this row cannot tell): no menu
  if (t.kind === 'object' && t.object && !t.object.pseudo) return { object: { node: t.object.node, address: t.object.address, ignoreType: true } };
  return null;
}

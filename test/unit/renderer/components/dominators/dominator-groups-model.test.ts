import { describe, expect, it, vi } from 'vitest';
import type { DominatorRow, DominatorTypeGroupRow, RowWindow } from '../../../../../shared/ipc/contract';
import { DominatorGroupsModel } from '../../../../../renderer/components/dominators/dominator-groups-model';
import { PAGE } from '../../../../../renderer/components/dominators/dominator-tree-model';

// A fake back end: type groups, each type's outermost instances, and dominator children.
function group(typeIndex: number, count: number): DominatorTypeGroupRow {
  return { typeIndex, type: `T${typeIndex}`, count, reachableCount: count, retainedSize: 1000 - typeIndex, retainedPercent: 0, pseudo: false };
}
function row(node: number, childCount: number): DominatorRow {
  return { node, typeIndex: 0, type: 'X', address: `0x${node.toString(16)}`, size: 1, retainedSize: 1, retainedPercent: 0, childCount, pseudo: false };
}
function win<T>(all: T[], start: number, end: number): RowWindow<T> {
  const rows = all.slice(start, Math.min(end, all.length));
  return { start, end: start + rows.length, total: all.length, rows };
}

function model(groups: DominatorTypeGroupRow[], instances: Map<number, DominatorRow[]>, children: Map<number, DominatorRow[]>) {
  const fetch = {
    groups: vi.fn(async (s: number, e: number) => win(groups, s, e)),
    instances: vi.fn(async (t: number, s: number, e: number) => win(instances.get(t) ?? [], s, e)),
    children: vi.fn(async (n: number, s: number, e: number) => win(children.get(n) ?? [], s, e)),
  };
  return { m: new DominatorGroupsModel(fetch), fetch };
}

const ids = (m: DominatorGroupsModel) => m.flatten().map((r) => `${'-'.repeat(r.depth)}${r.kind === 'more' ? `more(${r.remaining})` : r.id}`);

describe('DominatorGroupsModel', () => {
  it('groups first, a type expands into its instances, an instance into its dominator children', async () => {
    // object 5 is an outermost instance of type 1 and also a child of object 7 (type 2's instance)
    const { m, fetch } = model([group(1, 2), group(2, 1)], new Map([[1, [row(5, 0), row(6, 1)]], [2, [row(7, 1)]]]), new Map([[6, [row(9, 0)]], [7, [row(5, 0)]]]));
    await m.ensureGroups();
    expect(ids(m)).toEqual(['t1', 't2']);
    await m.expandGroup(1);
    await m.tree(1).expand(6);
    await m.expandGroup(2);
    await m.tree(2).expand(7);
    expect(ids(m)).toEqual(['t1', '-t1/5', '-t1/6', '--t1/9', 't2', '-t2/7', '--t2/5']);
    expect(new Set(ids(m)).size).toBe(7); // ids unique although object 5 shows twice
    m.collapseGroup(1);
    expect(ids(m)).toEqual(['t1', 't2', '-t2/7', '--t2/5']);
    await m.expandGroup(1); // cached
    expect(fetch.instances.mock.calls.filter((c) => c[0] === 1)).toHaveLength(1);
  });

  it('windows the groups and a group\'s instances behind "more" rows', async () => {
    const groups = Array.from({ length: PAGE + 3 }, (_, i) => group(i, 1));
    const many = Array.from({ length: PAGE + 7 }, (_, i) => row(1000 + i, 0));
    const { m } = model(groups, new Map([[0, many]]), new Map());
    await m.ensureGroups();
    let flat = ids(m);
    expect(flat).toHaveLength(PAGE + 1);
    expect(flat[PAGE]).toBe('more(3)');
    await m.expandGroup(0);
    flat = ids(m);
    expect(flat[PAGE + 1]).toBe('-more(7)');
    const more = m.flatten()[PAGE + 1];
    expect([more.kind, more.typeIndex, more.tree?.parent]).toEqual(['more', 0, 'root']);
    await m.tree(0).loadMore('root');
    await m.loadMoreGroups();
    flat = ids(m);
    expect(flat).toHaveLength(1 + PAGE + 7 + PAGE + 2);
    expect(flat.some((x) => x.includes('more'))).toBe(false);
  });
});

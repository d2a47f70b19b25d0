import { describe, expect, it, vi } from 'vitest';
import type { DominatorRow, RowWindow } from '../../../../../shared/ipc/contract';
import { DominatorTreeModel, PAGE } from '../../../../../renderer/components/dominators/dominator-tree-model';

// A fake back end holding a small dominator tree: children lists already sorted by retained size,
// as dominatorChildren returns them. Only the windowing/flattening logic is under test.
function row(node: number, childCount: number, retained = 100 - node): DominatorRow {
  return { node, typeIndex: 0, type: `T${node}`, address: `0x${node.toString(16)}`, size: 1, retainedSize: retained, retainedPercent: 0, childCount, pseudo: false };
}

function tree(children: Map<number | null, DominatorRow[]>) {
  const fetch = vi.fn(async (parent: number | null, start: number, end: number): Promise<RowWindow<DominatorRow>> => {
    const all = children.get(parent) ?? [];
    const rows = all.slice(start, Math.min(end, all.length));
    return { start, end: start + rows.length, total: all.length, rows };
  });
  return { model: new DominatorTreeModel(fetch), fetch };
}

const ids = (m: DominatorTreeModel) => m.flatten().map((r) => (r.kind === 'more' ? `more(${r.remaining})` : `${'-'.repeat(r.depth)}${r.row!.node}`));

describe('DominatorTreeModel', () => {
  // root → 1 → (3, 4);  root → 2 → 5 → 6
  const small = new Map<number | null, DominatorRow[]>([
    [null, [row(1, 2), row(2, 1)]],
    [1, [row(3, 0), row(4, 0)]],
    [2, [row(5, 1)]],
    [5, [row(6, 0)]],
  ]);

  it('shows the top level, expands and collapses in place', async () => {
    const { model, fetch } = tree(small);
    await model.ensureChildren('root');
    expect(ids(model)).toEqual(['1', '2']);
    await model.expand(1);
    expect(ids(model)).toEqual(['1', '-3', '-4', '2']);
    await model.expand(2);
    await model.expand(5);
    expect(ids(model)).toEqual(['1', '-3', '-4', '2', '-5', '--6']);
    model.collapse(1);
    expect(ids(model)).toEqual(['1', '2', '-5', '--6']);
    await model.expand(1); // children are cached: no second fetch
    expect(fetch.mock.calls.filter((c) => c[0] === 1)).toHaveLength(1);
  });

  it('loads children a window at a time behind a "more" row', async () => {
    const many = Array.from({ length: PAGE * 2 + 5 }, (_, i) => row(1000 + i, 0, 10_000 - i));
    const { model, fetch } = tree(new Map([[null, [row(1, many.length)]], [1, many]]));
    await model.ensureChildren('root');
    await model.expand(1);
    let rows = model.flatten();
    expect(rows).toHaveLength(1 + PAGE + 1);
    expect(rows[rows.length - 1]).toMatchObject({ kind: 'more', parent: 1, depth: 1, remaining: PAGE + 5 });
    await model.loadMore(1);
    await model.loadMore(1);
    rows = model.flatten();
    expect(rows).toHaveLength(1 + PAGE * 2 + 5);
    expect(rows.some((r) => r.kind === 'more')).toBe(false);
    expect(fetch.mock.calls.filter((c) => c[0] === 1).map((c) => [c[1], c[2]])).toEqual([[0, PAGE], [PAGE, PAGE * 2], [PAGE * 2, PAGE * 3]]);
  });

  it('reveal opens every ancestor; a node beyond the first window is pinned, then moves to its place', async () => {
    const many = Array.from({ length: PAGE + 10 }, (_, i) => row(1000 + i, i === PAGE + 3 ? 1 : 0));
    const target = many[PAGE + 3];
    const { model } = tree(new Map<number | null, DominatorRow[]>([[null, [row(1, many.length)]], [1, many], [target.node, [row(7, 0)]]]));
    // path as the back end gives it: the graph's root node first (not a visible row), then 1, target, 7
    await model.reveal([row(0, 1), row(1, many.length), target, row(7, 0)]);
    let flat = ids(model);
    expect(flat.slice(0, 2)).toEqual(['1', '-1000']);
    expect(flat.slice(-3)).toEqual([`-${target.node}`, '--7', 'more(10)']);
    await model.loadMore(1);
    flat = ids(model);
    expect(flat.filter((x) => x === `-${target.node}`)).toHaveLength(1); // not duplicated
    expect(flat.indexOf(`-${target.node}`)).toBe(1 + PAGE + 3); // after row 1 and its PAGE + 3 preceding siblings
    expect(flat[1 + PAGE + 4]).toBe('--7'); // still expanded
    expect(flat[flat.length - 1]).toBe(`-${many[many.length - 1].node}`);
  });
  // Issue 14, bug 2: the breadcrumb of the graph's root node revealed the root as a row among its
  // own children (pinned after the first window), and so did any path whose top-level ancestor
  // lay beyond the first window.
  it('reveal never shows the root node (path[0]) as a row, whatever the window holds', async () => {
    const top = Array.from({ length: PAGE + 21 }, (_, i) => row(1000 + i, i === PAGE + 7 ? 1 : 0, 10_000 - i));
    const deep = top[PAGE + 7];
    const children = new Map<number | null, DominatorRow[]>([[null, top], [deep.node, [row(7, 0)]]]);
    const root = row(0, top.length, 1_000_000);

    const a = tree(children).model;
    await a.reveal([root]); // the root breadcrumb
    expect(ids(a)).toHaveLength(PAGE + 1);
    expect(ids(a).includes('0')).toBe(false);
    expect(ids(a)[PAGE]).toBe('more(21)');

    const b = tree(children).model;
    await b.reveal([root, deep, row(7, 0)]); // top-level ancestor outside the first window
    const flat = ids(b);
    expect(flat.includes('0')).toBe(false);
    expect(flat.slice(PAGE)).toEqual([String(deep.node), '-7', 'more(21)']);
    await b.loadMore('root');
    expect(ids(b).indexOf(String(deep.node))).toBe(PAGE + 7);
    expect(ids(b)).toHaveLength(PAGE + 21 + 1);
  });
});

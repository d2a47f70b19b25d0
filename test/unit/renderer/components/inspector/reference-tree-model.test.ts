import { describe, expect, it, vi } from 'vitest';
import type { ReferenceRow, RowWindow } from '../../../../../shared/ipc/contract';
import { REF_PAGE, ReferenceTreeModel, type RefDirection } from '../../../../../renderer/components/inspector/reference-tree-model';

// A fake back end over a small reference graph with a cycle (1 → 2 → 1), a shared object (3 held
// by 1 and 2) and a hub (9 → 450 references to 3). Only the windowing, expansion and flattening
// are under test: the windows themselves are the session's (tested in shared/).
const OUT = new Map<number, number[]>([
  [1, [2, 3]],
  [2, [1, 3]],
  [3, []],
  [9, Array.from({ length: 450 }, () => 3)],
]);
const IN = new Map<number, number[]>([
  [1, [2]],
  [2, [1]],
  [3, [1, 2, ...Array.from({ length: 450 }, () => 9)]],
  [9, []],
]);

function row(n: number): ReferenceRow {
  return { node: n, typeIndex: 0, type: `T${n}`, address: `0x${n.toString(16)}`, size: 8, retainedSize: null, generation: null, pseudo: false, outgoing: OUT.get(n)!.length, incoming: IN.get(n)!.length };
}

function model(root: number, direction: RefDirection) {
  const fetch = vi.fn(async (node: number, start: number, end: number): Promise<RowWindow<ReferenceRow>> => {
    const all = (direction === 'outgoing' ? OUT : IN).get(node)!;
    const rows = all.slice(start, Math.min(end, all.length)).map(row);
    return { start, end: start + rows.length, total: all.length, rows };
  });
  return { m: new ReferenceTreeModel(root, direction, fetch), fetch };
}

const show = (m: ReferenceTreeModel) => m.flatten().map((r) => (r.kind === 'more' ? `${'-'.repeat(r.depth)}more(${r.remaining})` : `${'-'.repeat(r.depth)}${r.row!.node}${r.cycle ? '*' : ''}${r.expandable ? '' : '.'}`));

describe('ReferenceTreeModel', () => {
  it('loads the first window, expands by path, marks cycles and leaves', async () => {
    const { m, fetch } = model(1, 'outgoing');
    await m.load();
    expect(m.total).toBe(2);
    expect(show(m)).toEqual(['2', '3.']);
    await m.expand('0', 2);
    expect(show(m)).toEqual(['2', '-1*', '-3.', '3.']);
    // the cycle can still be opened, one level per click; its key is its path
    await m.expand('0/0', 1);
    expect(show(m)).toEqual(['2', '-1*', '--2*', '--3.', '-3.', '3.']);
    expect(m.flatten().map((r) => r.key)).toEqual(['0', '0/0', '0/0/0', '0/0/1', '0/1', '1']);
    m.collapse('0');
    expect(show(m)).toEqual(['2', '3.']);
    await m.expand('0', 2); // already loaded: no new request
    expect(fetch.mock.calls.map((c) => c.slice())).toEqual([
      [1, 0, REF_PAGE],
      [2, 0, REF_PAGE],
      [1, 0, REF_PAGE],
    ]);
  });

  it('pages a hub: 200 rows and a "more" row, then 200 more, then the last 50', async () => {
    const { m, fetch } = model(9, 'outgoing');
    await m.load();
    let rows = m.flatten();
    expect(rows.length).toBe(201);
    expect(rows[200]).toMatchObject({ kind: 'more', remaining: 250, parent: '' });
    await m.loadMore('');
    rows = m.flatten();
    expect([rows.length, rows[400].remaining]).toEqual([401, 50]);
    await m.loadMore('');
    rows = m.flatten();
    expect(rows.length).toBe(450);
    expect(rows.every((r) => r.kind === 'ref')).toBe(true);
    expect(fetch.mock.calls.map((c) => [c[1], c[2]])).toEqual([[0, 200], [200, 400], [400, 600]]);
  });

  it('incoming: expandable by the retainer count, hub retainers paged under a child', async () => {
    const { m } = model(1, 'incoming');
    await m.load();
    expect(show(m)).toEqual(['2']);
    const { m: shared } = model(3, 'incoming');
    await shared.load();
    expect(shared.total).toBe(452);
    const first = shared.flatten();
    expect(first.length).toBe(201);
    expect(first.slice(0, 3).map((r) => r.row!.node)).toEqual([1, 2, 9]);
    // 9 has no retainers: not expandable
    expect(first[2].expandable).toBe(false);
  });
});

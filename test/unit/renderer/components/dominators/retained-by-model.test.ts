import { describe, expect, it, vi } from 'vitest';
import type { RetainedByObjectRow, RetainedByRow } from '../../../../../shared/ipc/contract';
import { RetainedByModel } from '../../../../../renderer/components/dominators/retained-by-model';
import { PAGE } from '../../../../../renderer/components/dominators/dominator-tree-model';

const typeRow = (typeIndex: number, count: number): RetainedByRow => ({ typeIndex, type: `T${typeIndex}`, pseudo: false, self: false, count, retainedSize: count * 10, retainedPercent: 0 });
const obj = (node: number): RetainedByObjectRow => ({ node, type: 'D', address: `0x${node.toString(16)}`, pseudo: false, count: 1, retainedSize: 1, retainedPercent: 0 });

describe('RetainedByModel', () => {
  it('expands a dominator type into its objects, windowed behind a "more" row', async () => {
    const many = Array.from({ length: PAGE + 4 }, (_, i) => obj(100 + i));
    const fetch = vi.fn(async (dt: number, start: number, end: number) => {
      const all = dt === 1 ? many : [obj(7)];
      const rows = all.slice(start, Math.min(end, all.length));
      return { start, end: start + rows.length, total: all.length, rows };
    });
    const m = new RetainedByModel(fetch);
    m.setRows([typeRow(1, PAGE + 4), typeRow(2, 1)]);
    const ids = () => m.flatten().map((r) => (r.kind === 'more' ? `more(${r.remaining})` : r.id));
    expect(ids()).toEqual(['t1', 't2']);
    await m.expand(2);
    expect(ids()).toEqual(['t1', 't2', 't2/7']);
    await m.expand(1);
    let flat = ids();
    expect(flat.length).toBe(2 + PAGE + 1 + 1);
    expect(flat[PAGE + 1]).toBe('more(4)');
    await m.loadMore(1);
    flat = ids();
    expect(flat.slice(PAGE, PAGE + 6)).toEqual([`t1/${100 + PAGE - 1}`, `t1/${100 + PAGE}`, `t1/${101 + PAGE}`, `t1/${102 + PAGE}`, `t1/${103 + PAGE}`, 't2']);
    m.collapse(1);
    expect(ids()).toEqual(['t1', 't2', 't2/7']);
    await m.expand(1); // cached
    expect(fetch.mock.calls.filter((c) => c[0] === 1)).toHaveLength(2);
    m.setRows([typeRow(3, 1)]);
    expect(ids()).toEqual(['t3']);
  });
});

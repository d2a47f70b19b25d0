import { describe, expect, it } from 'vitest';
import { SnapshotSession } from '../../../../shared/session/snapshot-session.js';
import { holderLeafSession } from '../../../helpers/tiny-session.js';
import { REQUEST_GUARDS as requestGuards } from '../../../../electron/host/request-guards.js';

// typeRows `locate`: where a type's row sits in a sort and filter, so the types grid can keep a
// selected row in view when retained sizes arrive and the rows re-sort (issue 14 item 3).
// root → A(Holder 16) → B, C (Leaf 8 each) → D (Big 32); root → E(Holder 24) → F(Leaf 8); G (Garbage 100) alone.
const session = (): SnapshotSession => holderLeafSession().s;

describe('typeRows locate', () => {
  it('reports the row number of a type in the requested order, before and after the analysis', () => {
    const s = session();
    const all = s.typeRows({ sort: { key: 'type', dir: 'asc' }, start: 0, end: 10 }).rows;
    const leaf = all.find((r) => r.type === 'Leaf')!.typeIndex;
    const big = all.find((r) => r.type === 'Big')!.typeIndex;
    // before: retained is served as name order (Big, Garbage, Holder, Leaf)
    const before = s.typeRows({ sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 1, locate: leaf });
    expect([before.rows.length, before.located]).toEqual([1, 3]);
    s.runAnalysis();
    // after: Holder 96, Big 32, Leaf 24, Garbage 0
    expect(s.typeRows({ sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 0, locate: leaf }).located).toBe(2);
    expect(s.typeRows({ sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 0, locate: big }).located).toBe(1);
    // filtered out: -1; without locate: no field
    expect(s.typeRows({ sort: { key: 'retainedSize', dir: 'desc' }, filter: 'hold', start: 0, end: 10, locate: leaf }).located).toBe(-1);
    expect('located' in s.typeRows({ sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 10 })).toBe(false);
  });

  it('the request guard accepts a type index and nothing else', () => {
    const base = { sessionId: 's-abc123', sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 10 };
    expect(requestGuards.typeRows({ ...base, locate: 3 })).toBe(true);
    expect(requestGuards.typeRows({ ...base, locate: -1 })).toBe(false);
    expect(requestGuards.typeRows({ ...base, locate: '3' })).toBe(false);
    expect(requestGuards.typeRows({ ...base, locate: 1.5 })).toBe(false);
  });
});

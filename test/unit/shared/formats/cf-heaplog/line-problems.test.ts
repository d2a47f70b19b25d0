import { describe, expect, it } from 'vitest';
import { LineProblems } from '../../../../../shared/formats/cf-heaplog/line-problems.js';
import { PROBLEM_CAP } from '../../../../../shared/graph/problems.js';

describe('LineProblems', () => {
  it('merges late problems into line order; the streaming one stays first on a shared line; later ones go last', () => {
    const p = new LineProblems();
    p.add('malformed-record', 3, 'a');
    p.add('unknown-record', 7, 'b');
    p.add('size-overflow', 9, 'c');
    p.insertInLineOrder('duplicate-id', [{ line: 1, message: 'd1' }, { line: 7, message: 'd7' }, { line: 12, message: 'd12' }]);
    p.add('dangling-reference', 2, 'late');
    const list = p.merged();
    expect(list.entries.map((e) => `${e.code} ${e.message}`)).toEqual([
      'duplicate-id line 1: d1',
      'malformed-record line 3: a',
      'unknown-record line 7: b',
      'duplicate-id line 7: d7',
      'size-overflow line 9: c',
      'duplicate-id line 12: d12',
      'dangling-reference line 2: late',
    ]);
    expect(list.total).toBe(7);
  });

  it('keeps the first PROBLEM_CAP messages by line and counts every problem', () => {
    const p = new LineProblems();
    for (let i = 0; i < PROBLEM_CAP + 20; i++) p.add('malformed-record', 2 * i + 2, 'm');
    expect(p.spells).toBe(false);
    const late = Array.from({ length: 30 }, (_, i) => ({ line: 2 * i + 1, message: 'dup' }));
    p.insertInLineOrder('duplicate-id', late, 5);
    p.addMany('other', 3, 'three more');
    const list = p.merged();
    expect(list.entries.length).toBe(PROBLEM_CAP);
    expect(list.entries.slice(0, 4).map((e) => e.message)).toEqual(['line 1: dup', 'line 2: m', 'line 3: dup', 'line 4: m']);
    expect(list.counts).toEqual({ 'malformed-record': PROBLEM_CAP + 20, 'duplicate-id': 35, other: 3 });
    expect(list.total).toBe(PROBLEM_CAP + 20 + 35 + 3);
  });

  it('a summary of n problems counts n once, spelled when there is room', () => {
    const p = new LineProblems();
    p.addMany('malformed-record', 250, '250 more before this section');
    p.add('truncated', 4, 'cut');
    const list = p.merged();
    expect(list.entries.map((e) => e.message)).toEqual(['250 more before this section', 'line 4: cut']);
    expect(list.counts).toEqual({ 'malformed-record': 250, truncated: 1 });
  });
});

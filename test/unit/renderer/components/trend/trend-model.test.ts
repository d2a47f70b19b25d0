import { describe, expect, it } from 'vitest';
import { filterRows, growsLabel, sparkPoints } from '../../../../../renderer/components/trend/trend-model';
import type { TrendRowDto } from '../../../../../shared/ipc/contract';

describe('sparkPoints', () => {
  it('spaces points evenly and scales y to the series range, min at the bottom (1 px margin)', () => {
    expect(sparkPoints([4174, 4230], 64, 18)).toBe('1,17 63,1');
    expect(sparkPoints([0, 5, 10], 11, 12)).toBe('1,11 5.5,6 10,1');
    expect(sparkPoints([10, 0, 10], 11, 12)).toBe('1,1 5.5,11 10,1');
  });

  it('draws a flat series across the middle, one value at the left, none as nothing', () => {
    expect(sparkPoints([3, 3, 3], 11, 12)).toBe('1,6 5.5,6 10,6');
    expect(sparkPoints([7], 64, 18)).toBe('1,9');
    expect(sparkPoints([], 64, 18)).toBe('');
  });
});

describe('trend rows', () => {
  const r = (type: string, countGrows: boolean, retainedGrows: boolean) => ({ type, countGrows, retainedGrows }) as TrendRowDto;
  it('filters by case-insensitive substring of the type name and labels what grows', () => {
    const rows = [r('System.String', true, true), r('Cache', false, true), r('StringBuilder', true, false)];
    expect(filterRows(rows, ' string ').map((x) => x.type)).toEqual(['System.String', 'StringBuilder']);
    expect(filterRows(rows, '')).toBe(rows);
    expect(rows.map(growsLabel)).toEqual(['count + retained', 'retained', 'count']);
  });
});

import { describe, expect, it } from 'vitest';
import type { DominatorTrendRowDto } from '../../../../../shared/ipc/contract';
import { splitSignature, stepsLabel, visibleRetainers } from '../../../../../renderer/components/trend/dominator-trend-model';

const row = (signature: string, growthRank: number, steadinessRank: number, retained: number[], growingSteps: number): DominatorTrendRowDto => ({
  signature,
  path: signature.split(' › '),
  type: signature.split(' › ').at(-1)!,
  depth: signature.split(' › ').length,
  retained,
  present: retained.map((v) => v > 0),
  growth: retained.at(-1)! - retained[0],
  growingSteps,
  steadiness: growingSteps / (retained.length - 1),
  slope: 0,
  growthRank,
  steadinessRank,
  lastNode: 7,
  lastAddress: '0x7',
});

describe('dominator trend model', () => {
  const rows = [row('[static vars] › Cache', 1, 2, [10, 90, 50], 1), row('[static vars] › Cache › List', 2, 3, [0, 20, 40], 2), row('[local vars] › Holder', 3, 1, [1, 2, 3], 2)];

  it('ranks by growth or by steadiness, and filters on the signature, case-insensitively', () => {
    expect(visibleRetainers(rows, '', 'growth').map((r) => r.growthRank)).toEqual([1, 2, 3]);
    expect(visibleRetainers(rows, '', 'steadiness').map((r) => r.signature)).toEqual(['[local vars] › Holder', '[static vars] › Cache', '[static vars] › Cache › List']);
    expect(visibleRetainers(rows, ' cache ', 'steadiness').map((r) => r.signature)).toEqual(['[static vars] › Cache', '[static vars] › Cache › List']);
    expect(visibleRetainers(rows, 'LIST', 'growth').map((r) => r.signature)).toEqual(['[static vars] › Cache › List']);
    expect(rows.map((r) => r.growthRank)).toEqual([1, 2, 3]); // not sorted in place
  });

  it('labels growing steps and splits the signature into the retainer and its chain', () => {
    expect(rows.map(stepsLabel)).toEqual(['1 of 2', '2 of 2', '2 of 2']);
    expect(splitSignature(rows[1].path)).toEqual({ own: 'List', above: '[static vars] › Cache' });
    expect(splitSignature(['Solo'])).toEqual({ own: 'Solo', above: '' });
  });
});

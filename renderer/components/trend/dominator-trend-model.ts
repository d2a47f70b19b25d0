import type { DominatorTrendRowDto } from '../../../shared/ipc/contract';

/**
 * The Trend view's Dominators mode, pure parts: filter, ranking and labels of the growing
 * retainers (shared/analysis/dominator-growth.ts computes the numbers).
 */
export type DominatorTrendSort = 'growth' | 'steadiness';

/** Case-insensitive substring of the signature (the chain of types), in the chosen ranking. */
export function visibleRetainers(rows: readonly DominatorTrendRowDto[], filter: string, sort: DominatorTrendSort): DominatorTrendRowDto[] {
  const f = filter.trim().toLowerCase();
  const kept = f ? rows.filter((r) => r.signature.toLowerCase().includes(f)) : rows.slice();
  return sort === 'growth' ? kept.sort((a, b) => a.growthRank - b.growthRank) : kept.sort((a, b) => a.steadinessRank - b.steadinessRank);
}

/** "2 of 3": growing steps of all steps. */
export function stepsLabel(r: Pick<DominatorTrendRowDto, 'growingSteps' | 'retained'>): string {
  return `${r.growingSteps} of ${r.retained.length - 1}`;
}

/** The retainer's own segment (last of the path) and the chain above it, for a two-part cell. */
export function splitSignature(path: readonly string[]): { own: string; above: string } {
  return { own: path[path.length - 1] ?? '', above: path.slice(0, -1).join(' › ') };
}

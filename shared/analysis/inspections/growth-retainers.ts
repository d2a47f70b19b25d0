import { dominatorGrowth } from '../dominator-growth.js';
import { SEGMENT_SEPARATOR, retainerSignatures, type RetainerSnapshot } from '../dominator-signatures.js';
import { exampleOf, grouped, type Finding, type InspectionContext } from './finding.js';

/**
 * Growth suspects at dominator level against a baseline (the two-snapshot case of
 * `trend --dominators`): retainers matched by their dominator chain (a heuristic identity,
 * dominator-signatures.ts) whose retained size grew. The current snapshot is walked with the
 * baseline's threshold and depth, so "absent" means the same on both sides.
 *
 * One finding per chain: a row is left out when one of its dominators (a prefix of its
 * signature) is already a finding with at least its growth, since that finding's bytes include
 * it (a List and the array inside it grow by the same bytes: the List is reported). Findings by
 * growth, largest first. Cost: the walk of dominator-signatures.ts plus O(retainers).
 */
export function inspectRetainerGrowth(ctx: InspectionContext, base: RetainerSnapshot): Finding[] {
  const cur = retainerSignatures(ctx.g, ctx.a, 'current', { minBytes: base.minBytes, maxDepth: base.maxDepth, token: ctx.token });
  const t = dominatorGrowth([base, cur]);
  const shown = new Map<string, number>(); // signature → growth of the findings kept
  const out: Finding[] = [];
  for (const r of t.rows) {
    if (r.lastNode === null) continue;
    let covered = false;
    for (let k = r.path.length - 1; k >= 1 && !covered; k--) {
      const g = shown.get(r.path.slice(0, k).join(SEGMENT_SEPARATOR));
      if (g !== undefined && g >= r.growth) covered = true;
    }
    if (covered) continue;
    shown.set(r.signature, r.growth);
    const node = r.lastNode;
    out.push({
      kind: 'growth-retainer',
      title: `${r.type} retains ${grouped(r.growth)} bytes more (${grouped(r.retained[0])} → ${grouped(r.retained[1])})`,
      explanation: `This retainer (matched by its chain of dominators, a heuristic: ${r.signature}) keeps more memory alive than in ${base.label}: if it grows in every snapshot, it is where the leak accumulates.`,
      fix: 'Open it in the dominator tree to see what it holds, then find what adds to it and never removes.',
      objects: 1,
      bytes: r.retained[1],
      shallowBytes: ctx.g.selfSize[node],
      examples: [exampleOf(ctx, node)],
      details: { signature: r.signature, depth: r.depth, baselineBytes: r.retained[0], growthBytes: r.growth },
    });
  }
  return out;
}

import type { HeapAnalysis } from '../analysis/analyze.js';
import { dominatorSunburst, dominatorSunburstSliced, SUNBURST_DEFAULTS, type SunburstOptions, type SunburstRun, type SunburstTree } from '../analysis/dominator-sunburst.js';
import { isPseudo } from '../analysis/paths-to-roots.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { NONE } from '../graph/heap-graph.js';
import type { DominatorSunburst, DominatorSunburstReq, SunburstItemDto } from '../ipc/dtos-sunburst.js';
import type { CancellationToken } from '../util/cancellation.js';
import { checkNode } from './dominator-view.js';

/**
 * The sunburst view's query: dominator-sunburst.ts's items as DTOs (names, addresses). Not
 * cached here (sunburst-cache.ts keeps the last answers): one query reads at most the top `depth`
 * levels below the center once, and the answer is a few thousand items at most.
 */
export function sunburstOf(g: HeapGraph, a: HeapAnalysis, req: Omit<DominatorSunburstReq, 'sessionId'>, hex: (n: number) => string, token: CancellationToken): DominatorSunburst {
  const { node, opts } = centerOf(g, req);
  return toDto(g, a, node, opts, dominatorSunburst(g, a, node, opts, token), hex);
}

/** The same answer computed in slices (dominatorSunburstSliced): the worker's path. */
export async function sunburstOfSliced(g: HeapGraph, a: HeapAnalysis, req: Omit<DominatorSunburstReq, 'sessionId'>, hex: (n: number) => string, run: SunburstRun): Promise<DominatorSunburst> {
  const { node, opts } = centerOf(g, req);
  return toDto(g, a, node, opts, await dominatorSunburstSliced(g, a, node, opts, run), hex);
}

function centerOf(g: HeapGraph, req: Omit<DominatorSunburstReq, 'sessionId'>): { node: number; opts: SunburstOptions } {
  const node = req.node ?? g.rootIndex;
  checkNode(g, node);
  const opts = {
    mode: req.mode,
    depth: req.depth ?? SUNBURST_DEFAULTS.depth,
    top: req.top ?? SUNBURST_DEFAULTS.top,
    minShare: req.minShare ?? SUNBURST_DEFAULTS.minShare,
    typePath: req.typePath ?? [],
  };
  return { node, opts };
}

function toDto(g: HeapGraph, a: HeapAnalysis, node: number, opts: SunburstOptions, tree: SunburstTree, hex: (n: number) => string): DominatorSunburst {
  const items = tree.items.map(
    (it): SunburstItemDto => ({
      parent: it.parent,
      depth: it.depth,
      kind: it.kind,
      node: it.node === NONE ? null : it.node,
      typeIndex: it.typeIndex < 0 ? null : it.typeIndex,
      name: it.kind === 'others' ? `${it.folded} other${it.folded === 1 ? '' : 's'}` : g.types.names[it.typeIndex],
      address: it.node === NONE ? null : hex(it.node),
      pseudo: it.node !== NONE && isPseudo(g, it.node),
      retainedSize: it.retained,
      count: it.count,
      folded: it.folded,
      childCount: it.childCount,
    }),
  );
  return { node, mode: opts.mode, typePath: [...opts.typePath], depth: opts.depth, top: opts.top, minShare: opts.minShare, reachableSize: a.reachableSize, items };
}

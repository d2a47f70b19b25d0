import type { DominatorSunburst } from '../../../shared/ipc/contract';
import { itemLabel } from './sunburst-option';

/**
 * Where the Sunburst view is centered: a breadcrumb trail of worker queries. A crumb is a center
 * object (null = the root: the whole reachable heap) plus, by type, the groups walked from it
 * (`typePath`), so any crumb can be asked again as it is; nothing of the heap is kept here.
 */
export interface Crumb {
  node: number | null;
  typePath: number[];
  label: string;
}

export type SunburstMode = DominatorSunburst['mode'];

export const ROOT_CRUMB: Crumb = { node: null, typePath: [], label: 'Whole heap' };

/** The crumb that makes item `idx` of `data` (centered on `at`) the new center; null for the center itself and "others". */
export function zoomCrumb(data: DominatorSunburst, at: Crumb, idx: number): Crumb | null {
  const it = data.items[idx];
  if (!it || idx === 0 || it.kind === 'others') return null;
  if (data.mode === 'object') return it.node === null ? null : { node: it.node, typePath: [], label: itemLabel(it) };
  // by type: the groups from the center down to the item, appended to the center's path
  const steps: number[] = [];
  for (let i = idx; i > 0; i = data.items[i].parent) steps.push(data.items[i].typeIndex!);
  return { node: at.node, typePath: [...at.typePath, ...steps.reverse()], label: itemLabel(it) };
}

/** The trail kept when the mode changes: object crumbs are valid in both modes, type paths only by type. */
export function crumbsForMode(trail: readonly Crumb[], mode: SunburstMode): Crumb[] {
  if (mode === 'type') return trail.slice();
  const kept = trail.filter((c) => c.typePath.length === 0);
  return kept.length > 0 ? kept : [ROOT_CRUMB];
}

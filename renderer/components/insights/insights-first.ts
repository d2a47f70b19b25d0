import type { InspectionFindingDto } from '../../../shared/ipc/contract';
import { defaultViewState, type TabViewState } from '../../stores/tabs';

/**
 * When a freshly opened snapshot tab shows Insights instead of Types: the inspections found
 * something worth attention, meaning one finding that is
 *   - an event-handler-leak or timer-held finding whose exact retained bytes are at least
 *     LEAK_FIRST_PERCENT (1%) of the reachable bytes or at least LEAK_FIRST_BYTES (1 MB, 1,048,576
 *     bytes): those objects should be garbage, so a smaller share than below counts, but one
 *     24-byte subscriber left behind is not worth taking the user away from Types; or
 *   - a finalization or accumulation-point finding whose exact retained bytes are at least
 *     INSIGHTS_FIRST_PERCENT (10%) of the reachable bytes, the suspects report's default threshold.
 * Statics and large objects are listings every heap has, so they never open the view. Growth needs
 * a baseline, which a fresh tab does not have.
 *
 * Only when the user has not moved yet (the tab still shows Types and has no Back/Forward step)
 * and the tab was not restored from a saved session (its saved view is what the user left).
 */
export const INSIGHTS_FIRST_PERCENT = 10;
export const LEAK_FIRST_PERCENT = 1;
export const LEAK_FIRST_BYTES = 1024 * 1024;
const LEAKS: readonly string[] = ['event-handler-leak', 'timer-held'];
const BY_SIZE: readonly string[] = ['finalization', 'accumulation-point'];

export function worthOpeningInsights(findings: readonly Pick<InspectionFindingDto, 'kind' | 'bytes'>[], reachableBytes: number): boolean {
  // in integers (bytes × 100 against percent × reachable): no rounding at the boundary
  const atLeast = (f: { bytes: number }, percent: number) => reachableBytes > 0 && f.bytes * 100 >= percent * reachableBytes;
  return findings.some((f) => (LEAKS.includes(f.kind) && (atLeast(f, LEAK_FIRST_PERCENT) || f.bytes >= LEAK_FIRST_BYTES)) || (BY_SIZE.includes(f.kind) && atLeast(f, INSIGHTS_FIRST_PERCENT)));
}

/**
 * The whole decision for a tab whose inspections just answered: it still shows Types, the user has
 * not moved in it (`untouched`: no Back/Forward step, not restored), has not sorted or filtered
 * Types either (no navigation step, but work in progress: on a 10M-object heap the inspections
 * answer seconds after the rows, time enough to start) and the findings are worth it.
 */
export function opensInsightsFirst(v: Pick<TabViewState, 'view' | 'types'>, untouched: boolean, findings: readonly Pick<InspectionFindingDto, 'kind' | 'bytes'>[], reachableBytes: number): boolean {
  const fresh = defaultViewState().types;
  const typesAsOpened = v.types.filter === fresh.filter && v.types.sort.key === fresh.sort.key && v.types.sort.dir === fresh.sort.dir;
  return v.view === 'types' && untouched && typesAsOpened && worthOpeningInsights(findings, reachableBytes);
}

import type { InspectionFindingDto } from '../../../shared/ipc/contract';

/**
 * When a freshly opened snapshot tab shows Insights instead of Types: the inspections found
 * something worth attention, meaning
 *   - any event-handler-leak or timer-held finding (whatever its size: those objects should be
 *     garbage), or
 *   - a finalization or accumulation-point finding whose exact retained bytes are at least
 *     INSIGHTS_FIRST_SHARE (10%) of the reachable bytes, the suspects report's default threshold.
 * Statics and large objects are listings every heap has, so they never open the view. Growth needs
 * a baseline, which a fresh tab does not have.
 *
 * Only when the user has not moved yet (the tab still shows Types and has no Back/Forward step)
 * and the tab was not restored from a saved session (its saved view is what the user left).
 */
export const INSIGHTS_FIRST_SHARE = 0.1;
const ALWAYS: readonly string[] = ['event-handler-leak', 'timer-held'];
const BY_SIZE: readonly string[] = ['finalization', 'accumulation-point'];

export function worthOpeningInsights(findings: readonly Pick<InspectionFindingDto, 'kind' | 'bytes'>[], reachableBytes: number): boolean {
  return findings.some((f) => ALWAYS.includes(f.kind) || (BY_SIZE.includes(f.kind) && reachableBytes > 0 && f.bytes >= INSIGHTS_FIRST_SHARE * reachableBytes));
}

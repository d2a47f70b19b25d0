import { delegateHeld } from './delegate-retention.js';
import { FlaggedGroups, grouped, type Finding, type InspectionContext } from './finding.js';

export const TIMER_QUEUE_TIMER = 'System.Threading.TimerQueueTimer';

/**
 * Timer-held objects: the disposed object whose timer keeps ticking.
 *
 * Rule: a delegate-held object (delegate-retention.ts: its immediate dominator is a delegate)
 * whose holder, above the delegate chain, is a System.Threading.TimerQueueTimer: the runtime's
 * timer queue → TimerQueueTimer → TimerCallback → the object is its only retention. Grouped by
 * type; bytes = exact retained size.
 */
export function inspectTimers(ctx: InspectionContext): Finding[] {
  const { g } = ctx;
  const names = g.types.names;
  const groups = new FlaggedGroups<number>(ctx);
  delegateHeld(ctx).forEach((node, _delegate, holder) => {
    if (holder === 0xffffffff || names[g.nodeType[holder]] !== TIMER_QUEUE_TIMER) return;
    const type = g.nodeType[node];
    groups.add(node, String(type), type);
  });
  const bytes = groups.finish();
  return groups.keys.map((type, gi) => ({
    kind: 'timer-held',
    title: `${grouped(groups.count[gi])} × ${names[type]} kept alive only by a timer callback`,
    explanation: `Each ${names[type]} is reachable only through the callback of a System.Threading.Timer that was never disposed, so it stays alive and the timer keeps firing.`,
    fix: 'Dispose the Timer (or call Change(Infinite, Infinite)) when its owner is disposed.',
    objects: groups.count[gi],
    bytes: bytes[gi],
    shallowBytes: groups.shallow[gi],
    examples: groups.exampleRows(gi),
    details: { type: names[type] },
  }));
}

import { formatAddress, NODE_PSEUDO, NONE } from '../../graph/heap-graph.js';
import { delegateHeld, staticFieldName } from './delegate-retention.js';
import { baseTypeName, FlaggedGroups, grouped, type Finding, type InspectionContext } from './finding.js';
import { TIMER_QUEUE_TIMER } from './timers.js';

const CLOSURE = /[<[][>\]]c__DisplayClass/;
/** Mono's per-delegate helper object: part of the delegate, not a subscriber. */
const DELEGATE_DATA = 'System.DelegateData';

/**
 * Event-handler leaks: "subscribed, never unsubscribed".
 *
 * Rule: a delegate-held object (delegate-retention.ts: its immediate dominator is a delegate)
 * whose holder — the first node above the delegate chain — is a heap object other than a
 * System.Threading.TimerQueueTimer (those are the timer inspection's), or a static field.
 * Holders that are GC handles, local variables or the root itself are left out (a delegate held
 * by a handle is usually a callback handed to native code, not an event), and so are arrays (a
 * delegate stored in a collection's array is a callback registry — MAUI's property mappers —
 * where the holder is the array, not a publisher's event field), and compiler-generated closures
 * ("<>c__DisplayClass…", which dotnet-gcdump writes "[]c__DisplayClass…": a lambda that captured
 * another delegate, as in MAUI's chained mapper actions). Closures are not reported as
 * subscribers either: a lambda's capture object stored as a callback (dependency-injection
 * factories, options monitors) looks the same as an event subscription in a heap without field
 * names. The cost: an event subscribed with a lambda that captures locals is missed (one that
 * captures only `this`, and a method group, target the subscriber itself and are found).
 * Mono's System.DelegateData is part of its delegate, never a subscriber. Grouped by subscriber
 * type and holder (the publisher). Objects = subscribers; bytes = their exact retained size.
 */
export function inspectEventHandlers(ctx: InspectionContext): Finding[] {
  const { g } = ctx;
  const names = g.types.names;
  const groups = new FlaggedGroups<{ type: number; publisher: number }>(ctx);
  delegateHeld(ctx).forEach((node, _delegate, holder) => {
    if (holder === NONE || holder === g.rootIndex) return;
    const holderName = names[g.nodeType[holder]];
    if (g.nodeFlags[holder] & NODE_PSEUDO) {
      if (staticFieldName(holderName) === null) return;
    } else if (holderName === TIMER_QUEUE_TIMER || baseTypeName(holderName).endsWith('[]') || CLOSURE.test(holderName)) return;
    const type = g.nodeType[node];
    if (CLOSURE.test(names[type]) || names[type] === DELEGATE_DATA) return;
    groups.add(node, `${type}:${holder}`, { type, publisher: holder });
  });
  const bytes = groups.finish();
  return groups.keys.map((k, gi) => {
    const subscriber = names[k.type];
    const publisherType = names[g.nodeType[k.publisher]];
    const field = staticFieldName(publisherType);
    const publisher = field !== null ? `static field ${field}` : `${publisherType} ${formatAddress(g, k.publisher)}`;
    return {
      kind: 'event-handler-leak',
      title: `${grouped(groups.count[gi])} × ${subscriber} kept alive only by delegates of ${publisher}`,
      explanation: `Each ${subscriber} is reachable only through a delegate (an event subscription or callback) that ${publisher} holds, so it lives as long as that publisher.`,
      fix: 'Unsubscribe (-= handler) when the subscriber is closed or disposed, or use a weak event pattern.',
      objects: groups.count[gi],
      bytes: bytes[gi],
      shallowBytes: groups.shallow[gi],
      examples: groups.exampleRows(gi),
      details: {
        subscriberType: subscriber,
        publisherNode: k.publisher,
        publisherType: field !== null ? null : publisherType,
        publisherAddress: field !== null ? null : formatAddress(g, k.publisher),
        staticField: field,
      },
    } satisfies Finding;
  });
}

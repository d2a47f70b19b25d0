import { NODE_PSEUDO, NODE_UNDEFINED, NONE } from '../../graph/heap-graph.js';
import { baseTypeName, type InspectionContext } from './finding.js';

/**
 * Which objects a delegate alone keeps alive, and who holds that delegate. Shared by the
 * event-handler and timer inspections.
 *
 * Delegate types are recognised by name (a .gcdump has no base types), a heuristic: System.Delegate,
 * System.MulticastDelegate, System.Action / Func / Predicate / Comparison (any arity), and every
 * type whose simple name, generic arguments aside, ends in "EventHandler", "Delegate" or
 * "Callback" (System.EventHandler<T>, PropertyChangedEventHandler, TimerCallback …).
 *
 * Rule (exact given that test): an object X is *delegate-held* when it is a heap object, neither a
 * delegate nor an invocation list, and its immediate dominator is a delegate D: every path from a root to X passes
 * through D, so D (its _target or closure) alone keeps X. Its *holder* is found by walking up D's
 * dominator chain past delegates and invocation lists (System.Object[] / System.Delegate[] arrays
 * whose own immediate dominator is a delegate), at most MAX_CHAIN steps: the first other node.
 */
const DELEGATE_NAME = /^System\.(Delegate|MulticastDelegate|Action|Func|Predicate|Comparison)(<.*>)?$/;
const DELEGATE_SUFFIX = /(EventHandler|Delegate|Callback)$/;
const INVOCATION_LIST = /^System\.(Object|Delegate)\[\]$/;
/** A delegate chain longer than this is not followed further (a bound on the work per object). */
export const MAX_CHAIN = 64;

export function isDelegateTypeName(name: string): boolean {
  const base = baseTypeName(name);
  if (DELEGATE_NAME.test(base)) return true;
  const lt = base.indexOf('<');
  return DELEGATE_SUFFIX.test(lt < 0 ? base : base.slice(0, lt));
}

/** Per type: 1 when the type is a delegate type, 2 when an invocation-list array type, else 0. */
export function delegateTypeKinds(ctx: InspectionContext): Uint8Array {
  const names = ctx.g.types.names;
  const kinds = new Uint8Array(names.length);
  for (let t = 0; t < names.length; t++) {
    if (isDelegateTypeName(names[t])) kinds[t] = 1;
    else if (INVOCATION_LIST.test(baseTypeName(names[t]))) kinds[t] = 2;
  }
  return kinds;
}

export interface DelegateHeld {
  /** Visit each delegate-held object with its delegate and holder (NONE when the chain is too long). */
  forEach(visit: (node: number, delegate: number, holder: number) => void): void;
}

export function delegateHeld(ctx: InspectionContext): DelegateHeld {
  const { g, a, token } = ctx;
  const { nodeType, nodeFlags, nodeCount } = g;
  const { idom } = a;
  const kinds = delegateTypeKinds(ctx);
  const isDelegate = (n: number): boolean => (nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) === 0 && kinds[nodeType[n]] === 1;
  const isList = (n: number): boolean => kinds[nodeType[n]] === 2 && idom[n] !== NONE && isDelegate(idom[n]);
  return {
    forEach(visit) {
      for (let n = 0; n < nodeCount; n++) {
        if ((n & 0xffff) === 0) token.throwIfCancelled();
        const d = idom[n];
        if (d === NONE || (nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) !== 0 || kinds[nodeType[n]] === 1 || !isDelegate(d) || isList(n)) continue;
        let h = d;
        let steps = 0;
        while (h !== NONE && (isDelegate(h) || isList(h)) && steps < MAX_CHAIN) {
          h = idom[h];
          steps++;
        }
        visit(n, d, steps >= MAX_CHAIN ? NONE : h);
      }
    },
  };
}

const STATIC_HOLDER = /^\[(thread )?static var (.*)\]$/;

/** "[static var X.Y]" → "X.Y", else null. */
export function staticFieldName(name: string): string | null {
  const m = STATIC_HOLDER.exec(name);
  return m ? m[2] : null;
}

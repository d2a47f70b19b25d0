import { CancelledError } from '../../shared/errors.js';
import type { SessionId } from '../../shared/ipc/contract.js';
import { CancellationSource, type CancellationToken } from '../../shared/util/cancellation.js';

/**
 * Tokens of the snapshot worker's queries (issue 16), for the two ways a query becomes useless
 * before it is answered:
 * - superseded: a newer request of the same session with the same `supersedeKey` (the Sunburst
 *   view zoomed or toggled again) cancels the older one;
 * - stale: the tab no longer shows the session the query was asked of (the ignore list changed:
 *   a what-if was set, replaced or restored). The views are rebuilt for the new numbers and ask
 *   again, so finishing the old query would only delay the new one (and Restore's answer).
 * A cancelled query fails with `cancelled` at its next check; the renderer ignores that answer.
 * Cost: one map entry per keyed query in flight, one closure call per token check.
 */
export class QueryTokens {
  private readonly byKey = new Map<string, CancellationSource>();

  /**
   * A token for a query arriving now: fires when a later `begin` with the same key comes, or as
   * soon as `shown()` is false. Call `end()` once the query is answered.
   */
  begin(sessionId: SessionId, key: string | undefined, shown: () => boolean): { token: CancellationToken; end(): void } {
    const own = new CancellationSource();
    const mapKey = key === undefined ? null : `${sessionId}\u0000${key}`;
    if (mapKey !== null) {
      this.byKey.get(mapKey)?.cancel('superseded by a newer request of the same view');
      this.byKey.set(mapKey, own);
    }
    const token: CancellationToken = {
      get isCancelled() {
        return own.isCancelled || !shown();
      },
      throwIfCancelled() {
        own.throwIfCancelled();
        if (!shown()) throw new CancelledError('the tab shows other numbers now (the ignore list changed)');
      },
    };
    const end = () => {
      if (mapKey !== null && this.byKey.get(mapKey) === own) this.byKey.delete(mapKey);
    };
    return { token, end };
  }

  /** Queries in flight with a key (tests, stats). */
  get keyed(): number {
    return this.byKey.size;
  }
}

/** A token that fires when either of two does (the first one's reason wins). */
export function eitherToken(a: CancellationToken, b: CancellationToken): CancellationToken {
  return {
    get isCancelled() {
      return a.isCancelled || b.isCancelled;
    },
    throwIfCancelled() {
      a.throwIfCancelled();
      b.throwIfCancelled();
    },
  };
}

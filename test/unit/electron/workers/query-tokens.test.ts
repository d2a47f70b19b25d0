import { describe, expect, it } from 'vitest';
import type { SessionId } from '../../../../shared/ipc/contract.js';
import { eitherToken, QueryTokens } from '../../../../electron/workers/query-tokens.js';
import { CancellationSource } from '../../../../shared/util/cancellation.js';

// Issue 16: the snapshot worker's query tokens (query-tokens.ts): superseded by key within one
// session, stale when the tab shows another session, and the either-token of setRetained.
const s1 = 's1' as SessionId;
const s2 = 's2' as SessionId;

describe('query tokens', () => {
  it('a newer request with the same key in the same session supersedes the older one only', () => {
    const q = new QueryTokens();
    const a = q.begin(s1, 'sunburst:d1', () => true);
    const other = q.begin(s1, 'sunburst:d2', () => true);
    const otherSession = q.begin(s2, 'sunburst:d1', () => true);
    const unkeyed = q.begin(s1, undefined, () => true);
    expect(q.keyed).toBe(3);
    const b = q.begin(s1, 'sunburst:d1', () => true);
    expect([a.token.isCancelled, b.token.isCancelled, other.token.isCancelled, otherSession.token.isCancelled, unkeyed.token.isCancelled]).toEqual([true, false, false, false, false]);
    expect(() => a.token.throwIfCancelled()).toThrow(expect.objectContaining({ code: 'cancelled', message: 'superseded by a newer request of the same view' }));
    // the older one ending does not drop the newer one's entry
    a.end();
    expect(q.keyed).toBe(3);
    const c = q.begin(s1, 'sunburst:d1', () => true);
    expect(b.token.isCancelled).toBe(true);
    for (const x of [b, c, other, otherSession, unkeyed]) x.end();
    expect(q.keyed).toBe(0);
  });

  it('a query is stale as soon as the tab shows something else', () => {
    let shown = true;
    const t = new QueryTokens().begin(s1, undefined, () => shown).token;
    expect(t.isCancelled).toBe(false);
    t.throwIfCancelled();
    shown = false;
    expect(t.isCancelled).toBe(true);
    expect(() => t.throwIfCancelled()).toThrow(expect.objectContaining({ code: 'cancelled', message: 'the tab shows other numbers now (the ignore list changed)' }));
  });

  it('either token fires when one of the two does, the first one first', () => {
    const a = new CancellationSource();
    const b = new CancellationSource();
    const t = eitherToken(a.token, b.token);
    expect(t.isCancelled).toBe(false);
    b.cancel('b');
    expect(t.isCancelled).toBe(true);
    expect(() => t.throwIfCancelled()).toThrow('b');
    a.cancel('a');
    expect(() => t.throwIfCancelled()).toThrow('a');
  });
});

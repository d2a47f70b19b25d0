import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { setRetainedOf, prepareSetRetainedScratch } from '../../../../shared/analysis/set-retained.js';
import { AppError, CancelledError } from '../../../../shared/errors.js';
import { SetRetainedView } from '../../../../shared/session/set-retained-view.js';
import { SnapshotSession } from '../../../../shared/session/snapshot-session.js';
import { CancellationSource, NEVER_CANCELLED } from '../../../../shared/util/cancellation.js';
import { holderLeafSession } from '../../../helpers/tiny-session.js';
import { syntheticHeap } from '../../../helpers/random-graph.js';

const run = { token: NEVER_CANCELLED, pause: () => Promise.resolve() };

// root → [static vars] → A(Holder 16) → B, C (Leaf 8 each) → D (Big 32, via both)
// root → [local vars] → E(Holder 24) → F(Leaf 8);   G (Garbage 100) is referenced by nothing.
// Leaf: type retained B + C + F = 24 (D is held by B and C jointly); set retained 24 + D = 56.
const session = (): SnapshotSession => holderLeafSession().s;

const rowsOf = (s: SnapshotSession) => s.typeRows({ sort: { key: 'type', dir: 'asc' }, start: 0, end: 10 }).rows.map((r) => [r.type, r.retainedSize, r.setRetainedSize]);

describe('SnapshotSession.setRetained (types grid, on demand)', () => {
  it('fills setRetainedSize of the computed types only, and keeps it', async () => {
    const s = session();
    s.runAnalysis();
    expect(rowsOf(s)).toEqual([
      ['Big', 32, null],
      ['Garbage', 0, null],
      ['Holder', 96, null],
      ['Leaf', 24, null],
    ]);
    const leaf = s.graph.types.names.indexOf('Leaf');
    const garbage = s.graph.types.names.indexOf('Garbage');
    const r = await s.setRetained([leaf, garbage], run);
    expect(r.rows).toEqual([
      { typeIndex: leaf, setRetainedSize: 56 },
      { typeIndex: garbage, setRetainedSize: 0 },
    ]);
    expect(rowsOf(s)).toEqual([
      ['Big', 32, null],
      ['Garbage', 0, 0],
      ['Holder', 96, null],
      ['Leaf', 24, 56],
    ]);
    expect(SnapshotSession.needsAnalysis('setRetained', {})).toBe(true);
  });

  it('refuses before the analysis and on bad type indices, with coded errors', async () => {
    const s = session();
    expect(() => s.setRetained([1], run)).toThrow(AppError);
    s.runAnalysis();
    for (const bad of [[-1], [1.5], [s.graph.types.count], new Array<number>(1001).fill(1)]) {
      let code = '';
      try {
        await s.setRetained(bad, run);
      } catch (e) {
        code = (e as AppError).code;
      }
      expect(code).toBe('usage/bad-argument');
    }
  });
});

describe('SetRetainedView slicing and cancellation', () => {
  const g = syntheticHeap(200_000, 2.5, 5);
  const a = analyzeGraph(g);
  const types = [3, 4, 5];
  const exact = types.map((t) => setRetainedOf(g, a, t, prepareSetRetainedScratch(g.nodeCount)));
  // a clock that moves 10 ms per reading: a slice (30 ms) ends after a few steps
  const clock = () => {
    let t = 0;
    return () => (t += 10);
  };

  it('pauses between slices, reports progress, and gives the walk-to-the-end figures', async () => {
    const view = new SetRetainedView(g);
    let pauses = 0;
    const progress: [number, number, number][] = [];
    const r = await view.compute(a, types, {
      token: NEVER_CANCELLED,
      pause: async () => void pauses++,
      progress: (done, total, fraction) => progress.push([done, total, fraction]),
      now: clock(),
    });
    expect(r.rows.map((x) => x.setRetainedSize)).toEqual(exact);
    expect(pauses).toBeGreaterThan(0);
    expect(progress[0]).toEqual([0, 3, 0]);
    expect(progress.at(-1)).toEqual([3, 3, 1]);
    for (let i = 1; i < progress.length; i++) expect(progress[i][2]).toBeGreaterThanOrEqual(progress[i - 1][2]);
    // computed types come from the cache: no walk, no pause
    pauses = 0;
    const again = await view.compute(a, types, { token: NEVER_CANCELLED, pause: async () => void pauses++, now: clock() });
    expect([again.rows.map((x) => x.setRetainedSize), pauses]).toEqual([exact, 0]);
  });

  it('stops at the next pause when cancelled, keeps what finished, and runs calls one after the other', async () => {
    const view = new SetRetainedView(g);
    const src = new CancellationSource();
    const order: string[] = [];
    const first = view.compute(a, [types[0]], { token: NEVER_CANCELLED, pause: async () => void order.push('first'), now: clock() });
    const second = view.compute(a, [types[1], types[2]], {
      token: src.token,
      progress: (done) => {
        if (done === 1) src.cancel('stop'); // after the first type finished
      },
      pause: async () => void order.push('second'),
      now: clock(),
    });
    await expect(second).rejects.toBeInstanceOf(CancelledError);
    expect((await first).rows[0].setRetainedSize).toBe(exact[0]);
    expect(order.indexOf('second')).toBeGreaterThan(order.lastIndexOf('first'));
    expect([view.value(types[0]), view.value(types[1]), view.value(types[2])]).toEqual([exact[0], exact[1], null]);
    // the queue goes on after a cancelled call
    expect((await view.compute(a, [types[2]], { token: NEVER_CANCELLED, pause: async () => undefined })).rows[0].setRetainedSize).toBe(exact[2]);
  });
});

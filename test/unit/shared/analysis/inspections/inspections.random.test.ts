import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../../shared/analysis/analyze.js';
import { inspectAccumulation } from '../../../../../shared/analysis/inspections/accumulation.js';
import { inspectEventHandlers } from '../../../../../shared/analysis/inspections/event-handlers.js';
import { makeContext, type Finding } from '../../../../../shared/analysis/inspections/finding.js';
import { inspectTimers } from '../../../../../shared/analysis/inspections/timers.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED, NONE } from '../../../../../shared/graph/heap-graph.js';
import { NEVER_CANCELLED } from '../../../../../shared/util/cancellation.js';
import { naiveAnalysis, type NaiveAnalysis } from '../../../../helpers/naive-dominators.js';
import { mulberry32, randomGraph } from '../../../../helpers/random-graph.js';

/**
 * Seeded random graphs whose object types are delegates, invocation lists, timers and plain
 * types: the delegate-held inspections and accumulation points against the rules applied to the
 * naive (definition-based) dominators, with bytes from the naive dominated sets.
 */
const TYPES = ['System.EventHandler', 'System.Object[]', 'System.Threading.TimerQueueTimer', 'Sub', 'Other'];

function withTypeNames(g: HeapGraph): HeapGraph {
  const names = g.types.names.map((n) => (/^T\d+$/.test(n) ? TYPES[Number(n.slice(1))] : n));
  return { ...g, types: { ...g.types, names } };
}

const isObj = (g: HeapGraph, n: number) => (g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) === 0;
const typeOf = (g: HeapGraph, n: number) => g.types.names[g.nodeType[n]];

/** The rules of delegate-retention.ts, event-handlers.ts and timers.ts over naive idoms. */
function naiveDelegateHeld(g: HeapGraph, o: NaiveAnalysis, kind: 'event' | 'timer'): Map<string, number[]> {
  const del = (n: number) => isObj(g, n) && typeOf(g, n) === 'System.EventHandler';
  const list = (n: number) => typeOf(g, n) === 'System.Object[]' && o.idom[n] !== NONE && del(o.idom[n]);
  const groups = new Map<string, number[]>();
  for (let n = 0; n < g.nodeCount; n++) {
    const d = o.idom[n];
    if (d === NONE || !isObj(g, n) || del(n) || list(n) || !del(d)) continue;
    let h = d;
    while (h !== NONE && (del(h) || list(h))) h = o.idom[h];
    if (h === NONE || h === g.rootIndex || !isObj(g, h)) continue; // no static holders in these graphs
    const timer = typeOf(g, h) === 'System.Threading.TimerQueueTimer';
    if (timer !== (kind === 'timer') || (!timer && typeOf(g, h).endsWith('[]'))) continue;
    const key = kind === 'timer' ? typeOf(g, n) : `${typeOf(g, n)}@${h}`;
    groups.set(key, [...(groups.get(key) ?? []), n]);
  }
  return groups;
}

/** Σ naive retained over members no other member (of any group) strictly dominates. */
function naiveBytes(o: NaiveAnalysis, groups: Map<string, number[]>): Map<string, number> {
  const all = [...groups.values()].flat();
  const covered = new Set<number>();
  for (const m of all) for (const x of o.dominated[m]) covered.add(x);
  return new Map([...groups].map(([k, ms]) => [k, ms.filter((m) => !covered.has(m)).reduce((s, m) => s + o.retained[m], 0)]));
}

function asMap(fs: Finding[], key: (f: Finding) => string): Map<string, { objects: number; bytes: number }> {
  return new Map(fs.map((f) => [key(f), { objects: f.objects, bytes: f.bytes }]));
}

describe('inspections vs naive dominators (seeded random graphs)', () => {
  it('event-handler leaks, timer-held objects and accumulation points match on 1,500 graphs', () => {
    const rnd = mulberry32(16);
    let seenEvent = 0;
    let seenTimer = 0;
    let seenAccumulation = 0;
    for (let c = 0; c < 1500; c++) {
      const seed = Math.floor(rnd() * 2 ** 31);
      const g = withTypeNames(randomGraph(seed, { nodes: 2 + Math.floor(rnd() * 60), types: TYPES.length, avgDegree: 0.6 + rnd() * 1.6 }));
      const a = analyzeDominance(g);
      const o = naiveAnalysis(g);
      const ctx = makeContext(g, a, NEVER_CANCELLED, 3);
      const where = `seed ${seed}`;

      for (const kind of ['event', 'timer'] as const) {
        const groups = naiveDelegateHeld(g, o, kind);
        const bytes = naiveBytes(o, groups);
        const expected = new Map([...groups].map(([k, ms]) => [k, { objects: ms.length, bytes: bytes.get(k)! }]));
        const got = kind === 'event' ? asMap(inspectEventHandlers(ctx), (f) => `${f.details.subscriberType}@${f.details.publisherNode}`) : asMap(inspectTimers(ctx), (f) => String(f.details.type));
        expect(got, `${kind} ${where}`).toEqual(expected);
        if (kind === 'event') seenEvent += groups.size;
        else seenTimer += groups.size;
      }

      const opts = { minShare: 0.05, minChildren: 2, maxLargestChildShare: 0.6 };
      const expectedAcc = new Map<string, { objects: number; bytes: number }>();
      for (let n = 0; n < g.nodeCount; n++) {
        if (!isObj(g, n) || !o.reachable[n] || o.retained[n] < Math.max(1, opts.minShare * o.retained[g.rootIndex])) continue;
        const kids: number[] = [];
        for (let k = 0; k < g.nodeCount; k++) if (o.idom[k] === n) kids.push(k);
        if (kids.length < opts.minChildren || Math.max(...kids.map((k) => o.retained[k])) > opts.maxLargestChildShare * o.retained[n]) continue;
        expectedAcc.set(String(n), { objects: kids.length, bytes: o.retained[n] });
      }
      expect(asMap(inspectAccumulation(ctx, opts), (f) => String(f.details.node)), `accumulation ${where}`).toEqual(expectedAcc);
      seenAccumulation += expectedAcc.size;
    }
    // the generator must actually produce each pattern
    expect(seenEvent).toBeGreaterThan(100);
    expect(seenTimer).toBeGreaterThan(50);
    expect(seenAccumulation).toBeGreaterThan(100);
  });
});

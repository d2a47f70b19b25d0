/**
 * The grouped dominator tree and "Retained by" (issue 14) on a synthetic heap: the first call
 * (one walk of the dominator tree + a counting sort), the first expansion of the largest group
 * (its instances sorted by retained size), a later window of it (a slice), and "Retained by" of
 * the type with the most instances. A benchmark, not a test:
 *
 *   npx tsx test/perf/dominator-groups.bench.ts [--objects 2000000] [--edges 2.5]
 *
 * syntheticHeap spreads objects over 2,000 types; `--one-type` instead puts every object in one
 * type directly under the root, the worst case for the instance sort (one group of N).
 */
import type { FileEntry, FileToken, SessionId } from '../../shared/ipc/contract.js';
import { SnapshotSession } from '../../shared/session/snapshot-session.js';
import { oneTypeHeap, syntheticHeap } from '../helpers/random-graph.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const OBJECTS = arg('objects', 2_000_000);
const EDGES = arg('edges', 2.5);
const ONE_TYPE = process.argv.includes('--one-type');

const g = ONE_TYPE ? oneTypeHeap(OBJECTS) : syntheticHeap(OBJECTS, EDGES);
const file = { token: 't' as FileToken, name: 'bench', displayPath: 'bench', size: 0, modifiedMs: 0, source: 'path', formatHint: null, exists: true } satisfies FileEntry;
const session = new SnapshotSession(g, { sessionId: 's' as SessionId, file, parseMs: 0 });
const t0 = performance.now();
session.runAnalysis();
const analysisMs = performance.now() - t0;

const ms = (f: () => unknown) => {
  const t = performance.now();
  f();
  return Math.round(performance.now() - t);
};
let groups = 0;
const first = ms(() => (groups = session.dominatorTypeGroups({ start: 0, end: 100 }).total));
const again = ms(() => session.dominatorTypeGroups({ start: 100, end: 200 }));
const big = session.dominatorTypeGroups({ start: 0, end: 10_000 }).rows.reduce((x, r) => (r.count > x.count ? r : x));
const expand = ms(() => session.dominatorTypeInstances({ typeIndex: big.typeIndex, start: 0, end: 200 }));
const window2 = ms(() => session.dominatorTypeInstances({ typeIndex: big.typeIndex, start: 200, end: 400 }));
const retainedBy = ms(() => session.retainedBy({ typeIndex: big.typeIndex }));
console.log(
  JSON.stringify({
    objects: g.nodeCount,
    analysisMs: Math.round(analysisMs),
    groups,
    firstGroupsMs: first,
    nextGroupsWindowMs: again,
    largestGroup: big.count,
    expandLargestMs: expand,
    nextInstancesWindowMs: window2,
    retainedByMs: retainedBy,
  }),
);

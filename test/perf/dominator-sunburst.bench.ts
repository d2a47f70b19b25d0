import { performance } from 'node:perf_hooks';
import type { DominatorSunburstReq, FileEntry, FileToken, SessionId } from '../../shared/ipc/contract.js';
import { SnapshotSession } from '../../shared/session/snapshot-session.js';
import { oneTypeHeap, syntheticHeap } from '../helpers/random-graph.js';
import { makeSyntheticHeap } from '../tools/synthetic-heap.js';

/**
 * The Sunburst view's query (issue 16) on a synthetic heap: the whole heap by object and by type,
 * a zoom into the largest ring-1 item, and a type-path center; per query the wall and CPU time,
 * the items and the JSON bytes that cross to the UI. A benchmark, not a test:
 *
 *   npx tsx test/perf/dominator-sunburst.bench.ts [--objects 2000000] [--edges 2.5] [--one-type] [--net]
 *
 * `--net` uses the .NET-like heap of `npm run gen` (seed 7; the Sunburst UI bench's heap) instead
 * of the random one: many types, deep collections, so by type every ring keeps many groups.
 * `--one-type` puts every object in one type directly under the root: the worst case of one
 * expanded item with N children (by object: N − 30 folded and summed; by type: one group of N).
 * Target: every query well under the 100 ms a click may take, and a payload of at most a few
 * thousand items whatever N.
 */
const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const OBJECTS = arg('objects', 2_000_000);
const EDGES = arg('edges', 2.5);
const ONE_TYPE = process.argv.includes('--one-type');
const NET = process.argv.includes('--net');

const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const g = ONE_TYPE ? oneTypeHeap(OBJECTS) : NET ? makeSyntheticHeap({ objects: OBJECTS, seed: 7 }) : syntheticHeap(OBJECTS, EDGES);
const file = { token: 't' as FileToken, name: 'bench', displayPath: 'bench', size: 0, modifiedMs: 0, source: 'path', formatHint: null, exists: true } satisfies FileEntry;
const session = new SnapshotSession(g, { sessionId: 's' as SessionId, file, parseMs: 0 });
let w = performance.now();
let c = cpu();
session.runAnalysis();
const analysis = { wallMs: Math.round(performance.now() - w), cpuMs: Math.round(cpu() - c) };

function run(label: string, req: Omit<DominatorSunburstReq, 'sessionId'>) {
  w = performance.now();
  c = cpu();
  const r = session.dominatorSunburst(req);
  const wallMs = performance.now() - w;
  const cpuMs = cpu() - c;
  return { r, row: { query: label, wallMs: Math.round(wallMs * 10) / 10, cpuMs: Math.round(cpuMs * 10) / 10, items: r.items.length, jsonBytes: JSON.stringify(r).length } };
}

const rows = [];
const whole = run('whole heap, by object', { node: null, mode: 'object' });
rows.push(whole.row);
const largest = whole.r.items.find((x) => x.depth === 1 && x.kind === 'object');
if (largest?.node != null) rows.push(run('largest ring-1 object, by object', { node: largest.node, mode: 'object' }).row);
const typed = run('whole heap, by type (first: builds the per-child columns)', { node: null, mode: 'type' });
rows.push(typed.row);
// the same rings again (depth spelled out: not served from the session's cache)
rows.push(run('whole heap, by type, again', { node: null, mode: 'type', depth: 4 }).row);
const group = typed.r.items.find((x) => x.depth === 1 && x.kind === 'group');
if (group?.typeIndex != null) rows.push(run('largest ring-1 group as center, by type', { node: null, mode: 'type', typePath: [group.typeIndex] }).row);
rows.push(run('whole heap, by object, 8 rings, top 200, 0.1 %', { node: null, mode: 'object', depth: 8, top: 200, minShare: 0.001 }).row);
rows.push(run('whole heap, by type, 8 rings, top 200, 0.1 %', { node: null, mode: 'type', depth: 8, top: 200, minShare: 0.001 }).row);
console.log(JSON.stringify({ objects: g.nodeCount, oneType: ONE_TYPE, net: NET, analysis }));
console.table(rows);

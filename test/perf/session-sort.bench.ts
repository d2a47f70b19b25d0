/**
 * How long the types grid takes to sort 100,000 types (target: ≤ 300 ms per first sort; a cached
 * order then costs nothing), and the first window after the sort. A benchmark, not a test:
 *
 *   npx tsx test/perf/session-sort.bench.ts [--types 100000] [--objects 400000]
 *
 * The graph: one root holding `objects` objects spread over `types` types with random sizes
 * (seeded), so every numeric column has many distinct values and names sort non-trivially.
 */
import { HeapGraphBuilder } from '../../shared/graph/heap-graph-builder.js';
import { emptyMetadata } from '../../shared/graph/metadata.js';
import { NODE_PSEUDO } from '../../shared/graph/heap-graph.js';
import type { FileEntry, FileToken, SessionId, TypeSortKey } from '../../shared/ipc/contract.js';
import { SnapshotSession } from '../../shared/session/snapshot-session.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const TYPES = arg('types', 100_000);
const OBJECTS = arg('objects', 400_000);

let s = 12345;
const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296);

const b = new HeapGraphBuilder({ expectedNodes: OBJECTS + 1, expectedEdges: OBJECTS });
const rootType = b.addType('[root]', null, 0);
const types: number[] = [];
for (let t = 0; t < TYPES; t++) types.push(b.addType(`Ns${Math.floor(rand() * 1000)}.Type${t.toString(36)}`, `/app/Module${t % 37}.dll`, 24));
b.createNodes(OBJECTS + 1);
const kids = new Uint32Array(OBJECTS);
for (let i = 0; i < OBJECTS; i++) kids[i] = i + 1;
b.setNode(0, rootType, 0, kids);
b.addFlags(0, NODE_PSEUDO);
for (let i = 1; i <= OBJECTS; i++) {
  b.setNode(i, types[i <= TYPES ? i - 1 : Math.floor(rand() * TYPES)], 16 + Math.floor(rand() * 4096), []);
  b.setAddress(i, 0x10000 + i * 32);
}
b.setRoot(0);
const g = b.finish(emptyMetadata('synthetic'));
const file = { token: 't' as FileToken, name: 'bench', displayPath: 'bench', size: 0, modifiedMs: 0, source: 'path', formatHint: null, exists: true } satisfies FileEntry;

let t0 = performance.now();
const session = new SnapshotSession(g, { sessionId: 's' as SessionId, file, parseMs: 0 });
const statsMs = performance.now() - t0;
t0 = performance.now();
session.runAnalysis();
const analysisMs = performance.now() - t0;

const results: Record<string, number> = {};
const keys: TypeSortKey[] = ['count', 'shallowSize', 'retainedSize', 'type', 'module'];
for (const key of keys) {
  for (const dir of ['desc', 'asc'] as const) {
    t0 = performance.now();
    const w = session.typeRows({ sort: { key, dir }, start: 0, end: 100 });
    results[`${key} ${dir}`] = Math.round(performance.now() - t0);
    if (w.total !== TYPES) throw new Error(`expected ${TYPES} rows, got ${w.total}`);
  }
}
t0 = performance.now();
session.typeRows({ sort: { key: 'count', dir: 'desc' }, start: 50_000, end: 50_100 });
const cachedMs = performance.now() - t0;
t0 = performance.now();
session.typeRows({ sort: { key: 'shallowSize', dir: 'desc' }, filter: 'type1', start: 0, end: 100 });
const filterMs = performance.now() - t0;
process.stdout.write(
  JSON.stringify({ types: TYPES, objects: OBJECTS, statsMs: Math.round(statsMs), analysisMs: Math.round(analysisMs), firstSortMs: results, cachedWindowMs: +cachedMs.toFixed(2), filterSortMs: Math.round(filterMs) }) + '\n',
);

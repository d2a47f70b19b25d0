import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { analyzeGraph } from '../../shared/analysis/analyze.js';
import { prepareSetRetainedScratch, SET_RETAINED_STEP, SetRetainedWalk } from '../../shared/analysis/set-retained.js';
import { groupReachableInstances } from '../../shared/analysis/set-retained-scope.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { syntheticHeap } from '../helpers/random-graph.js';
import { makeSyntheticHeap } from '../tools/synthetic-heap.js';

/**
 * `npx tsx test/perf/set-retained.bench.ts [nodes] [refsPerObject] [synthetic|random] [top]`
 *
 * The cost of the set retained size (report --set-retained, the types grid's "Calculate exact")
 * for the `top` types by type retained size and by count: per type, wall and CPU ms, nodes
 * scanned, and where the walk started ('instance' = no walk, 'root' = a full walk, 'subtree' =
 * confined to the instances' common-dominator subtree). For comparison, one full walk is about as
 * long as the dominator analysis' DFS. No target: the figure is computed on request and the UI
 * and the CLI show progress; this tells what a request costs.
 */
export function benchSetRetained(g: HeapGraph, top: number): Record<string, unknown> {
  const a = analyzeGraph(g);
  const cpu = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const t0 = performance.now();
  const c0 = cpu();
  const byType = groupReachableInstances(g, a.reachable);
  const scratch = prepareSetRetainedScratch(g.nodeCount);
  const setupMs = performance.now() - t0;
  const ids = Array.from({ length: g.types.count }, (_, t) => t);
  const pick = (key: Float64Array) => [...ids].sort((x, y) => key[y] - key[x] || x - y).slice(0, top);
  const types = [...new Set([...pick(a.typeRetained), ...pick(a.typeReachableCount)])];
  const rows = types.map((t) => {
    const w0 = performance.now();
    const cc = cpu();
    const w = new SetRetainedWalk(g, a, t, scratch, byType.nodes.subarray(byType.start[t], byType.start[t + 1]));
    while (!w.step(SET_RETAINED_STEP));
    const kind = w.top === 0xffffffff ? 'instance' : w.top === g.rootIndex ? 'root' : 'subtree';
    return { type: g.types.names[t], instances: a.typeReachableCount[t], typeRetained: a.typeRetained[t], setRetained: w.result, kind, scanned: w.scanned, ms: Math.round(performance.now() - w0), cpuMs: Math.round(cpu() - cc) };
  });
  return {
    nodes: g.nodeCount,
    reachable: a.reachableCount,
    types: rows.length,
    setupMs: Math.round(setupMs),
    totalMs: Math.round(performance.now() - t0),
    totalCpuMs: Math.round(cpu() - c0),
    fullWalks: rows.filter((r) => r.kind === 'root').length,
    noWalk: rows.filter((r) => r.kind === 'instance').length,
    scannedPerReachable: Math.round((rows.reduce((s, r) => s + r.scanned, 0) / a.reachableCount) * 100) / 100,
    rows,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const nodes = Number(process.argv[2] ?? 1_000_000);
  const degree = Number(process.argv[3] ?? 2.5);
  const kind = process.argv[4] ?? 'synthetic';
  const top = Number(process.argv[5] ?? 20);
  if (kind !== 'synthetic' && kind !== 'random') throw new Error(`heap kind must be synthetic or random (got ${kind})`);
  const g = kind === 'random' ? syntheticHeap(nodes, degree, 1) : makeSyntheticHeap({ objects: nodes, seed: 1, refsPerObject: degree });
  console.log(JSON.stringify({ heap: kind, ...benchSetRetained(g, top) }, null, 2));
}

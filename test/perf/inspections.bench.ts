import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { analyzeDominance } from '../../shared/analysis/analyze.js';
import { runInspections } from '../../shared/analysis/inspections/index.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { syntheticHeap } from '../helpers/random-graph.js';

/**
 * `npx tsx test/perf/inspections.bench.ts [nodes] [refsPerObject]`
 *
 * The cost of `runInspections` (heapscope inspect, on top of the analysis) on a synthetic heap
 * whose types are renamed so every pattern occurs: one type in 7 is a delegate, one in 11 an
 * invocation-list array, one in 13 a TimerQueueTimer. Prints wall and CPU ms of the analysis and
 * of the inspections, and the findings per kind. Target: the inspections cost no more than the
 * analysis they follow (they are a handful of O(nodes) passes).
 */
function withPatternTypes(g: HeapGraph): HeapGraph {
  const names = g.types.names.map((n, t) =>
    n.startsWith('[') ? n : t % 7 === 0 ? 'System.EventHandler' : t % 11 === 0 ? 'System.Object[]' : t % 13 === 0 ? 'System.Threading.TimerQueueTimer' : n,
  );
  return { ...g, types: { ...g.types, names } };
}

export function benchInspections(g: HeapGraph): Record<string, unknown> {
  const cpu = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let w = performance.now();
  let c = cpu();
  const a = analyzeDominance(g);
  const analysisMs = performance.now() - w;
  const analysisCpuMs = cpu() - c;
  w = performance.now();
  c = cpu();
  const r = runInspections(g, a);
  const inspectMs = performance.now() - w;
  const inspectCpuMs = cpu() - c;
  const perKind: Record<string, number> = {};
  for (const f of r.findings) perKind[f.kind] = (perKind[f.kind] ?? 0) + 1;
  return {
    nodes: g.nodeCount,
    analysisMs: Math.round(analysisMs),
    analysisCpuMs: Math.round(analysisCpuMs),
    inspectMs: Math.round(inspectMs),
    inspectCpuMs: Math.round(inspectCpuMs),
    withinTarget: inspectCpuMs <= analysisCpuMs,
    findings: perKind,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const nodes = Number(process.argv[2] ?? 1_000_000);
  const degree = Number(process.argv[3] ?? 2.5);
  console.log(JSON.stringify(benchInspections(withPatternTypes(syntheticHeap(nodes, degree, 1))), null, 2));
}

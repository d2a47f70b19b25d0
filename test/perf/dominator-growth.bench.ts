import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { analyzeDominance } from '../../shared/analysis/analyze.js';
import { dominatorGrowth } from '../../shared/analysis/dominator-growth.js';
import { defaultRetainerMinBytes, retainerSignatures, type RetainerSnapshot } from '../../shared/analysis/dominator-signatures.js';
import { syntheticHeap } from '../helpers/random-graph.js';

/**
 * `npx tsx test/perf/dominator-growth.bench.ts [nodes] [snapshots] [refsPerObject] [minBytes]`
 *
 * The cost of a dominator-level trend (`heapscope trend --dominators`) on top of the analyses it
 * reads: per snapshot, the walk that names the retainers (dominator-signatures.ts), then the
 * matching over N snapshots (dominator-growth.ts). The snapshots are synthetic heaps of the same
 * size from different seeds (few retainers match; the cost does not depend on that). minBytes
 * defaults to 0, the worst case: every node within 8 levels is a retainer (the synthetic heap's
 * dominator tree is flat, so no node reaches the real default, 0.01% of the heap). Prints wall
 * and CPU ms of each part next to the analysis. Target: the retainer walk costs a small fraction
 * of the analysis.
 */
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
function time<T>(f: () => T): [T, number, number] {
  const w = performance.now();
  const c = cpu();
  const v = f();
  return [v, Math.round(performance.now() - w), Math.round(cpu() - c)];
}

export function benchDominatorGrowth(nodes: number, snapshots: number, degree: number, minBytesArg: number | null): Record<string, unknown> {
  const snaps: RetainerSnapshot[] = [];
  let analysisMs = 0;
  let analysisCpuMs = 0;
  let walkMs = 0;
  let walkCpuMs = 0;
  let minBytes: number | null = minBytesArg;
  for (let i = 0; i < snapshots; i++) {
    const g = syntheticHeap(nodes, degree, 1 + i);
    const [a, am, ac] = time(() => analyzeDominance(g));
    minBytes ??= defaultRetainerMinBytes(a.reachableSize);
    const [s, wm, wc] = time(() => retainerSignatures(g, a, `s${i}`, { minBytes: minBytes! }));
    snaps.push(s);
    analysisMs += am;
    analysisCpuMs += ac;
    walkMs += wm;
    walkCpuMs += wc;
  }
  const [t, matchMs, matchCpuMs] = time(() => dominatorGrowth(snaps));
  return {
    nodes,
    snapshots,
    minBytes,
    retainersPerSnapshot: snaps.map((s) => s.entries.length),
    defaultMinBytes: minBytesArg === null,
    retainersSeen: t.retainersSeen,
    growing: t.rows.length,
    analysisMs,
    analysisCpuMs,
    walkMs,
    walkCpuMs,
    matchMs,
    matchCpuMs,
    walkToAnalysisCpu: Math.round((walkCpuMs / Math.max(1, analysisCpuMs)) * 1000) / 1000,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const nodes = Number(process.argv[2] ?? 1_000_000);
  const snapshots = Number(process.argv[3] ?? 3);
  const degree = Number(process.argv[4] ?? 2.5);
  const minBytes = process.argv[5] === 'default' ? null : Number(process.argv[5] ?? 0);
  console.log(JSON.stringify(benchDominatorGrowth(nodes, snapshots, degree, minBytes), null, 2));
}

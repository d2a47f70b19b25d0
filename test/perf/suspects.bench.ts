import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { analyzeDominance } from '../../shared/analysis/analyze.js';
import { buildSuspectsReport, renderSuspectsHtml, renderSuspectsMarkdown } from '../../shared/analysis/suspects/index.js';
import { readGcdump } from '../../shared/formats/gcdump/gcdump-reader.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../shared/util/byte-source.js';
import { syntheticHeap } from '../helpers/random-graph.js';

/**
 * `npx tsx test/perf/suspects.bench.ts [nodes] [refsPerObject] [thresholdPercent]`
 * `npx tsx test/perf/suspects.bench.ts FILE.gcdump [thresholdPercent]` (e.g. `npm run gen -- --objects
 * 2000000 --out big.gcdump`, where --threshold 0.1 lists 20 of its 105 suspects, with paths)
 *
 * The cost of the leak-suspects report (heapscope suspects, on top of the analysis) on a synthetic
 * heap: building the model (type stats, generations, inspections, biggest retainers with their
 * accumulation points and, when there are any, one BFS for the paths) and rendering HTML and
 * Markdown. Prints wall and CPU ms of each part next to the analysis. Target: the report costs no
 * more than the analysis it follows.
 */
export function benchSuspects(g: HeapGraph, thresholdPercent: number): Record<string, unknown> {
  const cpu = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const time = <T>(f: () => T): [T, number, number] => {
    const w = performance.now();
    const c = cpu();
    const v = f();
    return [v, Math.round(performance.now() - w), Math.round(cpu() - c)];
  };
  const [a, analysisMs, analysisCpuMs] = time(() => analyzeDominance(g));
  const [r, modelMs, modelCpuMs] = time(() => buildSuspectsReport(g, a, { fileName: 'synthetic', thresholdPercent }));
  const [html, htmlMs, htmlCpuMs] = time(() => renderSuspectsHtml(r));
  const [md, mdMs, mdCpuMs] = time(() => renderSuspectsMarkdown(r));
  const mdBytes = Buffer.byteLength(md);
  return {
    nodes: g.nodeCount,
    thresholdPercent,
    suspects: r.suspects.length,
    findings: r.findings.length,
    analysisMs,
    analysisCpuMs,
    modelMs,
    modelCpuMs,
    htmlMs,
    htmlCpuMs,
    htmlBytes: Buffer.byteLength(html),
    mdMs,
    mdCpuMs,
    mdBytes,
    withinTarget: modelCpuMs + htmlCpuMs <= analysisCpuMs,
    reportToAnalysisCpu: Math.round(((modelCpuMs + htmlCpuMs) / Math.max(1, analysisCpuMs)) * 100) / 100,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2]?.endsWith('.gcdump')) {
  const g = await readGcdump(new MemoryByteSource(readFileSync(process.argv[2]), process.argv[2]), {});
  console.log(JSON.stringify(benchSuspects(g, Number(process.argv[3] ?? 10)), null, 2));
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const nodes = Number(process.argv[2] ?? 1_000_000);
  const degree = Number(process.argv[3] ?? 2.5);
  const threshold = Number(process.argv[4] ?? 1);
  console.log(JSON.stringify(benchSuspects(syntheticHeap(nodes, degree, 1), threshold), null, 2));
}

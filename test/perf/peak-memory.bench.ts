/**
 * Where the CLI path's peak memory comes from: loads FILE the way `heapscope report --sort
 * retained` does (loadSnapshot, then analyzeTypeRetention) and prints, for each progress phase,
 * the highest RSS and ArrayBuffer bytes seen during it, in bytes per node. A benchmark, not a
 * test (memory depends on GC timing by a few percent):
 *
 *   npx tsx test/perf/peak-memory.bench.ts FILE [--tree] [--fast]
 *
 * `--tree` runs analyzeDominance (the sorted dominator tree too, as the app does) instead;
 * `--fast` passes `lowMemory: false` (the dominators store their later predecessors during the
 * DFS, as the report's default mode does: more memory, less CPU); either way the bench does
 * what the report does after the parse (report-graph.ts: the graph without its address column,
 * one GC; phase `released`).
 * The last line prints the process's CPU time next to the wall time.
 * RSS is sampled on every progress call (at most one per 64Ki loop iterations), so a spike
 * between two calls can be missed; the final line prints the kernel's own peak (VmHWM) too.
 */
import { readFileSync } from 'node:fs';
import { analyzeDominance, analyzeTypeRetention } from '../../shared/analysis/analyze.js';
import { loadSnapshot } from '../../electron/cli/load.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { releaseParseGarbage, withoutAddresses } from '../../electron/cli/report-graph.js';

const file = process.argv[2];
const withTree = process.argv.includes('--tree');
const lowMemory = !process.argv.includes('--fast');
if (!file) {
  console.error('usage: peak-memory.bench.ts FILE [--tree] [--fast]');
  process.exit(2);
}
const MB = 2 ** 20;
const base = process.memoryUsage();
interface Peak { rss: number; ab: number; ms: number }
const phases = new Map<string, Peak>();
const t0 = performance.now();
function sample(phase: string): void {
  const m = process.memoryUsage();
  const p = phases.get(phase) ?? { rss: 0, ab: 0, ms: 0 };
  p.rss = Math.max(p.rss, m.rss);
  p.ab = Math.max(p.ab, m.arrayBuffers);
  p.ms = performance.now() - t0;
  phases.set(phase, p);
}
let lastPhase = '';
const gcAtPhase = process.env.BENCH_GC_PHASES !== undefined && typeof globalThis.gc === 'function';
const sink = (phase: string): void => {
  if (gcAtPhase && phase !== lastPhase) globalThis.gc!();
  lastPhase = phase;
  sample(phase);
};
// as `report` does in both modes (electron/cli/report-graph.ts): the graph without addresses, then
// one GC; in a function of its own, as there, so no register of this frame keeps the file's graph
// (the tree's views, withTree, read no addresses either)
async function load(): Promise<HeapGraph> {
  const loaded = await loadSnapshot(file, { write: () => true } as never, { progress: sink });
  sample('loaded');
  if (process.env.BENCH_GC && globalThis.gc) { globalThis.gc(); sample('after-gc'); }
  return withoutAddresses(loaded.graph);
}
const g = await load();
releaseParseGarbage();
sample('released');
const result = withTree ? analyzeDominance(g, { progress: sink }) : analyzeTypeRetention(g, { progress: sink, lowMemory });
sample('done');
const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
const n = g.nodeCount;
const per = (b: number) => ((b - base.rss) / n).toFixed(1);
console.log(`${file}: ${n.toLocaleString('en-US')} nodes, ${g.edgeCount.toLocaleString('en-US')} references; baseline RSS ${(base.rss / MB).toFixed(0)} MB; bytes per node above baseline`);
for (const [phase, p] of phases) {
  console.log(`${phase.padEnd(12)} t=${(p.ms / 1000).toFixed(1).padStart(6)} s  rss ${(p.rss / MB).toFixed(0).padStart(6)} MB (${per(p.rss).padStart(5)} B/node)  arrayBuffers ${(p.ab / MB).toFixed(0).padStart(6)} MB (${(p.ab / n).toFixed(1)} B/node)`);
}
const cpu = process.cpuUsage();
console.log(`wall ${((performance.now() - t0) / 1000).toFixed(1)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (process, since start)${lowMemory ? '' : ', --fast'}`);
console.log(`peak RSS (VmHWM) ${(hwm / MB).toFixed(0)} MB = ${(hwm / n).toFixed(1)} B/node total, ${per(hwm)} B/node above baseline; reachable ${result.reachableCount}`);

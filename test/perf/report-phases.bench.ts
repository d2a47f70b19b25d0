import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { analyzeTypeRetention } from '../../shared/analysis/analyze.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { loadSnapshot } from '../../electron/cli/load.js';
import { parseArgs } from '../../electron/cli/args.js';
import { reportCommand } from '../../electron/cli/commands/report.js';
import { loadReportGraph, releaseParseGarbage } from '../../electron/cli/report-graph.js';

/**
 * Where `heapscope report`'s time goes, phase by phase, split into what the program does and what
 * the machine charges for memory (issue 17: why 100M objects cost more than twice 50M). Runs the
 * report's own pipeline (loadReportGraph, the GC after the parse, analyzeTypeRetention) and prints
 * for each phase: user and system CPU seconds, minor page faults, wall seconds and RSS at its end.
 * The dominators phase is split where its progress passes the node count: the DFS (with the
 * rescan in low-memory mode) before, the semidominators and NCA after.
 *
 *   npx tsx test/perf/report-phases.bench.ts FILE [--low] [--keep-addresses]
 *
 * `--low` runs the low-memory analysis (the rescan), which `report` picks when memory is tight;
 * `--keep-addresses` reads the graph as the app does (loadSnapshot, the address column kept, no
 * GC after the parse), with the same analysis. One run per process: run sizes one after the
 * other, never side by side (each holds 60–70 bytes per object), and compare system time with
 * test/perf/page-fault-cost.bench.ts on the same machine.
 */
const file = process.argv[2];
if (!file) {
  console.error('usage: report-phases.bench.ts FILE [--low] [--keep-addresses]');
  process.exit(2);
}
const low = process.argv.includes('--low');
const keepAddresses = process.argv.includes('--keep-addresses');
const start = { cpu: process.cpuUsage(), wall: performance.now() };
let last = { user: 0, system: 0, faults: process.resourceUsage().minorPageFault, wall: 0 };

function mark(phase: string): void {
  const cpu = process.cpuUsage(start.cpu);
  const now = { user: cpu.user / 1e6, system: cpu.system / 1e6, faults: process.resourceUsage().minorPageFault, wall: (performance.now() - start.wall) / 1000 };
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
  const round = (x: number) => Math.round(x * 100) / 100;
  console.log(
    JSON.stringify({
      phase,
      userS: round(now.user - last.user),
      systemS: round(now.system - last.system),
      minorFaults: now.faults - last.faults,
      wallS: round(now.wall - last.wall),
      rssGB: round(rss / 1e9),
    }),
  );
  last = now;
}

// in a function of its own, as in report.ts, so that no frame here keeps the file's graph
async function load(): Promise<HeapGraph> {
  const quiet = { write: () => true };
  if (keepAddresses) return (await loadSnapshot(file, quiet)).graph;
  return (await loadReportGraph(file, quiet, parseArgs([file], reportCommand.flags))).graph;
}

const g = await load();
mark('parse');
if (!keepAddresses) {
  releaseParseGarbage();
  mark('gc');
}
let phase = '';
analyzeTypeRetention(g, {
  lowMemory: low,
  progress: (name, done) => {
    const p = name === 'dominators' ? (done < g.nodeCount ? 'dominators-dfs' : 'dominators-semi') : name;
    if (p === phase) return;
    if (phase) mark(phase);
    phase = p;
  },
});
mark(phase);
const cpu = process.cpuUsage(start.cpu);
const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
console.log(
  JSON.stringify({
    file,
    nodes: g.nodeCount,
    edges: g.edgeCount,
    lowMemory: low,
    keepAddresses,
    userS: Math.round(cpu.user / 1e4) / 100,
    systemS: Math.round(cpu.system / 1e4) / 100,
    minorFaults: process.resourceUsage().minorPageFault,
    peakBytesPerObject: Math.round((10 * hwm) / g.nodeCount) / 10,
    load1: Math.round(loadavg()[0] * 10) / 10,
  }),
);

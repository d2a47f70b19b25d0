/**
 * Peak memory of the app's load path (the browser-mode / Electron backend: snapshot worker,
 * analysis children, SharedArrayBuffers; all worker threads of this one process), next to the
 * CLI's (peak-memory.bench.ts). Opens FILE through the real SessionManager, waits until the
 * analysis is done, and samples this process's RSS and ArrayBuffer bytes every 50 ms from the
 * main thread (which only waits meanwhile), printing the peak per stage and in bytes per node.
 * Then it closes the session and prints what stays. A benchmark, not a test:
 *
 *   npm run build:main && npx tsx test/perf/app-memory.bench.ts FILE
 *
 * `arrayBuffers` counts this thread's ArrayBuffers and the SharedArrayBuffers it can see; the
 * workers' own ArrayBuffers show in RSS only, so RSS is the number to compare.
 *
 * Which analysis plan runs is the app's own choice (analysis-runner.ts lowMemoryPlan: the low-memory
 * plan when the fast plan's estimate takes more than half of the memory available);
 * `HEAPSCOPE_MEMORY_LIMIT=2G` makes the 10M-object benchmark heap take the low-memory plan. After the
 * analysis it prints what the tab keeps per structure (SessionAnalysisState.residentBytes), then
 * builds the retainer index through one incoming-references query when the plan left it for the
 * first use, and prints that peak too.
 *
 * Per stage it also prints the process's user and system CPU time and minor page faults (all
 * threads). `HS_TIMELINE=1` prints a line per second of progress (phase, done/total, RSS) to stderr.
 *
 * The dominators stage is also split by its own progress, in quarters of its work (the report
 * lines "dominators work …"): in the low-memory plan the first quarter is the DFS, the second the
 * rescan for later predecessors (dominators-rescan.ts) and the second half the semidominator pass
 * and NCA; in the fast plan the first half is the DFS and the grouping of later predecessors.
 * Progress reaches the bench at most every 100 ms (snapshot-open.ts), which bounds their precision.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionId } from '../../shared/ipc/contract.js';
import { FileRegistry } from '../../electron/host/file-registry.js';
import { SessionManager } from '../../electron/host/session-manager.js';
import { builtWorkerScripts, devWorkerScripts } from '../../electron/workers/worker-scripts.js';

const path = process.argv[2];
if (!path) {
  console.error('usage: app-memory.bench.ts FILE');
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const built = join(root, 'out', 'workers');
const scripts = existsSync(join(built, 'snapshot.worker.mjs')) ? builtWorkerScripts(built) : devWorkerScripts();
const MB = 2 ** 20;
let stage = 'start';
const peaks = new Map<string, { rss: number; ms: number; user: number; sys: number; faults: number }>();
const t0 = performance.now();
// CPU and minor page faults of the whole process (every worker thread) by stage: each stage's
// share is what the counters moved between its first and last sample.
let usage = process.resourceUsage();
const sample = () => {
  const rss = process.memoryUsage.rss();
  const now = process.resourceUsage();
  const p = peaks.get(stage) ?? { rss: 0, ms: 0, user: 0, sys: 0, faults: 0 };
  p.rss = Math.max(p.rss, rss);
  p.ms = performance.now() - t0;
  p.user += now.userCPUTime - usage.userCPUTime;
  p.sys += now.systemCPUTime - usage.systemCPUTime;
  p.faults += now.minorPageFault - usage.minorPageFault;
  usage = now;
  peaks.set(stage, p);
};
const timer = setInterval(sample, 50);
let analysed: (() => void) | null = null;
// the dominators stage by quarter of its work (see above): where each part began, and its CPU then
const DOMINATOR_PARTS = ['0–¼', '¼–½', '½–1'] as const;
const partStarts: { ms: number; usage: NodeJS.ResourceUsage }[] = [];
const partOf = (done: number, total: number) => (done >= total / 2 ? 2 : done >= total / 4 ? 1 : 0);
let lastPhase = '';
let lastLine = 0;
const mgr = new SessionManager({
  scripts,
  poolSize: 2,
  emit: (name, p) => {
    if (name === 'summary-updated') analysed?.();
    const phase = (p as { phase?: string }).phase;
    if (process.env.HS_TIMELINE && name === 'load-progress') {
      const q = p as { done: number; total: number };
      const now = performance.now();
      if (now - lastLine > 1000) {
        lastLine = now;
        console.error(`${((now - t0) / 1000).toFixed(1)} s ${phase} ${q.done}/${q.total} rss ${(process.memoryUsage.rss() / MB).toFixed(0)} MB`);
      }
    }
    if (name === 'load-progress' && phase === 'dominators') {
      const q = p as { done: number; total: number };
      for (let k = partStarts.length; k <= partOf(q.done, q.total); k++) partStarts.push({ ms: performance.now(), usage: process.resourceUsage() });
    }
    if (name === 'load-progress' && phase && phase !== lastPhase) {
      if (lastPhase === 'dominators') partStarts.push({ ms: performance.now(), usage: process.resourceUsage() });
      sample();
      lastPhase = phase;
      stage = phase;
    }
  },
});
mgr.pool.ensureSpare();
await new Promise((r) => setTimeout(r, 1000)); // the spare worker's start is not part of a load
sample();
const base = process.memoryUsage.rss();
const files = new FileRegistry();
const file = await files.register(path, 'path');
const openAt = performance.now();
const info = mgr.open(file, path);
const done = new Promise<void>((r) => (analysed = r));
stage = 'parse';
const summary = await mgr.summary(info.sessionId as SessionId);
stage = 'analysis';
await done;
const doneAt = performance.now();
const cpuAtDone = process.cpuUsage().user + process.cpuUsage().system;
sample();
stage = 'idle (analysed)';
await new Promise((r) => setTimeout(r, 1000));
sample();
const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
const sessionId = info.sessionId as SessionId;
const worker = mgr.pool.route(sessionId);
const resident = (await worker.call('stats', {})).resident;
const hadRetainers = 'retainers.retainerNode' in resident;
stage = 'first retainers';
const tr = performance.now();
await worker.call('references', { sessionId, node: 0, direction: 'incoming', start: 0, end: 1 });
const retainersMs = performance.now() - tr;
sample();
const hwmAfter = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
const residentAfter = (await worker.call('stats', {})).resident;
await mgr.close(info.sessionId);
stage = 'closed';
await new Promise((r) => setTimeout(r, 2000));
sample();
clearInterval(timer);
await mgr.dispose();
const n = summary.nodeCount;
console.log(`${file.name}: ${n.toLocaleString('en-US')} nodes, workers: ${scripts.snapshot.tsEntry ? 'tsx sources' : 'built'}; baseline RSS ${(base / MB).toFixed(0)} MB; bytes per node above baseline`);
for (const [s, p] of peaks) {
  const cpu = `user ${(p.user / 1e6).toFixed(1).padStart(5)} s, system ${(p.sys / 1e6).toFixed(1).padStart(4)} s, ${(p.faults / 1000).toFixed(0).padStart(5)}k faults`;
  console.log(`${s.padEnd(16)} t=${(p.ms / 1000).toFixed(1).padStart(6)} s  peak rss ${(p.rss / MB).toFixed(0).padStart(6)} MB (${((p.rss - base) / n).toFixed(1).padStart(5)} B/node)  ${cpu}`);
}
for (let k = 0; k + 1 < partStarts.length && k < DOMINATOR_PARTS.length; k++) {
  const [a, b] = [partStarts[k], partStarts[k + 1]];
  const secs = (x: number) => (x / 1e6).toFixed(1);
  console.log(`dominators work ${DOMINATOR_PARTS[k]}: ${((b.ms - a.ms) / 1000).toFixed(1)} s wall, user ${secs(b.usage.userCPUTime - a.usage.userCPUTime)} s, system ${secs(b.usage.systemCPUTime - a.usage.systemCPUTime)} s`);
}
console.log(`peak RSS (VmHWM, open → analysis done) ${(hwm / MB).toFixed(0)} MB = ${(hwm / n).toFixed(1)} B/node total, ${((hwm - base) / n).toFixed(1)} B/node above baseline`);
console.log(`open → analysis done ${((doneAt - openAt) / 1000).toFixed(2)} s wall; process CPU ${(cpuAtDone / 1e6).toFixed(2)} s`);
console.log(`kept by the tab after the analysis (bytes per node; each buffer once, at its full length):`);
let total = 0;
for (const [k, v] of Object.entries(resident)) {
  total += v;
  console.log(`  ${k.padEnd(28)} ${(v / n).toFixed(2).padStart(6)}`);
}
console.log(`  ${'total'.padEnd(28)} ${(total / n).toFixed(2).padStart(6)}`);
let indexBytes = 0;
for (const [k, v] of Object.entries(residentAfter)) if (!(k in resident)) indexBytes += v;
console.log(
  hadRetainers
    ? 'retainer index: built during the analysis'
    : `retainer index: built by the first incoming-references query in ${(retainersMs / 1000).toFixed(2)} s, +${(indexBytes / n).toFixed(2)} B/node kept; peak RSS then ${(hwmAfter / MB).toFixed(0)} MB = ${((hwmAfter - base) / n).toFixed(1)} B/node above baseline`,
);

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
const peaks = new Map<string, { rss: number; ms: number }>();
const t0 = performance.now();
const sample = () => {
  const rss = process.memoryUsage.rss();
  const p = peaks.get(stage) ?? { rss: 0, ms: 0 };
  p.rss = Math.max(p.rss, rss);
  p.ms = performance.now() - t0;
  peaks.set(stage, p);
};
const timer = setInterval(sample, 50);
let analysed: (() => void) | null = null;
let lastPhase = '';
const mgr = new SessionManager({
  scripts,
  poolSize: 2,
  emit: (name, p) => {
    if (name === 'summary-updated') analysed?.();
    const phase = (p as { phase?: string }).phase;
    if (name === 'load-progress' && phase && phase !== lastPhase) {
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
const info = mgr.open(file, path);
const done = new Promise<void>((r) => (analysed = r));
stage = 'parse';
const summary = await mgr.summary(info.sessionId as SessionId);
stage = 'analysis';
await done;
sample();
stage = 'idle (analysed)';
await new Promise((r) => setTimeout(r, 1000));
sample();
const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
await mgr.close(info.sessionId);
stage = 'closed';
await new Promise((r) => setTimeout(r, 2000));
sample();
clearInterval(timer);
await mgr.dispose();
const n = summary.nodeCount;
console.log(`${file.name}: ${n.toLocaleString('en-US')} nodes, workers: ${scripts.snapshot.tsEntry ? 'tsx sources' : 'built'}; baseline RSS ${(base / MB).toFixed(0)} MB; bytes per node above baseline`);
for (const [s, p] of peaks) console.log(`${s.padEnd(16)} t=${(p.ms / 1000).toFixed(1).padStart(6)} s  peak rss ${(p.rss / MB).toFixed(0).padStart(6)} MB (${((p.rss - base) / n).toFixed(1).padStart(5)} B/node)`);
console.log(`peak RSS (VmHWM, before close) ${(hwm / MB).toFixed(0)} MB = ${(hwm / n).toFixed(1)} B/node total, ${((hwm - base) / n).toFixed(1)} B/node above baseline`);

import { spawnSync } from 'node:child_process';
import { existsSync, openSync, readFileSync, readSync, closeSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runChase } from './random-access-floor.js';

/**
 * Whether the app's open → analysis done grows linearly with the heap (issue 17: 100M objects in
 * at most 2.1× the 50M time). Runs app-memory.bench.ts on SMALL and BIG one after the other, in
 * fresh processes, PAIRS times (alternating, so a drift of the machine hits both sizes), and
 * prints each pair's ratios, then the medians by stage: wall time, the process's CPU time (every
 * thread) and its system time, which on a VM is mostly page faults. A benchmark, not a test:
 *
 *   npm run build:main && npx tsx test/perf/app-scaling.bench.ts SMALL BIG [--pairs 3]
 *       [--small-limit 8G] [--equalize-page-cache]
 *
 * `--small-limit` runs SMALL with HEAPSCOPE_MEMORY_LIMIT set, so that it takes the plan BIG takes
 * (the app chooses per file: at 50M objects on a 24 GB machine the fast plan, at 100M the
 * low-memory one); each run prints which plan ran. Without it each file gets the app's choice.
 *
 * `--equalize-page-cache` (Linux, root) drops the page cache before each run and reads the run's
 * file back into it. Why: on a VM whose host backs guest memory lazily, a page the host does not
 * back yet costs several times more to touch (test/perf/page-fault-cost.bench.ts), and how much
 * free memory the host backs depends on what the page cache held before; a run that needs more
 * than that pays for the rest in system time. This gives both sizes the same page cache; it does
 * not make the host back the same memory (on the reference VM a 100M-object run still paid
 * ~3 s of dearer faults after it). The page cache at each run's start is printed either way.
 *
 * After each app run the linearity floor runs at that heap's node count (random-access-floor.ts:
 * one dependent and one independent random read per node over 8-byte records, with the pages the
 * app ran with), so each pair prints what the machine itself charges BIG against SMALL for the
 * analysis's kind of work under the same conditions; `--no-floor` skips it.
 */
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const args = process.argv.slice(2);
const flag = (name: string): string | null => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] ?? null : null;
};
const positional = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && ['--pairs', '--small-limit'].includes(args[i - 1])));
if (positional.length !== 2) {
  console.error('usage: app-scaling.bench.ts SMALL BIG [--pairs N] [--small-limit 8G] [--equalize-page-cache] [--no-floor]');
  process.exit(2);
}
const [small, big] = positional;
const pairs = Math.max(1, Number(flag('--pairs') ?? 3));
const smallLimit = flag('--small-limit');
const equalize = args.includes('--equalize-page-cache');
const floor = !args.includes('--no-floor');
if (!existsSync(join(root, 'out', 'workers', 'snapshot.worker.mjs'))) {
  console.error('app-scaling: build the workers first (npm run build:main): the app runs them bundled');
  process.exit(2);
}

interface Run {
  wall: number;
  cpu: number;
  plan: string;
  pageCacheMB: number;
  nodes: number;
  /** The linearity floor at this run's node count: ns per dependent and per independent read (NaN with --no-floor). */
  floorNs: number;
  floorGatherNs: number;
  /** Stage → [seconds, user s, system s], in the order the bench printed them. */
  stages: Map<string, [number, number, number]>;
}

// 'dom …': the dominators stage by quarter of its work; in the low-memory plan the DFS, the
// rescan, then the semidominator pass and NCA (app-memory.bench.ts)
const STAGES = ['parse', 'dominators', 'dom 0–¼', 'dom ¼–½', 'dom ½–1', 'retained', 'types', 'tree'];

function pageCacheMB(): number {
  const m = /^Cached:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

function readThrough(file: string): void {
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 24);
  while (readSync(fd, buf, 0, buf.length, null) > 0);
  closeSync(fd);
}

function runOnce(file: string, limit: string | null): Run {
  if (equalize) {
    spawnSync('sync');
    writeFileSync('/proc/sys/vm/drop_caches', '3');
    readThrough(file);
  }
  const cache = pageCacheMB();
  const env = { ...process.env };
  if (limit) env.HEAPSCOPE_MEMORY_LIMIT = limit;
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, 'app-memory.bench.ts'), file], { cwd: root, env, encoding: 'utf8', maxBuffer: 1 << 26 });
  const out = r.stdout ?? '';
  const done = /open → analysis done ([\d.]+) s wall; process CPU ([\d.]+) s/.exec(out);
  if (r.status !== 0 || !done) throw new Error(`app-memory.bench.ts ${file} failed (${r.status}):\n${out}\n${r.stderr}`);
  const stages = new Map<string, [number, number, number]>();
  let prevT = 0;
  for (const m of out.matchAll(/^(\S[^\n]*?)\s+t=\s*([\d.]+) s .*user\s+([\d.]+) s, system\s+([\d.]+) s/gm)) {
    const t = Number(m[2]);
    stages.set(m[1].trim(), [t - prevT, Number(m[3]), Number(m[4])]);
    prevT = t;
  }
  // the dominators stage by quarter of its work (app-memory.bench.ts)
  for (const m of out.matchAll(/^dominators work (\S+): ([\d.]+) s wall, user ([\d.]+) s, system ([\d.]+) s/gm)) {
    stages.set(`dom ${m[1]}`, [Number(m[2]), Number(m[3]), Number(m[4])]);
  }
  const plan = /retainer index: built during the analysis/.test(out) ? 'fast' : 'low-memory';
  const nodes = Number(/: ([\d,]+) nodes, workers:/.exec(out)?.[1].replaceAll(',', '') ?? NaN);
  const chased = floor && nodes >= 2 ? runChase(nodes) : null;
  const [floorNs, floorGatherNs] = chased ? [chased.nsPerRead, chased.nsPerGather] : [NaN, NaN];
  return { wall: Number(done[1]), cpu: Number(done[2]), plan, pageCacheMB: cache, nodes, floorNs, floorGatherNs, stages };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f = (x: number, d = 1) => x.toFixed(d);

console.log(`app scaling: ${small} → ${big}, ${pairs} pair(s)${smallLimit ? `, small with HEAPSCOPE_MEMORY_LIMIT=${smallLimit}` : ''}${equalize ? ', page cache equalized' : ''}; load ${loadavg()[0].toFixed(1)}`);
const runs: [Run, Run][] = [];
for (let p = 0; p < pairs; p++) {
  const a = runOnce(small, smallLimit);
  const b = runOnce(big, null);
  runs.push([a, b]);
  console.log(
    `pair ${p + 1}: small ${f(a.wall)} s wall, ${f(a.cpu)} s CPU (${a.plan}, page cache ${a.pageCacheMB} MB); big ${f(b.wall)} s wall, ${f(b.cpu)} s CPU (${b.plan}, page cache ${b.pageCacheMB} MB); ` +
      `ratio wall ${f(b.wall / a.wall, 2)}×, CPU ${f(b.cpu / a.cpu, 2)}×; load ${loadavg()[0].toFixed(1)}`,
  );
  if (floor) {
    console.log(
      `  floor: ${f(a.floorNs)} → ${f(b.floorNs)} ns per dependent read, one per node ${f(floorRatio(a, b, 'floorNs'), 2)}×; ` +
        `${f(a.floorGatherNs)} → ${f(b.floorGatherNs)} ns per independent read, ${f(floorRatio(a, b, 'floorGatherNs'), 2)}× (${f(b.nodes / a.nodes, 2)}× the nodes)`,
    );
  }
}
/** What one random read per node (of either kind) costs BIG against SMALL on this machine. */
function floorRatio(a: Run, b: Run, kind: 'floorNs' | 'floorGatherNs'): number {
  return (b.nodes * b[kind]) / (a.nodes * a[kind]);
}
const col = (side: 0 | 1, pick: (r: Run) => number) => median(runs.map((r) => pick(r[side])));
console.log(`medians: small ${f(col(0, (r) => r.wall))} s wall, ${f(col(0, (r) => r.cpu))} s CPU; big ${f(col(1, (r) => r.wall))} s wall, ${f(col(1, (r) => r.cpu))} s CPU`);
console.log(`ratio of the medians: wall ${f(col(1, (r) => r.wall) / col(0, (r) => r.wall), 2)}×, CPU ${f(col(1, (r) => r.cpu) / col(0, (r) => r.cpu), 2)}×; median of the pairs' ratios: wall ${f(median(runs.map(([a, b]) => b.wall / a.wall)), 2)}×, CPU ${f(median(runs.map(([a, b]) => b.cpu / a.cpu)), 2)}×`);
if (floor) {
  const nodes = (side: 0 | 1) => col(side, (r) => r.nodes);
  for (const [kind, name] of [['floorNs', 'dependent'], ['floorGatherNs', 'independent']] as const) {
    const ns = (side: 0 | 1) => col(side, (r) => r[kind]);
    console.log(
      `linearity floor (one ${name} random read per node, the app's pages): ${f(ns(0))} → ${f(ns(1))} ns per read (medians), ratio of the medians ${f((nodes(1) * ns(1)) / (nodes(0) * ns(0)), 2)}×, ` +
        `median of the pairs' ${f(median(runs.map(([a, b]) => floorRatio(a, b, kind))), 2)}× for ${f(nodes(1) / nodes(0), 2)}× the nodes`,
    );
  }
}
console.log('by stage (medians; wall s, user s, system s, small → big; – where a plan has no such stage):');
for (const s of STAGES) {
  const get = (side: 0 | 1, k: 0 | 1 | 2) => col(side, (r) => r.stages.get(s)?.[k] ?? NaN);
  const [w0, w1, u0, u1, s0, s1] = [get(0, 0), get(1, 0), get(0, 1), get(1, 1), get(0, 2), get(1, 2)];
  const ratio = (a: number, b: number) => (Number.isFinite(b / a) ? `${f(b / a, 2)}×` : '–');
  const num = (x: number) => (Number.isFinite(x) ? f(x, 2) : '–').padStart(6);
  console.log(`  ${s.padEnd(11)} wall ${num(w0)} → ${num(w1)} (${ratio(w0, w1)})  user ${num(u0)} → ${num(u1)} (${ratio(u0, u1)})  system ${num(s0)} → ${num(s1)}`);
}

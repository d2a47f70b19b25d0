import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../helpers/prng.js';

/**
 * The linearity floor (issue 17 item 1): how the cost of one dependent random read grows with the
 * array it lands in, on this machine, with no Heapscope code in the way. The analysis's slowest
 * steps are chains of such reads over per-node arrays (the DFS's records, the semidominator
 * pass's forest, the rescan's records), so when a read over 100M nodes' records costs more than
 * one over 50M, work made of such reads cannot take only 2× the 50M time here; this says by how
 * much it costs more.
 *
 * A child node process builds one random cycle through `nodes` records of 2 words each (8 bytes
 * per node, the DFS's compact record: 800 MB at 100M), then follows it for `steps` reads, each
 * read's address taken from the one before: the reads cannot overlap, so each costs the full
 * latency of the memory system, address translation included. Then it reads the records in order
 * and, for each, the record its link names: independent random reads, whose misses overlap (the
 * rescan's kind of work, dominators-rescan.ts), so they cost the memory system's throughput of
 * misses and address translations instead. It prints ns per read of each kind. With pages
 * 'huge' the child starts with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (bin/huge-pages.mjs): 2 MiB
 * pages for the array, so a read's address translation mostly hits the TLB; a gap between that
 * and '4k' (GLIBC_TUNABLES unset) says the growth is the 4 KiB pages' translation. 'inherit'
 * keeps this process's environment (app-scaling: the pages the app ran with).
 *
 *   node --import tsx test/perf/random-access-floor.ts NODES [STEPS]   (the child; prints JSON)
 *
 * random-access-floor.bench.ts runs it on its own; app-scaling.bench.ts runs it beside each app
 * run, at that heap's node count, and prints the floor's ratio next to the app's.
 */
export interface ChaseResult {
  nodes: number;
  steps: number;
  /** Wall time per dependent read, in ns. */
  nsPerRead: number;
  /** Wall time per independent random read (one per node, `nodes` of them), in ns. */
  nsPerGather: number;
  pages: FloorPages;
  /** AnonHugePages / Anonymous of the child's memory at the end (Linux; the records are most of it), or null. */
  hugeShare: number | null;
}

/** Dependent reads per run: enough that a run takes seconds, not so many that 100M takes minutes. */
export const DEFAULT_STEPS = 20_000_000;

export type FloorPages = 'inherit' | '4k' | 'huge';

/** Runs one chase in a child process (so each gets fresh memory and its own page size). */
export function runChase(nodes: number, steps = DEFAULT_STEPS, pages: FloorPages = 'inherit'): ChaseResult {
  const env = { ...process.env };
  if (pages === 'huge') env.GLIBC_TUNABLES = 'glibc.malloc.hugetlb=1';
  if (pages === '4k') delete env.GLIBC_TUNABLES;
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, ['--import', 'tsx', self, String(nodes), String(steps)], { env, encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`random-access floor (${nodes} nodes) failed (${r.status}): ${r.stderr}`);
  return { ...(JSON.parse(r.stdout.trim().split('\n').pop()!) as Omit<ChaseResult, 'pages'>), pages };
}

/**
 * rec[2v] = the next node of one random cycle through all `nodes` (Sattolo's shuffle of 0..n−1
 * gives a single cycle, so a walk of any length never settles into a short, cached loop).
 */
export function randomCycle(nodes: number, seed = 11): Uint32Array {
  const perm = new Uint32Array(nodes);
  for (let i = 0; i < nodes; i++) perm[i] = i;
  const rand = mulberry32(seed);
  for (let i = nodes - 1; i > 0; i--) {
    const j = Math.floor(rand() * i); // Sattolo: j < i
    const t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  const rec = new Uint32Array(2 * nodes);
  for (let v = 0; v < nodes; v++) rec[2 * v] = perm[v];
  return rec;
}

/** Reads each record's linked record, in node order (independent reads); returns a checksum. */
export function gather(rec: Uint32Array, nodes: number): number {
  let sum = 0;
  for (let v = 0; v < nodes; v++) sum = (sum + rec[2 * rec[2 * v]]) | 0;
  return sum;
}

/** Follows the cycle for `steps` reads from node 0; returns where it ended (keeps the loop live). */
export function chase(rec: Uint32Array, steps: number): number {
  let p = 0;
  for (let k = 0; k < steps; k++) p = rec[2 * p];
  return p;
}

function anonHugeShare(): number | null {
  try {
    const status = readFileSync('/proc/self/smaps_rollup', 'utf8');
    const get = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    const share = get('AnonHugePages') / get('Anonymous');
    return Number.isFinite(share) ? Math.round(share * 100) / 100 : null;
  } catch {
    return null;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const nodes = Number(process.argv[2]);
  const steps = Number(process.argv[3] ?? DEFAULT_STEPS);
  if (!(nodes >= 2) || !(steps >= 1)) {
    console.error('usage: random-access-floor.ts NODES [STEPS]');
    process.exit(2);
  }
  const rec = randomCycle(nodes);
  chase(rec, Math.min(steps, 1_000_000)); // compile the loop before timing it
  const t = performance.now();
  const end = chase(rec, steps);
  const ms = performance.now() - t;
  gather(rec, Math.min(nodes, 1_000_000));
  const t2 = performance.now();
  const sum = gather(rec, nodes);
  const ms2 = performance.now() - t2;
  const ns = (total: number, reads: number) => Math.round(((total * 1e6) / reads) * 10) / 10;
  console.log(JSON.stringify({ nodes, steps, nsPerRead: ns(ms, steps), nsPerGather: ns(ms2, nodes), hugeShare: anonHugeShare(), end, sum }));
}

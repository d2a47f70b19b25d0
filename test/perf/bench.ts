/**
 * `npm run bench [-- --sizes 1000000,10000000] [--no-analysis] [--seed N]`
 *
 * For synthetic dumps of 1M and 10M objects (2.5 references per object, written once into the
 * OS temp directory and reused): file size, parse time, MB/s, peak memory and bytes per object of
 * the graph; then, when test/perf/analysis.bench.ts exists, the time of each analysis phase.
 * Every size runs in its own child process so one run's garbage never inflates the next one's
 * peak. Prints readable lines, then one JSON line (`{"bench":"heapscope",...}`) for tools.
 *
 * Targets (issue 2): parse 10M objects in ≤ 3 s; the base graph ≤ 40 bytes per object.
 * Peak memory is sampled every 20 ms (and at phase ends) from process.memoryUsage(): rss is the
 * whole process, arrayBuffers the typed arrays; samples only land while the event loop is free
 * (between the reader's chunk reads), so a spike inside one synchronous step can be missed.
 * CPU time (user + system) is printed next to wall time: on a shared machine the difference is
 * time spent waiting for a core, not work.
 *
 * Then, per size, the parse floor (test/perf/parse-floor.ts: a C program decoding every byte of
 * the file as compressed ints, median of 3) and parse ÷ floor; last, the CLI's start-up with the
 * bundle and from sources (test/perf/cli-startup.bench.ts). `--no-floor` / `--no-startup` skip them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import '../../shared/formats/all-readers.js';
import { readSnapshot } from '../../shared/formats/read-snapshot.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../shared/graph/heap-graph.js';
import { FileByteSource } from '../../electron/files/file-byte-source.js';
import { runFloor, type FloorResult } from './parse-floor.js';
import { measureStartup, startupLines, type StartupResult } from './cli-startup.bench.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');
const TARGET_PARSE_10M_MS = 3000;
const TARGET_GRAPH_BYTES_PER_OBJECT = 40;
const MB = 1e6;

interface ChildResult {
  objects: number;
  file: string;
  fileBytes: number;
  nodes: number;
  edges: number;
  parseMs: number;
  /** CPU time (user + system) of the parse: wall time minus waiting for a shared machine. */
  parseCpuMs: number;
  parseMBps: number;
  baselineRssMB: number;
  peakRssMB: number;
  peakArrayBuffersMB: number;
  graphBytes: number;
  graphBytesPerObject: number;
  graphBytesPerNode: number;
  analysis: Record<string, number> | null;
  analysisCpuMs: number | null;
  analysisPeakRssMB: number | null;
  analysisPeakArrayBuffersMB: number | null;
}

class PeakMemory {
  rss = 0;
  arrayBuffers = 0;
  private timer: ReturnType<typeof setInterval> | null = null;
  sample(): void {
    const m = process.memoryUsage();
    if (m.rss > this.rss) this.rss = m.rss;
    if (m.arrayBuffers > this.arrayBuffers) this.arrayBuffers = m.arrayBuffers;
  }
  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), 20);
  }
  stop(): void {
    this.sample();
    if (this.timer) clearInterval(this.timer);
  }
}

function graphBytes(g: HeapGraph): number {
  return g.nodeType.byteLength + g.selfSize.byteLength + g.firstEdge.byteLength + g.edgeTarget.byteLength + g.address.byteLength + g.nodeFlags.byteLength + g.generation.byteLength;
}

function heapObjects(g: HeapGraph): number {
  let n = 0;
  for (let i = 0; i < g.nodeCount; i++) if ((g.nodeFlags[i] & (NODE_PSEUDO | NODE_UNDEFINED)) === 0) n++;
  return n;
}

/** One size, in this (child) process. */
async function measure(file: string, withAnalysis: boolean): Promise<ChildResult> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const baseline = process.memoryUsage().rss;
  const peak = new PeakMemory();
  peak.start();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const source = await FileByteSource.open(file);
  const g = await readSnapshot(source, { progress: () => peak.sample() });
  const parseMs = performance.now() - t0;
  const parseCpu = process.cpuUsage(cpu0);
  await source.close();
  peak.stop();
  const objects = heapObjects(g);
  const bytes = graphBytes(g);
  const fileBytes = statSync(file).size;

  let analysis: Record<string, number> | null = null;
  let aPeak: PeakMemory | null = null;
  let analysisCpuMs: number | null = null;
  const benchFile = join(HERE, 'analysis.bench.ts');
  if (withAnalysis && existsSync(benchFile)) {
    gc?.();
    const mod = (await import(pathToFileURL(benchFile).href)) as { benchAnalysis(g: HeapGraph): Promise<Record<string, number>> };
    aPeak = new PeakMemory();
    aPeak.start();
    const c0 = process.cpuUsage();
    analysis = await mod.benchAnalysis(g);
    const c = process.cpuUsage(c0);
    analysisCpuMs = Math.round((c.user + c.system) / 1000);
    aPeak.stop();
  }
  const r1 = (x: number) => Math.round(x * 10) / 10;
  return {
    objects,
    file,
    fileBytes,
    nodes: g.nodeCount,
    edges: g.edgeCount,
    parseMs: Math.round(parseMs),
    parseCpuMs: Math.round((parseCpu.user + parseCpu.system) / 1000),
    parseMBps: r1(fileBytes / MB / (parseMs / 1000)),
    baselineRssMB: Math.round(baseline / MB),
    peakRssMB: Math.round(peak.rss / MB),
    peakArrayBuffersMB: Math.round(peak.arrayBuffers / MB),
    graphBytes: bytes,
    graphBytesPerObject: r1(bytes / objects),
    graphBytesPerNode: r1(bytes / g.nodeCount),
    analysis,
    analysisCpuMs,
    analysisPeakRssMB: aPeak ? Math.round(aPeak.rss / MB) : null,
    analysisPeakArrayBuffersMB: aPeak ? Math.round(aPeak.arrayBuffers / MB) : null,
  };
}

function runChild(args: string[]): string {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', ...args], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`child ${args.join(' ')} failed with exit code ${r.status}`);
  return r.stdout;
}

function report(r: ChildResult): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  const lines = [
    `== ${n(r.objects)} objects (${n(r.nodes)} nodes, ${n(r.edges)} references)`,
    `  file                ${(r.fileBytes / MB).toFixed(1)} MB  ${r.file}`,
    `  parse               ${n(r.parseMs)} ms  (${r.parseMBps} MB/s; CPU ${n(r.parseCpuMs)} ms)`,
    `  peak memory         rss ${n(r.peakRssMB)} MB, arrayBuffers ${n(r.peakArrayBuffersMB)} MB (baseline rss ${r.baselineRssMB} MB)`,
    `  graph               ${(r.graphBytes / MB).toFixed(1)} MB = ${r.graphBytesPerObject} bytes/object (${r.graphBytesPerNode} bytes/node)`,
  ];
  if (r.objects >= 10_000_000) {
    lines.push(`  target parse ≤ ${TARGET_PARSE_10M_MS} ms: ${r.parseMs <= TARGET_PARSE_10M_MS ? 'met' : 'MISSED'}`);
  }
  lines.push(`  target graph ≤ ${TARGET_GRAPH_BYTES_PER_OBJECT} bytes/object: ${r.graphBytesPerObject <= TARGET_GRAPH_BYTES_PER_OBJECT ? 'met' : 'MISSED'}`);
  if (r.analysis) {
    const a = r.analysis;
    const phases = Object.entries(a)
      .filter(([k]) => k.endsWith('Ms'))
      .map(([k, v]) => `${k.slice(0, -2)} ${n(Math.round(v))}`)
      .join(', ');
    lines.push(`  analysis (ms)       ${phases} (CPU ${n(r.analysisCpuMs ?? 0)} ms)`);
    lines.push(`  analysis memory     peak rss ${n(r.analysisPeakRssMB ?? 0)} MB, arrayBuffers ${n(r.analysisPeakArrayBuffersMB ?? 0)} MB`);
    const perObj = Object.entries(a).filter(([k]) => k.endsWith('PerObject'));
    if (perObj.length) lines.push(`  analysis bytes/obj  ${perObj.map(([k, v]) => `${k.replace('BytesPerObject', '')} ${v}`).join(', ')}`);
  } else {
    lines.push('  analysis            skipped (test/perf/analysis.bench.ts missing or --no-analysis)');
  }
  return lines;
}

function floorLine(r: ChildResult, f: FloorResult | { skipped: string }): string {
  if ('skipped' in f) return `  parse floor         skipped: ${f.skipped}`;
  const m = f.median;
  return `  parse floor (C)     ${m.wallMs.toFixed(0)} ms (read ${m.readMs.toFixed(0)} + decode ${m.decodeMs.toFixed(0)}; CPU ${m.cpuMs.toFixed(0)} ms; median of ${f.runs.length}): Heapscope's parse is ${(r.parseMs / m.wallMs).toFixed(1)}× it (CPU ${(r.parseCpuMs / m.cpuMs).toFixed(1)}×)`;
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === '--child') {
    const result = await measure(argv[1], argv[2] === 'analysis');
    process.stdout.write(JSON.stringify(result) + '\n');
    return;
  }
  let sizes = [1_000_000, 10_000_000];
  let seed = 1;
  let withAnalysis = true;
  let withFloor = true;
  let withStartup = true;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--sizes') sizes = argv[++i].split(',').map((s) => Number(s.replace(/_/g, '')));
    else if (argv[i] === '--seed') seed = Number(argv[++i]);
    else if (argv[i] === '--no-analysis') withAnalysis = false;
    else if (argv[i] === '--no-floor') withFloor = false;
    else if (argv[i] === '--no-startup') withStartup = false;
    else throw new Error(`unknown option ${argv[i]} (use --sizes N,N --seed N --no-analysis --no-floor --no-startup)`);
  }
  const results: (ChildResult & { floor?: FloorResult | { skipped: string } })[] = [];
  for (const objects of sizes) {
    const file = join(tmpdir(), `heapscope-bench-${objects}-seed${seed}.gcdump`);
    if (!existsSync(file)) {
      process.stdout.write(`generating ${file} ...\n`);
      process.stdout.write(runChild([join(REPO, 'test', 'tools', 'gen-gcdump.ts'), '--objects', String(objects), '--seed', String(seed), '--out', file]));
    }
    const out = runChild([fileURLToPath(import.meta.url), '--child', file, withAnalysis ? 'analysis' : 'parse']);
    const r = JSON.parse(out.trim().split('\n').pop()!) as ChildResult;
    process.stdout.write(report(r).join('\n') + '\n');
    if (withFloor) {
      const floor = runFloor(file);
      process.stdout.write(floorLine(r, floor) + '\n');
      results.push({ ...r, floor });
    } else results.push(r);
  }
  let startup: StartupResult | undefined;
  if (withStartup) {
    startup = measureStartup();
    process.stdout.write(startupLines(startup).join('\n') + '\n');
  }
  const summary = {
    bench: 'heapscope',
    node: process.version,
    targets: { parse10MMs: TARGET_PARSE_10M_MS, graphBytesPerObject: TARGET_GRAPH_BYTES_PER_OBJECT },
    results,
    startup,
  };
  process.stdout.write(JSON.stringify(summary) + '\n');
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});

import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FileByteSource } from '../../electron/files/file-byte-source.js';
import { childStretchReader } from '../../electron/workers/stretch-reader.js';
import { builtWorkerScripts } from '../../electron/workers/worker-scripts.js';
import { readGcdump } from '../../shared/formats/gcdump/gcdump-reader.js';
import type { StretchReader } from '../../shared/formats/read-options.js';

/**
 * The .gcdump parse on one thread against two (issue 17 item 2): the node blob's second half
 * decoded in a child worker (shared/formats/gcdump/blob-split.ts), as the app and the CLI read.
 *
 *   npm run gen -- --objects 10000000 --out X.gcdump && npm run build:main
 *   npx tsx test/perf/gcdump-parse.bench.ts X.gcdump [runs]
 *
 * Runs alternate one thread / two threads; prints every run's wall and CPU (user + system of the
 * whole process, the worker's included) and their medians. The worker is the built bundle in
 * out/workers (a tsx-started worker would time tsx), so build:main first.
 */
export async function benchGcdumpParse(path: string, runs = 3): Promise<Record<string, unknown>> {
  const built = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'out', 'workers');
  if (!existsSync(join(built, 'analysis.worker.mjs'))) throw new Error(`no worker bundle in ${built}: run npm run build:main`);
  const analysis = builtWorkerScripts(built).analysis;
  const one: { wallMs: number; cpuMs: number }[] = [];
  const two: { wallMs: number; cpuMs: number }[] = [];
  let nodes = 0;
  let edges = 0;
  for (let r = 0; r < runs; r++) {
    for (const threads of [1, 2]) {
      const source = await FileByteSource.open(path);
      try {
        const stretchReader: StretchReader | undefined = threads === 2 ? childStretchReader(path, { analysis }) : undefined;
        const cpu = process.cpuUsage();
        const t = performance.now();
        const g = await readGcdump(source, { stretchReader });
        const wallMs = performance.now() - t;
        const used = process.cpuUsage(cpu);
        (threads === 1 ? one : two).push({ wallMs: Math.round(wallMs), cpuMs: Math.round((used.user + used.system) / 1000) });
        nodes = g.nodeCount;
        edges = g.edgeCount;
      } finally {
        await source.close();
      }
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  return {
    file: path,
    nodes,
    edges,
    cores: cpus().length,
    loadAverage1m: Number(loadavg()[0].toFixed(2)),
    oneThread: one,
    twoThreads: two,
    oneThreadMedianWallMs: median(one.map((x) => x.wallMs)),
    oneThreadMedianCpuMs: median(one.map((x) => x.cpuMs)),
    twoThreadsMedianWallMs: median(two.map((x) => x.wallMs)),
    twoThreadsMedianCpuMs: median(two.map((x) => x.cpuMs)),
    speedup: Number((median(one.map((x) => x.wallMs)) / median(two.map((x) => x.wallMs))).toFixed(2)),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const path = process.argv[2];
  if (!path) throw new Error('usage: npx tsx test/perf/gcdump-parse.bench.ts FILE.gcdump [runs]');
  console.log(JSON.stringify(await benchGcdumpParse(path, Number(process.argv[3] ?? 3)), null, 2));
}

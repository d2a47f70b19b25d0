/**
 * Regenerates the bundled sample snapshot, electron/resources/sample.gcdump: a REAL CoreCLR heap,
 * captured from test/dotnet/SampleApp (a small order service with a cache, sessions, a leaky
 * event subscription, LOH buffers, pinned and weak handles) by Heapscope's own `collect` code,
 * with generation data. It is what `npm start` opens and what "Open sample" shows.
 *
 * Needs the .NET SDK. Without it, `--synthetic` writes a ~30k-object synthetic heap with our
 * writer instead (deterministic; what the sample was before real captures existed).
 *
 *   npx tsx test/tools/make-sample.ts [--out PATH] [--synthetic]
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { collectHeapSnapshot } from '../../electron/diagnostics/heap-collector.js';
import { writeGcdumpFile } from '../../electron/files/write-gcdump-file.js';
import { buildDotnetApp, startDotnetApp } from '../helpers/dotnet-app.js';
import { generateGcdump } from './gen-gcdump.js';

export const SYNTHETIC_SAMPLE_OBJECTS = 30_000;
export const SYNTHETIC_SAMPLE_SEED = 20240501;

export function defaultSamplePath(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'electron', 'resources', 'sample.gcdump');
}

/** Capture SampleApp into `out`; returns node/edge counts and file size. */
export async function captureSample(out: string): Promise<{ nodes: number; edges: number; bytes: number }> {
  const app = await startDotnetApp(buildDotnetApp('SampleApp'));
  try {
    const r = await collectHeapSnapshot({ pid: app.pid, timeoutSec: 60 });
    // The sample should not carry this machine's name or paths.
    r.graph.metadata.machineName = null;
    r.graph.metadata.processId = 0;
    delete r.graph.metadata.extra.commandLine;
    const bytes = await writeGcdumpFile(out, r.graph);
    return { nodes: r.graph.nodeCount, edges: r.graph.edgeCount, bytes };
  } finally {
    await app.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const i = process.argv.indexOf('--out');
  const out = i > 0 ? resolve(process.argv[i + 1]) : defaultSamplePath();
  const r = process.argv.includes('--synthetic')
    ? generateGcdump({ objects: SYNTHETIC_SAMPLE_OBJECTS, seed: SYNTHETIC_SAMPLE_SEED, out, segments: true })
    : await captureSample(out);
  process.stdout.write(`${out}: ${r.nodes} nodes, ${r.edges} references, ${r.bytes} bytes\n`);
}

/**
 * Regenerates the bundled sample snapshot, electron/resources/sample.gcdump: a ~30k-object
 * synthetic .NET-like heap (synthetic-heap.ts, fixed seed, with generation segments) written by
 * our own gcdump writer. It is what `npm start` opens and what "Open sample" shows, until a real
 * capture replaces it. Deterministic: the same bytes every run.
 *
 *   npx tsx test/tools/make-sample.ts [--out PATH]
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generateGcdump } from './gen-gcdump.js';

export const SAMPLE_OBJECTS = 30_000;
export const SAMPLE_SEED = 20240501;

export function defaultSamplePath(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'electron', 'resources', 'sample.gcdump');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const i = process.argv.indexOf('--out');
  const out = i > 0 ? resolve(process.argv[i + 1]) : defaultSamplePath();
  const r = generateGcdump({ objects: SAMPLE_OBJECTS, seed: SAMPLE_SEED, out, segments: true });
  process.stdout.write(`${join(out)}: ${r.nodes} nodes, ${r.edges} references, ${r.bytes} bytes\n`);
}

import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { WorkerScript } from './worker-protocol.js';

/**
 * Where the worker scripts are: the esbuild bundles in out/workers/ (production, `npm start`,
 * the packaged app) or the TypeScript sources through the tsx shim (tests, `tsx` dev runs).
 *
 * Rule: code running from a .ts file (tsx, vitest) uses the sources, so a stale bundle can never
 * answer for code you just edited; bundled code uses the bundles beside it (out/main, out/cli →
 * out/workers), falling back to the sources of the checkout it sits in when only the CLI was
 * bundled. Inside a packaged app the bundles are unpacked from app.asar (asarUnpack in
 * build/electron-builder.config.mjs) because worker_threads cannot start a script inside an asar.
 */
export interface WorkerScripts {
  snapshot: WorkerScript;
  analysis: WorkerScript;
}

/** The TypeScript workers in `dir` (electron/workers), started through the tsx shim. */
export function devWorkerScripts(dir: string = dirname(fileURLToPath(import.meta.url))): WorkerScripts {
  const shim = join(dir, 'dev-worker-shim.mjs');
  return {
    snapshot: { file: shim, tsEntry: pathToFileURL(join(dir, 'snapshot.worker.ts')).href },
    analysis: { file: shim, tsEntry: pathToFileURL(join(dir, 'analysis.worker.ts')).href },
  };
}

export function builtWorkerScripts(dir: string): WorkerScripts {
  const unpacked = dir.replace(`app.asar${sep}`, `app.asar.unpacked${sep}`);
  return {
    snapshot: { file: join(unpacked, 'snapshot.worker.mjs') },
    analysis: { file: join(unpacked, 'analysis.worker.mjs') },
  };
}

/** Scripts matching how the calling code runs (see the rule above). */
export function resolveWorkerScripts(callerUrl: string = import.meta.url): WorkerScripts {
  // Under tsx, import.meta.url may carry a query (`…/serve.ts?tsx-namespace=…`): look at the path only.
  const url = new URL(callerUrl);
  url.search = '';
  url.hash = '';
  if (url.pathname.endsWith('.ts')) return devWorkerScripts();
  const here = dirname(fileURLToPath(url));
  const built = builtWorkerScripts(join(here, '..', 'workers'));
  if (existsSync(built.snapshot.file)) return built;
  const sources = join(here, '..', '..', 'electron', 'workers');
  if (existsSync(join(sources, 'snapshot.worker.ts'))) return devWorkerScripts(sources);
  throw new Error(`worker bundle missing: ${built.snapshot.file} (run npm run build:main)`);
}

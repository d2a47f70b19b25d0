import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkerScript } from './worker-protocol.js';

/**
 * Where the worker scripts are: the esbuild bundles in out/workers/ (production, `npm start`,
 * the packaged app) or the TypeScript sources through the tsx shim (tests, `tsx` dev runs).
 *
 * Rule: code running from a .ts file (tsx, vitest) uses the sources, so a stale bundle can never
 * answer for code you just edited; bundled code uses the bundles beside it (out/main, out/cli →
 * out/workers). Inside a packaged app the bundles are unpacked from app.asar (asarUnpack in
 * build/electron-builder.config.mjs) because worker_threads cannot start a script inside an asar.
 */
export interface WorkerScripts {
  snapshot: WorkerScript;
  analysis: WorkerScript;
}

export function devWorkerScripts(): WorkerScripts {
  const shim = fileURLToPath(new URL('./dev-worker-shim.mjs', import.meta.url));
  return {
    snapshot: { file: shim, tsEntry: new URL('./snapshot.worker.ts', import.meta.url).href },
    analysis: { file: shim, tsEntry: new URL('./analysis.worker.ts', import.meta.url).href },
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
  if (callerUrl.endsWith('.ts')) return devWorkerScripts();
  const dir = join(dirname(fileURLToPath(callerUrl)), '..', 'workers');
  const built = builtWorkerScripts(dir);
  if (!existsSync(built.snapshot.file)) {
    throw new Error(`worker bundle missing: ${built.snapshot.file} (run npm run build:main)`);
  }
  return built;
}


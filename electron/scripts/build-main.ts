/**
 * `npm run build:main`: bundles the Electron side with esbuild (0.28):
 *
 *   out/main/main.js                  Electron main (ESM; package.json "main"), `electron` external
 *   out/preload/preload.cjs           the sandboxed preload: ONE CommonJS file (sandboxed preloads
 *                                     cannot load our modules), `electron` external
 *   out/workers/snapshot.worker.mjs   worker entries: started by path with `new Worker`, so each is
 *   out/workers/analysis.worker.mjs   its own self-contained bundle (no tsx at run time)
 *
 * Everything from shared/ and electron/ is inlined; only Node builtins and `electron` stay
 * imports, so the packaged app needs no node_modules. The renderer is built by Vite
 * (vite.renderer.config.ts → out/renderer). Compiled output never goes to build/ (electron-builder's
 * resources folder).
 */
import { build, type BuildOptions } from 'esbuild';
import { statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const REQUIRE_SHIM = "import { createRequire as __hsCreateRequire } from 'node:module';\nconst require = __hsCreateRequire(import.meta.url);";

const common: BuildOptions = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  external: ['electron'],
};

export const OUTPUTS = {
  main: join(ROOT, 'out', 'main', 'main.js'),
  preload: join(ROOT, 'out', 'preload', 'preload.cjs'),
  snapshotWorker: join(ROOT, 'out', 'workers', 'snapshot.worker.mjs'),
  analysisWorker: join(ROOT, 'out', 'workers', 'analysis.worker.mjs'),
};

export async function buildMain(): Promise<void> {
  await Promise.all([
    build({ ...common, entryPoints: ['electron/main/main.ts'], outfile: OUTPUTS.main, format: 'esm', banner: { js: REQUIRE_SHIM } }),
    build({ ...common, entryPoints: ['electron/preload/preload.ts'], outfile: OUTPUTS.preload, format: 'cjs' }),
    build({ ...common, entryPoints: ['electron/workers/snapshot.worker.ts'], outfile: OUTPUTS.snapshotWorker, format: 'esm', banner: { js: REQUIRE_SHIM } }),
    build({ ...common, entryPoints: ['electron/workers/analysis.worker.ts'], outfile: OUTPUTS.analysisWorker, format: 'esm', banner: { js: REQUIRE_SHIM } }),
  ]);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const t0 = performance.now();
  await buildMain();
  for (const f of Object.values(OUTPUTS)) process.stdout.write(`wrote ${relative(ROOT, f)} (${(statSync(f).size / 1024).toFixed(0)} KiB)\n`);
  process.stdout.write(`build:main done in ${Math.round(performance.now() - t0)} ms\n`);
}

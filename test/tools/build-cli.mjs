// `npm run build:cli`: bundles the CLI (electron/cli/main.ts and everything it imports) into one
// ES module, out/cli/heapscope.mjs, which bin/heapscope.mjs prefers over running the TypeScript
// sources through tsx. Only Node builtins stay external, so the bundle runs without node_modules.
//
// Beside the bundle it writes out/cli/heapscope.inputs.json: the checkout's source files that went
// into it (from esbuild's metafile). The launcher compares their mtimes with the bundle's, so an
// edited source never answers through a stale bundle (see bin/heapscope.mjs).
//
// `--if-possible` (the `prepare` script, run by `npm install` / `npm ci` in a clone): a missing or
// failing esbuild is a warning, not a failed install; the launcher then runs the sources.
import { mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const outfile = join(root, 'out', 'cli', 'heapscope.mjs');
const inputsFile = join(root, 'out', 'cli', 'heapscope.inputs.json');
const ifPossible = process.argv.includes('--if-possible');

function giveUp(why) {
  if (!ifPossible) {
    console.error(`build:cli failed: ${why}`);
    process.exit(1);
  }
  console.warn(`heapscope: could not build the CLI bundle (${why}); \`npx heapscope\` will run from the TypeScript sources (slower start). Run \`npm run build:cli\` once it can.`);
  process.exit(0);
}

let build;
try {
  ({ build } = await import('esbuild'));
} catch (e) {
  giveUp(`esbuild is not installed: ${e instanceof Error ? e.message.split('\n')[0] : e}`);
}

// Written under a temporary name and renamed: a CLI started while this runs sees the old bundle
// or the new one, never half a file.
const tmp = `${outfile}.${process.pid}.tmp`;
let result;
try {
  result = await build({
    absWorkingDir: root,
    entryPoints: ['electron/cli/main.ts'],
    outfile: tmp,
    bundle: true,
    platform: 'node', // Node builtins (node:fs, fs, ...) stay imports
    format: 'esm',
    target: 'node20',
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    // Bundled CommonJS dependencies call require() for builtins; give the ES module a real one.
    banner: { js: "import { createRequire as __heapscopeCreateRequire } from 'node:module';\nconst require = __heapscopeCreateRequire(import.meta.url);" },
  });
} catch (e) {
  giveUp(e instanceof Error ? e.message.split('\n')[0] : String(e));
}
if (result.errors.length > 0) giveUp(`${result.errors.length} esbuild errors`);
// Sources of this checkout only: node_modules changes only through npm, which reruns `prepare`.
const inputs = Object.keys(result.metafile.inputs).filter((p) => !p.startsWith('node_modules/') && !p.includes('/node_modules/')).sort();
mkdirSync(dirname(outfile), { recursive: true });
writeFileSync(inputsFile, `${JSON.stringify({ inputs }, null, 0)}\n`);
renameSync(tmp, outfile); // after the inputs list: a bundle is never newer than the list that describes it
console.log(`wrote ${outfile} (${(statSync(outfile).size / 1024).toFixed(0)} KiB, ${inputs.length} source files)`);

// `npm run build:cli`: bundles the CLI (electron/cli/main.ts and everything it imports) into
// out/cli/heapscope.mjs, which bin/heapscope.mjs prefers over running the TypeScript sources
// through tsx. Only Node builtins stay external, so the bundle runs without node_modules.
// Code behind a dynamic import (`heapscope mcp` and the MCP SDK, zod and ajv it loads) is split
// into chunks beside it (out/cli/*-HASH.mjs), so other commands do not parse it at start-up.
// Chunks sit in the same directory: code that finds files from import.meta.url sees out/cli either way.
//
// Beside the bundle it writes out/cli/heapscope.inputs.json: the checkout's source files that went
// into it (from esbuild's metafile). The launcher compares their mtimes with the bundle's, so an
// edited source never answers through a stale bundle (see bin/heapscope.mjs).
//
// `--if-possible` (the `prepare` script, run by `npm install` / `npm ci` in a clone): a missing or
// failing esbuild is a warning, not a failed install; the launcher then runs the sources.
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const outdir = join(root, 'out', 'cli');
const outfile = join(outdir, 'heapscope.mjs');
const inputsFile = join(outdir, 'heapscope.inputs.json');
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

// Built into a private directory, then moved: chunks first (new hashes, new names), the entry
// last by rename, so a CLI started while this runs sees the old bundle or the new one, never half a file.
const tmpdir = join(outdir, `.build-${process.pid}`);
let result;
try {
  result = await build({
    absWorkingDir: root,
    entryPoints: { heapscope: 'electron/cli/main.ts' },
    outdir: tmpdir,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: '[name]-[hash]',
    bundle: true,
    platform: 'node', // Node builtins (node:fs, fs, ...) stay imports
    format: 'esm',
    target: 'node20',
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    // Bundled CommonJS dependencies call require() for builtins; give each ES module a real one.
    banner: { js: "import { createRequire as __heapscopeCreateRequire } from 'node:module';\nconst require = __heapscopeCreateRequire(import.meta.url);" },
  });
} catch (e) {
  rmSync(tmpdir, { recursive: true, force: true });
  giveUp(e instanceof Error ? e.message.split('\n')[0] : String(e));
}
if (result.errors.length > 0) giveUp(`${result.errors.length} esbuild errors`);
// Sources of this checkout only: node_modules changes only through npm, which reruns `prepare`.
const inputs = Object.keys(result.metafile.inputs).filter((p) => !p.startsWith('node_modules/') && !p.includes('/node_modules/')).sort();
mkdirSync(outdir, { recursive: true });
const built = readdirSync(tmpdir).filter((f) => f.endsWith('.mjs'));
for (const f of built) if (f !== 'heapscope.mjs') renameSync(join(tmpdir, f), join(outdir, f));
writeFileSync(inputsFile, `${JSON.stringify({ inputs }, null, 0)}\n`);
renameSync(join(tmpdir, 'heapscope.mjs'), outfile); // after the inputs list: a bundle is never newer than the list that describes it
rmSync(tmpdir, { recursive: true, force: true });
// chunks of an earlier build (other hashes) would pile up
for (const f of readdirSync(outdir)) if (f.endsWith('.mjs') && !built.includes(f)) rmSync(join(outdir, f));

const kib = (file) => `${(statSync(join(root, file)).size / 1024).toFixed(0)} KiB`;
const entry = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint === 'electron/cli/main.ts');
const here = (p) => join('out', 'cli', basename(p)); // metafile paths name the build directory
const list = (kind) => entry[1].imports.filter((i) => i.kind === kind && !i.external).map((i) => `${here(i.path)} (${kib(here(i.path))})`);
console.log(
  `wrote ${outfile} (${kib(here(entry[0]))}, ${inputs.length} source files); with ${list('import-statement').join(', ') || 'no chunk'}; loaded on demand: ${list('dynamic-import').join(', ') || 'nothing'}`,
);

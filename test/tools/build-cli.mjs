// `npm run build:cli`: bundles the CLI (electron/cli/main.ts and everything it imports) into one
// ES module, out/cli/heapscope.mjs, which bin/heapscope.mjs prefers over running the TypeScript
// sources through tsx. Only Node builtins stay external, so the bundle runs without node_modules.
// Code behind a dynamic import (`heapscope mcp` and the MCP SDK, zod and ajv it loads) is split
// into chunks beside it (out/cli/*-HASH.mjs), so other commands do not parse it at start-up.
// Chunks sit in the same directory: code that finds files from import.meta.url sees out/cli either way.
import { build } from 'esbuild';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const outdir = join(root, 'out', 'cli');
const outfile = join(outdir, 'heapscope.mjs');

// chunks of an earlier build (other hashes) would pile up
if (existsSync(outdir)) for (const f of readdirSync(outdir)) if (f.endsWith('.mjs')) rmSync(join(outdir, f));

const result = await build({
  absWorkingDir: root,
  entryPoints: { heapscope: 'electron/cli/main.ts' },
  outdir,
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
if (result.errors.length > 0) process.exit(1);
const kib = (file) => `${(statSync(join(root, file)).size / 1024).toFixed(0)} KiB`;
const entry = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint === 'electron/cli/main.ts');
const list = (kind) => entry[1].imports.filter((i) => i.kind === kind && !i.external).map((i) => `${i.path} (${kib(i.path)})`);
console.log(`wrote ${outfile} (${kib(entry[0])}); with ${list('import-statement').join(', ') || 'no chunk'}; loaded on demand: ${list('dynamic-import').join(', ') || 'nothing'}`);

// `npm run build:cli`: bundles the CLI (electron/cli/main.ts and everything it imports) into one
// ES module, out/cli/heapscope.mjs, which bin/heapscope.mjs prefers over running the TypeScript
// sources through tsx. Only Node builtins stay external, so the bundle runs without node_modules.
import { build } from 'esbuild';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const outfile = join(root, 'out', 'cli', 'heapscope.mjs');

const result = await build({
  absWorkingDir: root,
  entryPoints: ['electron/cli/main.ts'],
  outfile,
  bundle: true,
  platform: 'node', // Node builtins (node:fs, fs, ...) stay imports
  format: 'esm',
  target: 'node20',
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  // Bundled CommonJS dependencies call require() for builtins; give the ES module a real one.
  banner: { js: "import { createRequire as __heapscopeCreateRequire } from 'node:module';\nconst require = __heapscopeCreateRequire(import.meta.url);" },
});
if (result.errors.length > 0) process.exit(1);
console.log(`wrote ${outfile} (${(statSync(outfile).size / 1024).toFixed(0)} KiB)`);

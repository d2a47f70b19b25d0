#!/usr/bin/env node
// `heapscope` launcher: runs the bundled CLI when it has been built (out/cli/heapscope.mjs),
// otherwise the TypeScript sources through tsx (a runtime dependency), so `npx heapscope` works
// straight from a clone.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'out', 'cli', 'heapscope.mjs');
let runCli;
if (existsSync(built) && !process.env.HEAPSCOPE_FROM_SOURCE) {
  ({ runCli } = await import(pathToFileURL(built).href));
} else {
  const { tsImport } = await import('tsx/esm/api');
  ({ runCli } = await tsImport(pathToFileURL(join(root, 'electron', 'cli', 'main.ts')).href, import.meta.url));
}
process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });

#!/usr/bin/env node
// `heapscope` launcher: runs the bundled CLI (out/cli/heapscope.mjs, built by `npm install` /
// `npm ci` through the `prepare` script, or by `npm run build:cli`), otherwise the TypeScript
// sources through tsx (a runtime dependency), so `npx heapscope` works straight from a clone.
//
// Stale bundles: in a checkout, a bundle older than any source file it was built from (listed in
// out/cli/heapscope.inputs.json by the build) would silently run old code, so the sources run
// instead. That check is one stat per source file (~200), a small part of the bundle's start.
// Falling back says so on stderr, once per run; HEAPSCOPE_FROM_SOURCE=1 asks for the sources
// deliberately and says nothing.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { hugePagesEnvironment } from './huge-pages.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'out', 'cli', 'heapscope.mjs');

/** Why the bundle must not run (a sentence), or null when it is current. */
function bundleProblem() {
  if (!existsSync(built)) return 'the CLI bundle is not built';
  let inputs;
  try {
    ({ inputs } = JSON.parse(readFileSync(join(root, 'out', 'cli', 'heapscope.inputs.json'), 'utf8')));
  } catch {
    return null; // a bundle without its list (an older build, or a package without sources): trust it
  }
  if (!existsSync(join(root, 'electron', 'cli', 'main.ts'))) return null; // no sources to be newer than
  const bundleTime = statSync(built).mtimeMs;
  for (const input of inputs) {
    let time;
    try {
      time = statSync(join(root, input)).mtimeMs;
    } catch {
      return `${input} was removed after the CLI bundle was built`;
    }
    if (time > bundleTime) return `${input} changed after the CLI bundle was built`;
  }
  return null;
}

/** Runs the CLI in this process. */
async function runHere() {
  const fromSource = Boolean(process.env.HEAPSCOPE_FROM_SOURCE);
  const problem = fromSource ? 'sources asked for' : bundleProblem();
  let runCli;
  if (problem === null) {
    ({ runCli } = await import(pathToFileURL(built).href));
  } else {
    if (!fromSource) process.stderr.write(`heapscope: ${problem}: running from TypeScript sources (slower start); run \`npm run build:cli\`\n`);
    const { tsImport } = await import('tsx/esm/api');
    ({ runCli } = await tsImport(pathToFileURL(join(root, 'electron', 'cli', 'main.ts')).href, import.meta.url));
  }
  process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
}

/**
 * Re-runs this launcher with huge pages (bin/huge-pages.mjs), passing its exit code or signal on.
 * Signals sent to this process go to the re-run; a terminal's Ctrl-C reaches both anyway. If
 * node cannot be started again the CLI runs here, as it would have without huge pages.
 */
function runWithHugePages(env) {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit', env });
  const forward = (signal) => child.kill(signal);
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, forward);
  const stopForwarding = () => signals.forEach((s) => process.off(s, forward));
  child.on('error', () => {
    stopForwarding(); // signals end this process again, as they would have
    void runHere();
  });
  child.on('exit', (code, signal) => {
    stopForwarding();
    if (signal === null) process.exitCode = code ?? 1;
    else process.kill(process.pid, signal);
  });
}

const hugePages = hugePagesEnvironment(process.env);
if (hugePages === null) await runHere();
else runWithHugePages(hugePages);

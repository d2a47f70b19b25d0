/**
 * `npm start` (after `npm run build`): the desktop app on the bundled sample, or browser mode when
 * this machine has no Electron binary (offline installs never get one, TOOLCHAIN §1b).
 *
 * - Electron found (electron-binary.ts, by files only): run it on the built app with
 *   `--open-sample`, inheriting stdio; exit with its code.
 * - Not found: print ONE line saying so, then serve browser mode from the same build (out/renderer,
 *   out/workers) with the sample listed and opened as a tab, print the URL and try to open it
 *   (xdg-open/open/start; never an error when there is none). Ctrl+C stops it.
 *
 * Files after `npm start --` open as tabs too, in both cases. npm runs scripts in the package
 * directory, so relative paths are resolved against INIT_CWD (where the user typed the command).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { locateSample } from '../host/sample.js';
import { hugePagesEnvironment } from '../../bin/huge-pages.mjs';
import { filesFromArgv } from '../main/argv-files.js';
import { serveBrowserMode } from '../server/serve.js';
import { builtWorkerScripts } from '../workers/worker-scripts.js';
import { OUTPUTS, ROOT } from './build-main.js';
import { electronBinary } from './electron-binary.js';

const named = filesFromArgv(process.argv, { packaged: false, cwd: process.env.INIT_CWD ?? process.cwd() });
const flags = process.argv.slice(2).filter((a) => a.startsWith('-') && a !== '--');
const bin = electronBinary(ROOT);
// HEAPSCOPE_HUGE_PAGES=1 (Linux, opt-in, bin/huge-pages.mjs): the app's process starts with glibc
// advising huge pages, as the CLI's launcher does; a tunable is read only at process start, so
// browser mode (served from this process) runs this script again with it
const hugePages = hugePagesEnvironment(process.env);
if (bin) {
  const child = spawn(bin, [ROOT, '--open-sample', ...flags, ...(named.length ? ['--', ...named] : [])], { stdio: 'inherit', env: hugePages ?? process.env });
  child.on('exit', (code) => process.exit(code ?? 0));
} else if (hugePages) {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env: hugePages });
  // a terminal's Ctrl+C reaches the re-run itself (same process group): this one waits for its
  // exit; a SIGTERM sent to this process alone is passed on
  const ignore = () => {};
  const pass = () => child.kill('SIGTERM');
  process.on('SIGINT', ignore);
  process.on('SIGTERM', pass);
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    // ended by a signal: end the same way (without the handlers above, which would catch it)
    process.off('SIGINT', ignore);
    process.off('SIGTERM', pass);
    process.kill(process.pid, signal);
  });
} else {
  process.stdout.write('No Electron binary is installed (node_modules/electron has none; set ELECTRON_EXEC_PATH to use one): starting browser mode instead.\n');
  for (const f of Object.values(OUTPUTS)) {
    if (!existsSync(f)) {
      process.stderr.write(`missing ${f}: run npm run build first\n`);
      process.exit(1);
    }
  }
  const renderer = join(ROOT, 'out', 'renderer');
  const sample = locateSample();
  const serving = await serveBrowserMode({
    files: sample ? [sample, ...named] : named,
    open: !process.env.HEAPSCOPE_NO_OPEN && !process.argv.includes('--no-open'),
    rendererDir: existsSync(join(renderer, 'index.html')) ? renderer : null,
    scripts: builtWorkerScripts(join(ROOT, 'out', 'workers')),
    stdout: process.stdout,
    stderr: process.stderr,
  });
  const stop = () => void serving.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

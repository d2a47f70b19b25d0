// `npm test`: every test Heapscope has, in one command, ending with the line CI reads:
//   "tests: N passed, N failed, N skipped"
//
// 1. build the app (renderer, main/preload/workers), the CLI bundle and (with dotnet) the dump reader;
// 2. unit + integration tests (vitest; real .NET processes when `dotnet` exists, else skipped visibly);
// 3. browser-mode e2e in Debian's Chromium (Playwright), when /usr/bin/chromium exists;
// 4. Electron smoke tests (skip themselves when no Electron binary is installed, as on our machines).
// Pass `--unit` to run only step 2 (fast inner loop). Reports go to ci-reports/.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const reports = join(root, 'ci-reports');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });
const unitOnly = process.argv.includes('--unit');
const extra = process.argv.slice(2).filter((a) => a !== '--unit');

function run(title, cmd, args, env = {}) {
  process.stdout.write(`\n=== ${title}\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

let status = 0;
const reportFiles = [];
if (!unitOnly) {
  status |= run('build (renderer, main, workers, CLI)', 'npm', ['run', '-s', 'build']);
  status |= run('build CLI bundle', 'npm', ['run', '-s', 'build:cli']);
  // The dump reader is a C# helper (ClrMD): built where the .NET SDK exists, else its tests skip visibly.
  if (spawnSync('dotnet', ['--version'], { stdio: 'ignore' }).status === 0) status |= run('build dump reader (C#, ClrMD)', 'npm', ['run', '-s', 'build:dump-reader']);
  else process.stdout.write('\n=== dump reader SKIPPED: no .NET SDK (dotnet); dump tests will be skipped\n');
}
const vitestJson = join(reports, 'vitest.json');
reportFiles.push(vitestJson);
status |= run('unit and integration tests (vitest)', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`, ...extra]);

if (!unitOnly) {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (existsSync(chromium)) {
    const e2e = join(reports, 'e2e.json');
    reportFiles.push(e2e);
    status |= run('browser-mode e2e in Chromium (Playwright)', 'npx', ['playwright', 'test'], { PW_JSON: e2e });
  } else {
    process.stdout.write(`\n=== browser-mode e2e SKIPPED: no Chromium at ${chromium} (apt-get install chromium, or set CHROMIUM_PATH)\n`);
  }
  const electron = join(reports, 'electron.json');
  reportFiles.push(electron);
  status |= run('Electron smoke tests (skip without an Electron binary)', 'npx', ['playwright', 'test', '-c', 'playwright.electron.config.ts'], { PW_JSON: electron });
}

process.stdout.write('\n');
const summary = spawnSync('node', [join(root, 'test', 'tools', 'ci-summary.mjs'), ...reportFiles], { cwd: root, stdio: 'inherit' });
process.exit(status || summary.status || 0);

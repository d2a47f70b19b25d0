/**
 * `npm run package:check` (after `npm run build`): package the app for Linux as a directory with
 * electron-builder (offline: the stub electronDist, TOOLCHAIN §4/§9, `--publish never`), then
 * check that resources/app.asar holds exactly what the app loads:
 *
 * - must: package.json (main = out/main/main.js), out/main/main.js, out/preload/preload.cjs,
 *   out/renderer/index.html and every asset it references, out/workers/{snapshot,analysis}.worker.mjs
 *   (listed in the asar AND unpacked beside it, since worker_threads cannot start a script inside
 *   an asar), and resources/sample.gcdump next to the archive;
 * - the dump reader: resources/dump-reader/heapscope-dump-reader, the self-contained linux-x64
 *   build that electron-builder's beforePack hook publishes (build/dump-reader.mjs), outside the
 *   archive, and it runs: `--version` prints its version line. Without the .NET SDK the helper
 *   cannot be built: the check says so (dumpReader: "skipped: …") and packages without it;
 * - main.js must name the preload and renderer paths it loads;
 * - must not: TypeScript sources, tests, fixtures, node_modules, source maps, the CLI bundle,
 *   any .gcdump, or the source folders (shared/, electron/, renderer/, test/, build/).
 * Prints one JSON line; exit 1 on any failure.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from './build-main.js';
// build/ is plain .mjs (electron-builder loads it without tsx); types in build/dump-reader.d.mts.
import { hasDotnet } from '../../build/dump-reader.mjs';

interface Asar {
  listPackage(archive: string, opts: { isPack: boolean }): string[];
  extractFile(archive: string, file: string): Buffer;
}
const asar = createRequire(import.meta.url)('@electron/asar') as Asar;

const out = join(ROOT, 'dist', 'linux-unpacked');
rmSync(out, { recursive: true, force: true });
const withDumpReader = hasDotnet();
const t0 = performance.now();
const eb = spawnSync(
  process.execPath,
  [join(ROOT, 'node_modules', 'electron-builder', 'cli.js'), '--linux', 'dir', '--publish', 'never', '--config', 'build/electron-builder.config.mjs'],
  { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1', ...(withDumpReader ? {} : { HEAPSCOPE_PACKAGE_WITHOUT_DUMP_READER: '1' }) } },
);
if (eb.status !== 0) {
  process.stderr.write(`electron-builder failed (exit ${eb.status})\n`);
  process.exit(1);
}
const packMs = Math.round(performance.now() - t0);

const archive = join(out, 'resources', 'app.asar');
const unpackedDir = join(out, 'resources', 'app.asar.unpacked');
const problems: string[] = [];
const files = asar.listPackage(archive, { isPack: false }).map((f) => f.replace(/\\/g, '/'));
const has = (f: string) => files.includes(f);

const must = ['/package.json', '/out/main/main.js', '/out/preload/preload.cjs', '/out/renderer/index.html', '/out/workers/snapshot.worker.mjs', '/out/workers/analysis.worker.mjs'];
for (const f of must) if (!has(f)) problems.push(`missing in app.asar: ${f}`);
for (const w of ['snapshot.worker.mjs', 'analysis.worker.mjs']) {
  if (!existsSync(join(unpackedDir, 'out', 'workers', w))) problems.push(`worker not unpacked: app.asar.unpacked/out/workers/${w}`);
}
if (!existsSync(join(out, 'resources', 'sample.gcdump'))) problems.push('missing resources/sample.gcdump');

let dumpReader = 'skipped: no .NET SDK (dotnet) on this machine to build the dump reader';
if (withDumpReader) {
  const helper = join(out, 'resources', 'dump-reader', 'heapscope-dump-reader');
  if (!existsSync(helper)) problems.push('missing resources/dump-reader/heapscope-dump-reader (the self-contained dump reader)');
  else {
    const v = spawnSync(helper, ['--version'], { encoding: 'utf8', timeout: 60_000 });
    dumpReader = (v.stdout ?? '').trim();
    if (v.status !== 0 || !/^heapscope-dump-reader \S+ \(ClrMD \S+, \.NET \S+, linux-x64\)$/.test(dumpReader)) {
      problems.push(`resources/dump-reader/heapscope-dump-reader --version: exit ${v.status}, printed ${JSON.stringify(dumpReader)} ${(v.stderr ?? '').trim()}`);
    }
  }
} else process.stderr.write(`package:check: dump reader ${dumpReader}\n`);

if (has('/package.json')) {
  const pkg = JSON.parse(asar.extractFile(archive, 'package.json').toString()) as { main?: string };
  if (pkg.main !== 'out/main/main.js') problems.push(`package.json main is ${pkg.main}, expected out/main/main.js`);
}
if (has('/out/main/main.js')) {
  const main = asar.extractFile(archive, 'out/main/main.js').toString();
  for (const needle of ['preload.cjs', 'index.html', 'workers']) if (!main.includes(needle)) problems.push(`out/main/main.js never mentions ${needle}`);
}
if (has('/out/renderer/index.html')) {
  const html = asar.extractFile(archive, 'out/renderer/index.html').toString();
  for (const m of html.matchAll(/(?:src|href)="\.\/([^"]+)"/g)) {
    if (!has(`/out/renderer/${m[1]}`)) problems.push(`index.html references ${m[1]}, not in app.asar`);
  }
}

const forbidden: [RegExp, string][] = [
  [/\.(ts|tsx|vue)$/, 'source file'],
  [/\.map$/, 'source map'],
  [/\.gcdump$|\.nettrace$/, 'snapshot file (the sample ships outside the archive)'],
  [/^\/(shared|electron|renderer|test|build|bin|dist)(\/|$)/, 'source or tooling folder'],
  [/(^|\/)node_modules(\/|$)/, 'node_modules'],
  [/^\/out\/(cli|tsc)(\/|$)/, 'CLI bundle or tsc output'],
  [/dump-reader/, 'the dump reader (ships in resources/dump-reader, outside the archive)'],
  [/fixtures/, 'test fixtures'],
  [/\.test\.|\.spec\./, 'test file'],
];
const unexpected: string[] = [];
for (const f of files) {
  for (const [re, why] of forbidden) {
    if (re.test(f)) {
      unexpected.push(`${f} (${why})`);
      break;
    }
  }
}
problems.push(...unexpected.map((u) => `unexpected in app.asar: ${u}`));

process.stdout.write(JSON.stringify({ archive: 'dist/linux-unpacked/resources/app.asar', entries: files.length, packMs, dumpReader, problems }) + '\n');
if (problems.length > 0) process.exit(1);

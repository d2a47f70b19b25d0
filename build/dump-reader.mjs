// The dump reader (electron/dump-reader, C# on ClrMD) as the installers ship it: one
// self-contained, trimmed build per platform (`dotnet publish -r RID`; the csproj turns on
// SelfContained + PublishTrimmed whenever a RID is given), so users never install .NET.
//
//   node build/dump-reader.mjs                 publish all RIDS into out/dump-reader-sc/<rid>/
//   node build/dump-reader.mjs linux-x64 …     only those
//   (npm run build:dump-reader:rids)
//
// electron-builder calls stageDumpReader() from its beforePack hook (build/electron-builder.config.mjs)
// for the platform and arch it is packing; the stage folder is copied as extraResources to
// resources/dump-reader/ (outside app.asar: an executable cannot run from inside an archive).
//
// Each publish downloads that RID's runtime pack from NuGet once (then it is in the NuGet cache)
// and runs the IL trimmer: CI builds only linux-x64 (npm run package:check); the other RIDs are a
// release step. There is no win-arm64 build: its runtime pack is not on our package mirror, so
// Windows on Arm gets the win-x64 helper (it runs under x64 emulation and reads x64 dumps; arm64
// process dumps need a win-arm64 helper, see README).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const RIDS = ['linux-x64', 'win-x64', 'osx-x64', 'osx-arm64'];
/** Where electron-builder's extraResources picks up the helper of the platform being packed. */
export const STAGE_DIR = join(ROOT, 'out', 'dump-reader-stage');
export const HELPER_NAME = 'heapscope-dump-reader';

export function publishDir(rid) {
  return join(ROOT, 'out', 'dump-reader-sc', rid);
}

/** The executable's file name for a RID. */
export function helperExecutable(rid) {
  return rid.startsWith('win-') ? `${HELPER_NAME}.exe` : HELPER_NAME;
}

export function hasDotnet() {
  return spawnSync('dotnet', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** `dotnet publish -r rid` into out/dump-reader-sc/<rid>/; throws with dotnet's output on failure. */
export function publishDumpReader(rid) {
  if (!RIDS.includes(rid)) throw new Error(`unknown dump reader RID ${rid} (known: ${RIDS.join(', ')})`);
  const out = publishDir(rid);
  rmSync(out, { recursive: true, force: true });
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
  const r = spawnSync('dotnet', ['publish', join(ROOT, 'electron', 'dump-reader'), '-c', 'Release', '-r', rid, `-p:Version=${version}`, '-o', out, '--nologo', '-v', 'q'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' },
  });
  if (r.status !== 0 || !existsSync(join(out, helperExecutable(rid)))) {
    throw new Error(`dotnet publish of the dump reader for ${rid} failed (exit ${r.status}):\n${(r.stdout ?? '') + (r.stderr ?? '') || r.error?.message}`);
  }
  return out;
}

/** The RID whose helper an installer for (electron platform name, arch name) carries. */
export function ridFor(platform, arch) {
  const os = platform === 'win32' ? 'win' : platform === 'darwin' ? 'osx' : 'linux';
  if (os === 'win') return 'win-x64';
  return `${os}-${arch}`;
}

/**
 * Publish the helper for (platform, arch) and copy it to STAGE_DIR. Without the .NET SDK this
 * fails, unless HEAPSCOPE_PACKAGE_WITHOUT_DUMP_READER=1 asks for an app without it (dump files
 * then give the coded dump/helper-missing error; everything else works).
 */
export function stageDumpReader(platform, arch) {
  rmSync(STAGE_DIR, { recursive: true, force: true });
  if (process.env.HEAPSCOPE_PACKAGE_WITHOUT_DUMP_READER === '1') {
    process.stderr.write('dump reader: not packaged (HEAPSCOPE_PACKAGE_WITHOUT_DUMP_READER=1)\n');
    return null;
  }
  const rid = ridFor(platform, arch);
  if (!hasDotnet()) throw new Error(`packaging needs the .NET 10 SDK to build the dump reader for ${rid} (or set HEAPSCOPE_PACKAGE_WITHOUT_DUMP_READER=1 to package without it)`);
  cpSync(publishDumpReader(rid), STAGE_DIR, { recursive: true });
  return rid;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const rids = process.argv.slice(2).length > 0 ? process.argv.slice(2) : RIDS;
  for (const rid of rids) {
    const t0 = performance.now();
    const out = publishDumpReader(rid);
    process.stdout.write(`dump reader ${rid}: ${out} (${Math.round(performance.now() - t0)} ms)\n`);
  }
}

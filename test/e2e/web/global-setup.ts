import { spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, readSync, closeSync, rmSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FIXTURES_DIR, fixturePath } from '../../helpers/fixtures';
import { startServer, stop } from '../../helpers/heapscope-serve';

/**
 * Builds the renderer, makes the extra inputs the scenarios need (a truncated copy of a real dump,
 * a 2M-object synthetic dump slow enough to cancel), starts `heapscope serve` on a free port with
 * the real fixtures and hands the printed URL to the tests through the environment.
 *
 * Without ../shared/fixtures nothing is started: HEAPSCOPE_E2E_SKIP tells every spec to skip,
 * with the reason, so the report shows skipped tests instead of a silent pass.
 */
const ROOT = resolve(import.meta.dirname, '..', '..', '..');
export const FIXTURE_FILES = ['gcdump/perfview_test1.gcdump', 'gcdump/perfview_test2.gcdump', 'gcdump/mono_android_20231108_150515_31024.gcdump', 'gcdump/mono_android_20231108_150644_31024.gcdump'];

function log(s: string): void {
  process.stdout.write(`[e2e setup] ${s}\n`);
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const files = FIXTURE_FILES.map((f) => fixturePath(f));
  if (!FIXTURES_DIR || files.some((f) => f === null)) {
    process.env.HEAPSCOPE_E2E_SKIP = `shared fixtures not found at ${FIXTURES_DIR ?? '../shared/fixtures'} (set HEAPSCOPE_FIXTURES): e2e skipped`;
    log(process.env.HEAPSCOPE_E2E_SKIP);
    return async () => {};
  }

  const t0 = Date.now();
  const build = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '-c', 'vite.renderer.config.ts', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('vite build of the renderer failed');
  log(`renderer built in ${Date.now() - t0} ms`);

  const work = mkdtempSync(join(tmpdir(), 'heapscope-e2e-'));
  // A real dump cut at 60%: valid magic, so it is accepted and then fails while parsing.
  const truncated = join(work, 'truncated-perfview_test2.gcdump');
  writeFileSync(truncated, head(files[1]!, Math.floor(statSync(files[1]!).size * 0.6)));
  // Big enough that parsing + analysis take seconds on CI, so "Cancel" has something to stop.
  const big = join(work, 'synthetic-2m.gcdump');
  const gen = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'test', 'tools', 'gen-gcdump.ts'), '--objects', '2000000', '--out', big], { cwd: ROOT, encoding: 'utf8' });
  if (gen.status !== 0 || !existsSync(big)) log(`could not generate the big dump (cancel test will skip): ${gen.stderr}`);
  else process.env.HEAPSCOPE_E2E_BIG = big;
  process.env.HEAPSCOPE_E2E_TRUNCATED = truncated;
  process.env.HEAPSCOPE_E2E_WORK = work;

  const server = await startServer(files as string[], work);
  process.env.HEAPSCOPE_E2E_URL = server.url;
  log(`server at ${server.url} (${Date.now() - t0} ms after start)`);

  return async () => {
    await stop(server.child);
    rmSync(work, { recursive: true, force: true });
  };
}

function head(path: string, n: number): Buffer {
  const buf = Buffer.alloc(n);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buf, 0, n, 0);
  } finally {
    closeSync(fd);
  }
  return buf;
}

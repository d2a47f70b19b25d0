import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The launcher (bin/heapscope.mjs) and the bundle build (test/tools/build-cli.mjs), run from a
// scratch checkout: a stub bundle and stub sources that each print who answered, so the choice
// between them is seen without building anything (issue 17 item 4).

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'heapscope-launcher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STUB = (who: string) => `export async function runCli(argv, io) { io.stdout.write('${who} ' + argv.join(' ') + '\\n'); return 0; }\n`;

function checkout(name: string): string {
  const root = join(dir, name);
  mkdirSync(join(root, 'bin'), { recursive: true });
  mkdirSync(join(root, 'out', 'cli'), { recursive: true });
  mkdirSync(join(root, 'electron', 'cli'), { recursive: true });
  mkdirSync(join(root, 'shared'), { recursive: true });
  copyFileSync(join(ROOT, 'bin', 'heapscope.mjs'), join(root, 'bin', 'heapscope.mjs'));
  copyFileSync(join(ROOT, 'bin', 'huge-pages.mjs'), join(root, 'bin', 'huge-pages.mjs'));
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  writeFileSync(join(root, 'electron', 'cli', 'main.ts'), STUB('sources'));
  writeFileSync(join(root, 'shared', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'out', 'cli', 'heapscope.mjs'), STUB('bundle'));
  writeFileSync(join(root, 'out', 'cli', 'heapscope.inputs.json'), JSON.stringify({ inputs: ['electron/cli/main.ts', 'shared/a.ts'] }));
  // Sources an hour older than the bundle: a current build.
  const old = new Date(Date.now() - 3600_000);
  utimesSync(join(root, 'electron', 'cli', 'main.ts'), old, old);
  utimesSync(join(root, 'shared', 'a.ts'), old, old);
  return root;
}

function run(root: string, env: Record<string, string> = {}): { code: number | null; out: string; err: string } {
  const clean = { ...process.env };
  delete clean.HEAPSCOPE_FROM_SOURCE;
  const r = spawnSync(process.execPath, [join(root, 'bin', 'heapscope.mjs'), '--help'], { env: { ...clean, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('bin/heapscope.mjs', () => {
  it('runs a current bundle and says nothing', () => {
    expect(run(checkout('current'))).toEqual({ code: 0, out: 'bundle --help\n', err: '' });
  });

  it('runs the sources, saying why once, when a source file is newer than the bundle', () => {
    const root = checkout('stale');
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'shared', 'a.ts'), later, later);
    expect(run(root)).toEqual({
      code: 0,
      out: 'sources --help\n',
      err: 'heapscope: shared/a.ts changed after the CLI bundle was built: running from TypeScript sources (slower start); run `npm run build:cli`\n',
    });
  });

  it('runs the sources when a file the bundle was built from is gone', () => {
    const root = checkout('removed');
    rmSync(join(root, 'shared', 'a.ts'));
    const r = run(root);
    expect(r.out).toBe('sources --help\n');
    expect(r.err).toBe('heapscope: shared/a.ts was removed after the CLI bundle was built: running from TypeScript sources (slower start); run `npm run build:cli`\n');
  });

  it('runs the sources, saying so, without a bundle', () => {
    const root = checkout('unbuilt');
    rmSync(join(root, 'out'), { recursive: true });
    expect(run(root)).toEqual({
      code: 0,
      out: 'sources --help\n',
      err: 'heapscope: the CLI bundle is not built: running from TypeScript sources (slower start); run `npm run build:cli`\n',
    });
  });

  it('runs the sources quietly when HEAPSCOPE_FROM_SOURCE asks for them', () => {
    expect(run(checkout('asked'), { HEAPSCOPE_FROM_SOURCE: '1' })).toEqual({ code: 0, out: 'sources --help\n', err: '' });
  });
});

// The re-run with huge pages (bin/huge-pages.mjs) on a Linux kernel whose THP mode is `madvise`
// (the only case where the launcher re-runs): a stub bundle that says which tunables it got and
// then exits with a code, or with a signal, which the launcher must pass on.
const THP_MADVISE = (() => {
  try {
    return process.platform === 'linux' && /\[madvise\]/.test(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'));
  } catch {
    return false;
  }
})();
const TUNABLES_STUB = `export async function runCli(argv, io) {
  io.stdout.write('tunables=' + (process.env.GLIBC_TUNABLES ?? '') + ' pid=' + process.pid + '\\n');
  if (argv[0] === 'signal') process.kill(process.pid, 'SIGTERM');
  return Number(argv[0]) || 0;
}
`;

describe.skipIf(!THP_MADVISE)('bin/heapscope.mjs with huge pages (Linux, THP madvise)', () => {
  function hugeRun(args: string[], env: Record<string, string>) {
    const root = checkout(`huge-${Math.random().toString(36).slice(2)}`);
    writeFileSync(join(root, 'out', 'cli', 'heapscope.mjs'), TUNABLES_STUB);
    const clean = { ...process.env };
    delete clean.GLIBC_TUNABLES;
    delete clean.HEAPSCOPE_HUGE_PAGES;
    return spawnSync(process.execPath, [join(root, 'bin', 'heapscope.mjs'), ...args], { env: { ...clean, ...env }, encoding: 'utf8', timeout: 60_000 });
  }

  it('re-runs node with the tunable and passes the exit code on', () => {
    const r = hugeRun(['3'], { HEAPSCOPE_HUGE_PAGES: '1' });
    expect(r.stdout).toMatch(/^tunables=glibc\.malloc\.hugetlb=1 pid=\d+\n$/);
    expect(Number(/pid=(\d+)/.exec(r.stdout)![1])).not.toBe(r.pid); // a second process answered
    expect(r.status).toBe(3);
    expect(r.stderr).toBe('');
  });

  it('passes a signal that ended the re-run on', () => {
    const r = hugeRun(['signal'], { HEAPSCOPE_HUGE_PAGES: '1' });
    expect(r.stdout).toMatch(/^tunables=glibc\.malloc\.hugetlb=1/);
    expect(r.signal).toBe('SIGTERM');
  });

  it('runs in its own process without the tunable unless asked', () => {
    for (const env of [{}, { HEAPSCOPE_HUGE_PAGES: '0' }] as Record<string, string>[]) {
      const r = hugeRun(['0'], env);
      expect(r.stdout).toBe(`tunables= pid=${r.pid}\n`);
      expect(r.status).toBe(0);
    }
  });
});

describe('test/tools/build-cli.mjs', () => {
  // A checkout without node_modules: esbuild cannot be imported.
  function bare(): string {
    const root = join(dir, `bare-${Math.random().toString(36).slice(2)}`);
    mkdirSync(join(root, 'test', 'tools'), { recursive: true });
    copyFileSync(join(ROOT, 'test', 'tools', 'build-cli.mjs'), join(root, 'test', 'tools', 'build-cli.mjs'));
    return root;
  }

  it('with --if-possible (npm install, `prepare`) warns and succeeds when esbuild is missing', () => {
    const r = spawnSync(process.execPath, [join(bare(), 'test', 'tools', 'build-cli.mjs'), '--if-possible'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^heapscope: could not build the CLI bundle \(esbuild is not installed: .*\); `npx heapscope` will run from the TypeScript sources \(slower start\)\. Run `npm run build:cli` once it can\.\n$/);
  });

  it('without it (npm run build:cli) fails', () => {
    const r = spawnSync(process.execPath, [join(bare(), 'test', 'tools', 'build-cli.mjs')], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^build:cli failed: esbuild is not installed: /);
  });
});

/**
 * `npx tsx test/perf/cli-startup.bench.ts [--runs N]` (also run by `npm run bench`): start-up of
 * `heapscope --help` through bin/heapscope.mjs, with the bundle (out/cli/heapscope.mjs, built
 * first when missing or stale) and from the TypeScript sources through tsx
 * (HEAPSCOPE_FROM_SOURCE=1): median wall and CPU time of N runs each (default 5), alternating so
 * a load change hits both. CPU is the child's own process.cpuUsage() at exit (user + system),
 * reported by a preloaded hook; wall minus CPU is mostly waiting for a core on a busy machine.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface StartupResult {
  bundle: { wallMs: number; cpuMs: number };
  sources: { wallMs: number; cpuMs: number };
  runs: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function measureStartup(runs = 5): StartupResult {
  const build = spawnSync(process.execPath, [join(REPO, 'test', 'tools', 'build-cli.mjs')], { cwd: REPO, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build:cli failed: ${build.stderr}`);
  const dir = mkdtempSync(join(tmpdir(), 'heapscope-startup-'));
  try {
    const hook = join(dir, 'cpu-hook.mjs');
    const cpuFile = join(dir, 'cpu.txt');
    writeFileSync(hook, `import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => { const c = process.cpuUsage(); writeFileSync(${JSON.stringify(cpuFile)}, String((c.user + c.system) / 1000)); });\n`);
    const one = (fromSource: boolean): { wallMs: number; cpuMs: number } => {
      const env = { ...process.env };
      if (fromSource) env.HEAPSCOPE_FROM_SOURCE = '1';
      else delete env.HEAPSCOPE_FROM_SOURCE;
      const t0 = performance.now();
      const r = spawnSync(process.execPath, ['--import', pathToFileURL(hook).href, join(REPO, 'bin', 'heapscope.mjs'), '--help'], { cwd: REPO, env, encoding: 'utf8' });
      const wallMs = performance.now() - t0;
      if (r.status !== 0) throw new Error(`heapscope --help exited ${r.status}: ${r.stderr}`);
      if (!fromSource && r.stderr !== '') throw new Error(`the bundle did not run: ${r.stderr}`);
      return { wallMs, cpuMs: Number(readFileSync(cpuFile, 'utf8')) };
    };
    const b: { wallMs: number; cpuMs: number }[] = [];
    const s: { wallMs: number; cpuMs: number }[] = [];
    for (let i = 0; i < runs; i++) {
      b.push(one(false));
      s.push(one(true));
    }
    const pick = (xs: { wallMs: number; cpuMs: number }[]) => ({ wallMs: Math.round(median(xs.map((x) => x.wallMs))), cpuMs: Math.round(median(xs.map((x) => x.cpuMs))) });
    return { bundle: pick(b), sources: pick(s), runs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function startupLines(r: StartupResult): string[] {
  return [
    `== CLI start-up, heapscope --help (median of ${r.runs})`,
    `  bundle              ${r.bundle.wallMs} ms (CPU ${r.bundle.cpuMs} ms)`,
    `  sources via tsx     ${r.sources.wallMs} ms (CPU ${r.sources.cpuMs} ms): ${(r.sources.wallMs / r.bundle.wallMs).toFixed(1)}× the bundle's wall time`,
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--runs');
  const r = measureStartup(i > 0 ? Number(process.argv[i + 1]) : 5);
  process.stdout.write(`${startupLines(r).join('\n')}\n${JSON.stringify({ bench: 'cli-startup', ...r })}\n`);
}

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Builds and runs the small .NET programs under test/dotnet/ that allocate known object graphs,
 * so live-capture tests get real CoreCLR heaps with known answers.
 *
 * `dotnet` is optional on a developer machine: `DOTNET_MISSING` is the visible skip reason.
 */
const here = dirname(fileURLToPath(import.meta.url));
export const DOTNET_DIR = resolve(here, '..', 'dotnet');

export const HAS_DOTNET: boolean = (() => {
  try {
    execFileSync('dotnet', ['--version'], { stdio: 'pipe', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
})();
export const DOTNET_MISSING = 'the .NET SDK (dotnet) is not installed: live-runtime tests skipped';

const built = new Map<string, string>();

/** Build test/dotnet/<name> once per test process; returns the path of <name>.dll. */
export function buildDotnetApp(name: string): string {
  const cached = built.get(name);
  if (cached) return cached;
  const out = join(tmpdir(), 'heapscope-dotnet', name);
  mkdirSync(out, { recursive: true });
  execFileSync('dotnet', ['build', join(DOTNET_DIR, name), '-c', 'Release', '-o', out, '--nologo', '-v', 'q'], {
    stdio: 'pipe',
    timeout: 300_000,
    env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' },
  });
  const dll = join(out, `${name}.dll`);
  if (!existsSync(dll)) throw new Error(`dotnet build produced no ${dll}`);
  built.set(name, dll);
  return dll;
}

export interface RunningApp {
  pid: number;
  child: ChildProcess;
  /** Close stdin (the app exits by itself) and wait; kills it after 10 s. */
  stop(): Promise<void>;
}

/** Start a built app and wait for its "READY <pid>" line. */
export function startDotnetApp(dll: string, args: string[] = [], timeoutMs = 60_000): Promise<RunningApp> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('dotnet', [dll, ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1' },
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${dll} did not print READY within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${dll} exited early with code ${code}: ${out}`));
    });
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /READY (\d+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      resolvePromise({
        pid: Number(m[1]),
        child,
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.stdin!.end();
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(killer);
        },
      });
    });
  });
}

import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

/** The repository's root, where `npm start` runs. */
export const ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * Runs electron/scripts/start.ts as `npm start` would (through tsx, from the root) with `args` and
 * `env`, and waits for browser mode's "serving at" line. `output()` is everything it printed so far.
 */
export async function startBrowserMode(args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'electron', 'scripts', 'start.ts'), ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr!.on('data', (d: Buffer) => void (out += d.toString()));
  const url = await new Promise<string>((res, rej) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Heapscope is serving at (http:\/\/\S+)/.exec(out);
      if (m) res(m[1]);
    });
    child.once('exit', (code) => rej(new Error(`start.ts exited ${code}: ${out}`)));
  });
  return { child, url, output: () => out };
}

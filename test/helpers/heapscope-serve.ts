import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

/**
 * A `heapscope serve` of a test's or benchmark's own: the e2e global setup and specs with a
 * server of their own (jammed-worker, memory-too-large, session-restore) and the UI benchmarks.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * `heapscope serve FILES --port 0 --no-open [--list-only]` through bin/heapscope.mjs (the CLI
 * bundle when built, else the sources); resolves with the printed URL. The shared server only
 * lists its files (`--list-only`): the specs open them from the Welcome page one by one, and named
 * files opening as tabs is tested on a server of its own (session-restore.spec.ts). `env` adds
 * variables for a server of a spec's own (HEAPSCOPE_DEBUG_JAM, HEAPSCOPE_MEMORY_LIMIT).
 */
export function startServer(files: string[], work: string, opts: { listOnly?: boolean; env?: Record<string, string> } = { listOnly: true }): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'heapscope.mjs'), 'serve', ...files, '--port', '0', '--no-open', ...(opts.listOnly ? ['--list-only'] : [])], {
    cwd: ROOT,
    env: { ...process.env, HEAPSCOPE_NO_OPEN: '1', HEAPSCOPE_CONFIG_DIR: join(work, 'config'), ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolvePromise, reject) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`heapscope serve printed no URL within 60 s:\n${out}`)), 60_000);
    const fail = (e: Error) => {
      clearTimeout(timer);
      child.kill('SIGTERM');
      reject(e);
    };
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /Heapscope is serving at (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        // keep draining so the server never blocks on a full pipe
        child.stdout?.removeListener('data', onData);
        child.stdout?.resume();
        resolvePromise({ url: m[1], child });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => {
      out += d.toString();
      if (process.env.HEAPSCOPE_E2E_DEBUG) process.stderr.write(d);
    });
    child.on('exit', (code) => fail(new Error(`heapscope serve exited with ${code} before printing its URL:\n${out}`)));
  });
}

/** Stops a server started here: SIGTERM, then SIGKILL if it has not exited 5 s later. */
export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((res) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      res();
    }, 5000);
    child.once('exit', () => {
      clearTimeout(t);
      res();
    });
    child.kill('SIGTERM');
  });
}

import type { CliIo } from '../../electron/cli/command.js';

/** A CliIo that records stdout and stderr, for calling runCli() in tests. */
export function captureIo(): { io: CliIo; readonly out: string; readonly err: string } {
  let out = '';
  let err = '';
  return {
    io: {
      stdout: { write: (s: string) => void (out += s) },
      stderr: { write: (s: string) => void (err += s) },
    },
    get out() {
      return out;
    },
    get err() {
      return err;
    },
  };
}

/** Run the CLI in-process with captured output: its exit code, stdout and stderr. */
export async function runCliCaptured(args: string[]): Promise<{ code: number; out: string; err: string }> {
  // Imported here, not at the top: the CLI pulls in the whole engine, and captureIo's other users need none of it.
  const { runCli } = await import('../../electron/cli/main.js');
  const c = captureIo();
  const code = await runCli(args, c.io);
  return { code, out: c.out, err: c.err };
}

/**
 * `args --format json` through the CLI, asserted clean (no stderr, exit 0), parsed. vitest is
 * imported here, not at the top, so that tsx scripts (test/perf) can still import captureIo.
 */
export async function runCliJson<T>(args: string[]): Promise<T> {
  const { expect } = await import('vitest');
  const r = await runCliCaptured([...args, '--format', 'json']);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as T;
}

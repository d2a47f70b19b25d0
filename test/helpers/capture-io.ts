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

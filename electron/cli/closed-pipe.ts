import type { Writer } from './output.js';
import { escapeControl } from './terminal-text.js';

/**
 * A closed standard output ends the command quietly, like other Unix tools.
 *
 * `heapscope dominators big.gcdump --format json | head -c 200`: once `head` exits, the next write
 * to the pipe fails with EPIPE (Node ignores SIGPIPE, so the error arrives as an 'error' event
 * on process.stdout). Unhandled, that event is a stack trace and exit code 1. The reader asked
 * for no more output, so this is success: exit 0 at once, without finishing the analysis or the
 * output nobody reads. A failing standard error is ignored (there is nowhere left to report to).
 *
 * Only real streams are watched (they have `on`); the in-memory writers of the tests are not.
 * Any other stdout failure (a full disk behind `> out.json`) is one coded line and exit code 1.
 */
export const EXIT_ON_CLOSED_PIPE = 0;

type Exit = (code: number) => void;

interface EmitterWriter extends Writer {
  on(event: 'error', listener: (e: Error & { code?: string }) => void): unknown;
}

const watched = new WeakSet<object>();

/** A reader that went away: EPIPE, or a write after Node already destroyed the stream for it. */
export function isClosedPipe(e: { code?: string } | null | undefined): boolean {
  return e?.code === 'EPIPE' || e?.code === 'ERR_STREAM_DESTROYED';
}

export function watchClosedPipes(stdout: Writer, stderr: Writer, exit: Exit = (code) => process.exit(code)): void {
  if (isEmitter(stderr) && !watched.has(stderr)) {
    watched.add(stderr);
    stderr.on('error', () => {});
  }
  if (!isEmitter(stdout) || watched.has(stdout)) return;
  watched.add(stdout);
  stdout.on('error', (e) => {
    if (isClosedPipe(e)) {
      exit(EXIT_ON_CLOSED_PIPE);
      return;
    }
    try {
      stderr.write(`error io/write-failed: cannot write the output: ${escapeControl(e.message)}\n`);
    } finally {
      exit(1);
    }
  });
}

function isEmitter(w: Writer): w is EmitterWriter {
  return typeof (w as { on?: unknown }).on === 'function';
}

import { readFileSync } from 'node:fs';
import type { CancellationToken } from '../../shared/util/cancellation.js';

/**
 * Test-only: make a load spin synchronously, the way a reader stuck in a long loop on a crafted
 * file does, without depending on any reader bug (those get fixed; the worker's defences must
 * keep working). Active only when the worker was started with `debugJam` (SessionManager option
 * or HEAPSCOPE_DEBUG_JAM=1 for `heapscope serve`), and only for a file with a sibling marker
 * `<file>.jam`, whose content picks the kind of loop:
 *
 *   ignore-cancel    never checks its token: only terminating the worker stops it
 *   observe-cancel   checks its token every 65,536 iterations, like every real long loop must
 *
 * Either spins for at most ten minutes and then lets the load continue normally.
 */
export function debugJam(path: string, token: CancellationToken): void {
  let mode: string;
  try {
    mode = readFileSync(`${path}.jam`, 'utf8').trim();
  } catch {
    return;
  }
  const observe = mode === 'observe-cancel';
  const until = Date.now() + 10 * 60_000;
  for (let i = 0; ; i++) {
    if ((i & 0xffff) === 0) {
      if (observe) token.throwIfCancelled();
      if (Date.now() > until) return;
    }
  }
}

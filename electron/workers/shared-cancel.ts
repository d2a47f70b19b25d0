import { CancelledError } from '../../shared/errors.js';
import type { CancellationToken } from '../../shared/util/cancellation.js';

/**
 * A cancellation flag main can raise while the worker is busy.
 *
 * A worker's CancellationSource is flipped by a `cancelLoad` message, and a message is handled
 * only when the worker's event loop is free. A reader stretch that runs synchronously for seconds
 * (building a big graph, or a crafted file driving a loop) checks its token in vain: the message
 * that would cancel it waits behind it. This flag lives in a SharedArrayBuffer (4 bytes per
 * session) that main writes with Atomics.store, so the loop's next `throwIfCancelled()` sees it
 * at once. Cost: one Atomics.load per check, and loops check every 65,536 iterations.
 *
 * The value says why: 1 = the user cancelled the load, 2 = the session was closed.
 */
export const CANCEL_LOAD = 1;
export const CANCEL_CLOSE = 2;

export function newCancelFlag(): SharedArrayBuffer {
  return new SharedArrayBuffer(8); // [0]: the load's flag; [1]: Restore count (below)
}

/**
 * "What if" Restore (issue 16), raised by main before it forwards `setIgnored` with no rules: a
 * query computing the what-if's numbers (inspections, paths to roots: seconds at 10M objects,
 * in one synchronous run) sees it at its next token check and stops, so the Restore message
 * behind it is answered at once instead of after it. A counter, so each Restore is new.
 */
export function raiseRestore(buffer: SharedArrayBuffer): void {
  Atomics.add(new Int32Array(buffer), 1, 1);
}

/** How many Restores main raised on this flag (0 without a flag, or for an old 4-byte one). */
export function restoreCount(buffer: SharedArrayBuffer | undefined): number {
  return buffer && buffer.byteLength >= 8 ? Atomics.load(new Int32Array(buffer), 1) : 0;
}

/** Raise the flag (main side); the first reason wins. */
export function raiseCancelFlag(buffer: SharedArrayBuffer, why: typeof CANCEL_LOAD | typeof CANCEL_CLOSE): void {
  Atomics.compareExchange(new Int32Array(buffer), 0, 0, why);
}

/** A token cancelled by either the worker-local `local` token or main's shared flag. */
export function tokenWithFlag(local: CancellationToken, buffer: SharedArrayBuffer | undefined): CancellationToken {
  if (!buffer) return local;
  const flag = new Int32Array(buffer);
  return {
    get isCancelled() {
      return local.isCancelled || Atomics.load(flag, 0) !== 0;
    },
    throwIfCancelled() {
      local.throwIfCancelled();
      const why = Atomics.load(flag, 0);
      if (why !== 0) throw new CancelledError(why === CANCEL_CLOSE ? 'session closed' : 'loading cancelled');
    },
  };
}

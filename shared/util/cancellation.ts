import { CancelledError } from '../errors.js';

/**
 * A cooperative cancellation flag checked by long loops.
 *
 * Hot loops call `throwIfCancelled()` every 65,536 iterations (`(i & 0xffff) === 0`), which
 * costs nothing measurable and bounds the reaction time to a few milliseconds.
 */
export interface CancellationToken {
  readonly isCancelled: boolean;
  throwIfCancelled(): void;
}

export class CancellationSource implements CancellationToken {
  private cancelled = false;
  private reason = 'operation cancelled';

  get isCancelled(): boolean {
    return this.cancelled;
  }

  cancel(reason?: string): void {
    this.cancelled = true;
    if (reason) this.reason = reason;
  }

  throwIfCancelled(): void {
    if (this.cancelled) throw new CancelledError(this.reason);
  }

  get token(): CancellationToken {
    return this;
  }
}

/** A token that never fires, for callers that cannot cancel. */
export const NEVER_CANCELLED: CancellationToken = Object.freeze({
  isCancelled: false,
  throwIfCancelled(): void {},
});

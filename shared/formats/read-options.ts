import type { CancellationToken } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';

/** Options every snapshot reader takes. */
export interface ReadOptions {
  token?: CancellationToken;
  /** Called with (phase, bytesDone, bytesTotal); the phase is "parse" for readers. */
  progress?: ProgressSink;
  /**
   * Which snapshot of a multi-snapshot file to read: the AppDomain name or 0-based section index
   * of a CF heap log, or the 0-based heap dump of a trace. Default: the first.
   */
  select?: string;
}

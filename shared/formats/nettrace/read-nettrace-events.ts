import type { ByteSource } from '../../util/byte-source.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { NEVER_CANCELLED } from '../../util/cancellation.js';
import type { ProgressSink } from '../../util/progress.js';
import type { NetTraceSummary } from './nettrace-event.js';
import type { NetTraceHandlers } from './nettrace-parser.js';
import { NetTraceParser } from './nettrace-parser.js';

export interface ReadNetTraceEventsOptions {
  token?: CancellationToken;
  /** (phase "parse", bytes read, total bytes) */
  progress?: ProgressSink;
  /** Deliver events in timestamp order (needed by GC timelines and heap snapshots). */
  sort?: boolean;
  /** Return a summary flagged `truncated` instead of throwing when the stream is cut off. */
  allowTruncated?: boolean;
  /** Bytes per read; default 4 MiB. */
  chunkSize?: number;
  /** Stop reading early (e.g. once a heap dump is complete); checked after every chunk. */
  stopWhen?: () => boolean;
}

/**
 * Read a whole EventPipe file from a ByteSource, chunk by chunk, into `handlers`.
 *
 * Memory stays at one chunk plus the block being assembled (plus pending events when sorting),
 * whatever the file size. A source whose size is unknown (-1) is read until a short read.
 */
export async function readNetTraceEvents(
  source: ByteSource,
  handlers: NetTraceHandlers,
  opts: ReadNetTraceEventsOptions = {},
): Promise<NetTraceSummary> {
  const token = opts.token ?? NEVER_CANCELLED;
  const progress = opts.progress;
  const chunkSize = opts.chunkSize ?? 4 * 1024 * 1024;
  const total = source.size;
  const streamBytes = total >= 0 ? total : undefined;
  const parser = new NetTraceParser(handlers, { sort: opts.sort, allowTruncated: opts.allowTruncated, token, name: source.name, streamBytes });
  let offset = 0;
  progress?.('parse', 0, Math.max(0, total));
  for (;;) {
    token.throwIfCancelled();
    const want = total >= 0 ? Math.min(chunkSize, total - offset) : chunkSize;
    if (want <= 0) break;
    const chunk = await source.read(offset, want);
    if (chunk.length === 0) break;
    parser.push(chunk);
    offset += chunk.length;
    progress?.('parse', offset, Math.max(0, total));
    if (parser.done || opts.stopWhen?.()) break;
    if (chunk.length < want) break;
  }
  const summary = parser.end();
  if (parser.done && offset < total) summary.trailingBytes = Math.max(summary.trailingBytes, total - summary.bytesRead);
  return summary;
}

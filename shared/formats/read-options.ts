import type { CancellationToken } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import type { SectionFragment } from './cf-heaplog/section-fragment.js';
import type { MemoryBudget } from '../graph/memory-estimate.js';
import type { BlobPartReader } from './gcdump/blob-split.js';
import type { TypeHistogramSink } from './dump/type-histogram.js';

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
  /**
   * The graph's columns in SharedArrayBuffers where a reader can allocate them so (the CF heap
   * log reader; the nettrace reader for its references, sizes, types and edge starts; the
   * .gcdump reader for all but generations), for a host that hands the graph to other threads
   * (saves it one copy).
   */
  sharedMemory?: boolean;
  /** Lets a reader use a second thread (see StretchReader); readers that cannot ignore it. */
  stretchReader?: StretchReader;
  /**
   * Called at most once, as soon as a reader knows about how big the graph will be (before it
   * builds it): `nodes` and `edges` are estimates that are rarely too small. The app uses it to
   * have the analysis worker allocate its scratch memory while the parse finishes (on a VM a
   * first touch of fresh memory is a costly page fault). Readers that cannot tell ignore it.
   * The counts are ones the file backs, checked against its bytes first (a .gcdump's node count
   * against its addresses and node records), never a bare claim from a header.
   */
  sizeHint?: (nodes: number, edges: number) => void;
  /**
   * The memory the host can give this snapshot, asked when a reader knows the graph's size and
   * before it allocates it (graph/memory-estimate.ts): more needed than available is a
   * `memory/too-large` error instead of an allocation failure or a crash. Absent: no check.
   * Readers that learn the size only while reading (.nettrace) do not ask.
   */
  memoryBudget?: () => MemoryBudget;
  /**
   * The type table before the graph: the dump reader asks its helper for a stats pass and calls
   * this once with its counts and sizes per type (formats/dump/type-histogram.ts), while the
   * walk goes on. Other readers ignore it.
   */
  typeHistogram?: TypeHistogramSink;
  /**
   * A full garbage collection, where the host can run one (electron/workers/collect-garbage.ts).
   * The .gcdump reader calls it once its scratch (node offsets, the sort by offset) is garbage and
   * before the builder's finish allocates the last columns (records out of node order: the
   * offsets, a second edge column): V8 may not have collected that scratch yet, and the finish is
   * the parse's peak. Other readers ignore it.
   */
  collectGarbage?: () => void;
}

/**
 * Reads a later stretch of the file being read in another thread, for a reader that splits its
 * work across two cores (the CF heap log reader: cf-heaplog/section-fragment.ts). Provided by the
 * host (electron/workers: one child worker per call). `result` rejects when the stretch cannot be
 * read there, or with CancelledError once `token` is cancelled; `cancel` stops the thread (a no-op
 * once it is done). `progress` gets the bytes read there so far.
 */
export type StretchReader = ((
  request: { format: 'cf-heaplog'; from: number; chunkSize?: number; maxLineBytes?: number },
  token: CancellationToken,
  progress: (bytes: number) => void,
) => { result: Promise<SectionFragment>; cancel(): void }) & {
  /**
   * The same for the second half of a .gcdump node blob (gcdump/blob-split.ts); a property, so
   * hosts hand one `stretchReader` to every reader. Absent: the .gcdump is read on one thread.
   */
  gcdumpBlob?: BlobPartReader;
};

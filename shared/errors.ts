/**
 * Heapscope's error vocabulary.
 *
 * Expected failures (a bad file, a cancelled load, a missing process) are `AppError`s with a
 * stable `code`: the CLI prints `error <code>: <message>` and the UI maps codes to messages.
 * Broken invariants are `BugError`s and never come from user input. Recoverable data problems
 * (a dangling reference, an unknown type id) are not thrown at all: they go into a graph's
 * capped problem list (see graph/problems.ts).
 */

export type ErrorCode =
  | 'format/unknown'
  | 'format/bad-magic'
  | 'format/truncated'
  | 'format/corrupt'
  | 'format/unsupported-version'
  | 'format/size-overflow'
  | 'format/too-large'
  | 'format/no-heap-dump'
  | 'io/not-found'
  | 'io/denied'
  | 'io/read-failed'
  /** A FIFO, device, socket or directory where a snapshot file was expected (reading it could block forever). */
  | 'io/not-a-file'
  /** Writing output failed (other than the reader closing the pipe, which is not an error). */
  | 'io/write-failed'
  | 'usage/bad-argument'
  | 'process/not-found'
  | 'process/not-dotnet'
  | 'process/denied'
  | 'process/exited'
  | 'process/timeout'
  | 'process/protocol'
  /** The runtime answered a dump request with an error HRESULT (or wrote no file). */
  | 'dump/refused'
  /** The target process exited while its dump was being written. */
  | 'dump/process-exited'
  /** The runtime did not finish the dump within the timeout. */
  | 'dump/timeout'
  /** Opening the snapshot would need more memory than is available (detail: estimateBytes, availableBytes, nodes, edges, limit); checked before allocating. */
  | 'memory/too-large'
  | 'worker/crashed'
  | 'worker/out-of-memory'
  | 'worker/unresponsive'
  | 'session/not-found'
  /** `heapscope mcp`: open_snapshot when the most snapshots allowed (--max-open) are already open. */
  | 'mcp/too-many-snapshots'
  /** Process dumps (read by the ClrMD helper, electron/dump-reader): the helper is not built. */
  | 'dump/helper-missing'
  /** The dump is of a process without the .NET runtime loaded. */
  | 'dump/no-clr'
  /** The runtime's data-access library (DAC) for the dump's runtime cannot be loaded; detail.file names it. */
  | 'dump/dac-missing'
  /** The dump helper died, was killed, or failed unexpectedly. */
  | 'dump/helper-crashed'
  /** The dump file is truncated or damaged. */
  | 'dump/corrupt'
  /** String contents were asked of a file that has none (.gcdump, traces): only process dumps carry them. */
  | 'strings/needs-dump'
  /** A dump query (runtime, threads, object) failed inside the helper, which keeps running. */
  | 'dump/query-failed'
  /** A command that reads object contents, threads or runtime info was given a file that is not a process dump. */
  | 'dump/not-a-dump'
  /** A dump query named an address that is not the start of an object on the managed heap. */
  | 'object/not-found'
  | 'cancelled'
  | 'bug';

export type ErrorDetail = Record<string, string | number | boolean>;

/** An expected failure with a stable, scriptable code. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly detail?: ErrorDetail,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** A file that is not what it claims to be; `detail.offset` says where reading stopped. */
export class FormatError extends AppError {
  constructor(code: ErrorCode, message: string, detail?: ErrorDetail) {
    super(code, message, detail);
    this.name = 'FormatError';
  }
}

/** The user (or a timeout) stopped a long operation. */
export class CancelledError extends AppError {
  constructor(message = 'operation cancelled') {
    super('cancelled', message);
    this.name = 'CancelledError';
  }
}

/** An invariant of our own code broke. Never thrown for bad user input. */
export class BugError extends AppError {
  constructor(message: string, detail?: ErrorDetail) {
    super('bug', message, detail);
    this.name = 'BugError';
  }
}

/** Serializable form of an error, for IPC and JSON output. */
export interface AppErrorDto {
  code: ErrorCode;
  message: string;
  detail?: ErrorDetail;
}

/**
 * Any thrown value as an AppErrorDto. Typed-array allocation failures (RangeError "Array buffer
 * allocation failed") map to worker/out-of-memory; everything unknown is a bug.
 */
export function toErrorDto(e: unknown): AppErrorDto {
  if (e instanceof AppError) {
    return e.detail ? { code: e.code, message: e.message, detail: e.detail } : { code: e.code, message: e.message };
  }
  if (e instanceof RangeError && /allocation failed|Invalid typed array length|Array buffer/i.test(e.message)) {
    return { code: 'worker/out-of-memory', message: `out of memory: ${e.message}` };
  }
  const message = e instanceof Error ? e.message : String(e);
  return { code: 'bug', message: `internal error: ${message}` };
}

export function fromErrorDto(dto: AppErrorDto): AppError {
  return new AppError(dto.code, dto.message, dto.detail);
}

/** Exhaustiveness helper for switches over unions. */
export function assertNever(value: never, what = 'value'): never {
  throw new BugError(`unexpected ${what}: ${String(value)}`);
}

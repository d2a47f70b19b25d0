import type { AppErrorDto, ErrorCode } from '../../shared/errors';
import { AppError } from '../../shared/errors';

/**
 * The one table that turns error codes into words for people (ARCHITECTURE §9.9).
 *
 * `title` is the headline of the error banner/tab; the back end's own message follows as detail
 * because it names the specific offset, file or field. Codes not listed (new ones added to the
 * contract later) fall back to a generic headline instead of failing.
 */
const TITLES: Partial<Record<ErrorCode, string>> = {
  'format/unknown': 'This file is not a heap snapshot Heapscope can read',
  'format/bad-magic': 'This file does not start like a .gcdump, .nettrace or CF heap log',
  'format/truncated': 'The file ends too early (it may be incomplete or still being written)',
  'format/corrupt': 'The file is damaged',
  'format/unsupported-version': 'This version of the format is not supported',
  'format/size-overflow': 'An object in this file is larger than Heapscope can represent',
  'format/too-large': 'The snapshot is too large to open',
  'io/not-found': 'The file no longer exists',
  'io/denied': 'Permission to read the file was denied',
  'io/read-failed': 'The file could not be read',
  'io/not-a-file': 'This is a folder, pipe or device, not a snapshot file',
  'usage/bad-argument': 'The request was not accepted',
  'session/not-found': 'This snapshot is no longer open',
  cancelled: 'Loading was cancelled',
  'process/not-found': 'There is no process with that id (it may have exited)',
  'process/not-dotnet': 'That process has no .NET diagnostics endpoint',
  'process/denied': 'Permission denied: Heapscope cannot attach to that process',
  'process/exited': 'The process exited (or closed its diagnostics connection)',
  'process/timeout': 'The process did not deliver the data in time',
  'process/protocol': 'The .NET runtime refused the diagnostics request',
  'dump/refused': 'The .NET runtime refused to write the dump',
  'dump/process-exited': 'The process exited while it was being dumped',
  'dump/timeout': 'The dump did not finish in time',
  'worker/crashed': 'The analysis process crashed',
  'worker/out-of-memory': 'Not enough memory to analyse this snapshot',
  'memory/too-large': 'This snapshot needs more memory than this machine has available',
  'worker/unresponsive': 'The analysis did not stop when asked: its worker was restarted',
  'dump/helper-missing': 'Reading process dumps needs Heapscope\'s dump reader, which is not built',
  'dump/no-clr': 'This dump is of a process without the .NET runtime',
  'dump/dac-missing': 'The .NET runtime this dump was taken with is not installed here',
  'dump/helper-crashed': 'The dump reader stopped unexpectedly',
  'dump/corrupt': 'The dump is truncated or damaged',
  'dump/query-failed': 'The dump reader could not read this from the dump',
  'dump/not-a-dump': 'This needs a full process dump',
  'object/not-found': 'There is no object at this address in the dump',
  bug: 'Internal error',
};

export interface ErrorText {
  code: string;
  title: string;
  detail: string;
}

export function describeError(e: unknown): ErrorText {
  const dto = toDto(e);
  const title = TITLES[dto.code as ErrorCode] ?? 'Something went wrong';
  const offset = dto.detail?.offset;
  const where = offset !== undefined && !/offset/.test(dto.message) ? ` (at byte offset ${offset})` : '';
  return { code: dto.code, title, detail: `${dto.message}${where}` };
}

export function toDto(e: unknown): AppErrorDto {
  if (e instanceof AppError) return e.detail ? { code: e.code, message: e.message, detail: e.detail } : { code: e.code, message: e.message };
  if (isDto(e)) return e;
  return { code: 'bug', message: e instanceof Error ? e.message : String(e) };
}

function isDto(e: unknown): e is AppErrorDto {
  return typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' && typeof (e as { message?: unknown }).message === 'string';
}

export function isCancelled(e: unknown): boolean {
  return toDto(e).code === 'cancelled';
}

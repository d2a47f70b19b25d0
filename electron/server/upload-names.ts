import { toErrorDto, type AppErrorDto } from '../../shared/errors.js';
import { hidePaths } from './hide-paths.js';

/**
 * Names and errors of browser-mode uploads, which come from a page and must never reach or reveal
 * the server's own files.
 *
 * An upload is written to `<workDir>/uploads/<random>/<name>`. The name the browser sent is only a
 * label: its last path component (either separator, so `..\\..` from a Windows browser is caught
 * on Linux too), characters outside a small set replaced, leading dots dropped (no `..`, no `.`,
 * no hidden files), at most 200 characters, and `upload.gcdump` when nothing is left.
 *
 * Errors keep their code but any mention of the work directory becomes the upload's name: an fs
 * error message names the absolute temp path ("EISDIR ... '/tmp/heapscope-serve-x/uploads'"),
 * and a page has no business learning where the server keeps things. An error without a code of
 * ours (raw fs errors) becomes `io/read-failed` without its message.
 */
export const DEFAULT_UPLOAD_NAME = 'upload.gcdump';

export function uploadFileName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? '';
  const safe = last
    .replace(/[^\w.\- ()[\]]+/g, '_')
    .replace(/^\.+/, '')
    .slice(0, 200);
  return safe.trim() === '' ? DEFAULT_UPLOAD_NAME : safe;
}

export function uploadError(e: unknown, workDir: string, name: string): AppErrorDto {
  const dto = toErrorDto(e);
  if (dto.code === 'bug') return { code: 'io/read-failed', message: `the upload ${name} could not be stored` };
  return { ...dto, message: hidePaths(dto.message, workDir, () => name) };
}

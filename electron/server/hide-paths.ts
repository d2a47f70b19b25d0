import type { AppErrorDto } from '../../shared/errors.js';
import type { Result } from '../../shared/ipc/result.js';

/**
 * Browser mode keeps uploads and exports in a temp directory of its own (`workDir`); where that
 * is, is none of a page's business (the upload path and the WebSocket both answer pages). Error
 * messages from fs calls name absolute paths ("ENOTDIR: not a directory, mkdir '/tmp/heapscope-
 * serve-x/exports/ab'"), so every error leaving the server goes through here: each path under
 * `workDir` (up to the next quote or white space) is replaced by `replace(path)`. Paths of the
 * user's own files (typed, listed, recent) are not touched: the user named them.
 */
export function hidePaths(message: string, workDir: string, replace: (path: string) => string = lastComponent): string {
  let out = message;
  for (let at = out.indexOf(workDir); at >= 0; at = out.indexOf(workDir, at)) {
    let end = at + workDir.length;
    while (end < out.length && !/['"\s]/.test(out[end])) end++;
    const by = replace(out.slice(at, end));
    out = out.slice(0, at) + by + out.slice(end);
    at += by.length;
  }
  return out;
}

/** The same for a Result about to be sent (only errors change). */
export function hidePathsInResult<T>(r: Result<T>, workDir: string): Result<T> {
  if (r.ok || !r.error.message.includes(workDir)) return r;
  const error: AppErrorDto = { ...r.error, message: hidePaths(r.error.message, workDir) };
  return { ok: false, error };
}

function lastComponent(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? '';
}

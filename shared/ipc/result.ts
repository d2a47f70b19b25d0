import { AppError, fromErrorDto, toErrorDto, type AppErrorDto } from '../errors.js';

/**
 * What crosses every IPC boundary (Electron ipcMain ⇄ preload, WebSocket ⇄ ws-bridge, main ⇄
 * worker): a value or a coded error, never a rejected promise.
 *
 * A rejected `ipcRenderer.invoke` flattens the error to a message string; sending the error as
 * data keeps its `code` and `detail` intact, so the renderer can map codes to messages in one
 * table (ARCHITECTURE §9.8, "Errors cross as data").
 */
export type { AppErrorDto } from '../errors.js';

export type Result<T> = { ok: true; value: T } | { ok: false; error: AppErrorDto };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function err<T = never>(error: AppErrorDto): Result<T> {
  return { ok: false, error };
}

/** Run `fn` and wrap its outcome; any throw becomes a coded error (unknown throws become `bug`). */
export async function toResult<T>(fn: () => T | Promise<T>): Promise<Result<T>> {
  try {
    return ok(await fn());
  } catch (e) {
    return err(toErrorDto(e));
  }
}

/** The value, or the error rethrown as an AppError with its code (for callers that prefer throws). */
export function unwrap<T>(r: Result<T>): T {
  if (r.ok) return r.value;
  throw fromErrorDto(r.error);
}

/** Whether `x` has the shape of a Result (used by transports to validate what comes back). */
export function isResult(x: unknown): x is Result<unknown> {
  if (typeof x !== 'object' || x === null) return false;
  const r = x as { ok?: unknown; error?: { code?: unknown; message?: unknown } };
  // A Result<void> crosses JSON as {ok:true}: JSON.stringify drops an undefined `value`.
  if (r.ok === true) return true;
  return r.ok === false && typeof r.error === 'object' && r.error !== null && typeof r.error.code === 'string';
}

export { AppError };

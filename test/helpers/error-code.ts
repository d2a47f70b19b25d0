import { AppError } from '../../shared/errors.js';

/** The AppError code a promise rejects with, or 'no error'; any other error is rethrown. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return 'no error';
}

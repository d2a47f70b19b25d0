import { AppError } from '../../shared/errors.js';
import { registerReader } from '../../shared/formats/read-snapshot.js';
import { readDumpFile } from './helper-process.js';

/**
 * Registers the `dump` reader with read-snapshot.ts. Process dumps are read by a helper process,
 * which only Node hosts can start, so the Node entry points (CLI, snapshot worker) import this
 * beside shared/formats/all-readers.ts; the browser bundle never does.
 */
registerReader('dump', (source, opts) => {
  const path = (source as { path?: unknown }).path;
  if (typeof path !== 'string') throw new AppError('dump/helper-missing', `${source.name} is a process dump, which can only be read from a file on disk`);
  return readDumpFile(path, source.name, { token: opts.token, progress: opts.progress, memoryBudget: opts.memoryBudget, sharedMemory: opts.sharedMemory, typeHistogram: opts.typeHistogram });
});

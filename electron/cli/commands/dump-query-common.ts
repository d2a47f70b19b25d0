import { resolve } from 'node:path';
import { AppError } from '../../../shared/errors.js';
import { sniffFormat } from '../../../shared/formats/read-snapshot.js';
import type { DumpQuery, DumpQueryResults } from '../../../shared/formats/dump/dump-queries.js';
import { queryDumpOnce } from '../../dump-reader/dump-query-client.js';
import { FileByteSource } from '../../files/file-byte-source.js';

/**
 * The plumbing of `heapscope runtime|threads|object`: check by content that FILE is a process
 * dump (a .gcdump or trace has no threads, runtime or field values: dump/not-a-dump says what is
 * needed), then ask the dump helper one query. The heap is not walked, so these are quick.
 */
export async function queryDumpFile<Q extends DumpQuery>(path: string, command: string, q: Q): Promise<{ name: string; result: DumpQueryResults[Q['query']] }> {
  const source = await FileByteSource.open(path);
  let format;
  try {
    format = await sniffFormat(source);
  } finally {
    await source.close();
  }
  if (format !== 'dump') {
    const what = format === 'unknown' ? 'not a snapshot Heapscope reads' : `a ${format === 'cf-heaplog' ? 'Compact Framework heap log' : `.${format}`} file`;
    throw new AppError(
      'dump/not-a-dump',
      `${source.name} is ${what}; heapscope ${command} needs a full process dump (heapscope dump -p PID, dotnet-dump collect or createdump), which holds threads, runtime info and object contents`,
    );
  }
  return { name: source.name, result: await queryDumpOnce(resolve(path), source.name, q) };
}

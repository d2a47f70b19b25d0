import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dumpDotnetApp, processDumpSkip } from './process-dump.js';

/**
 * A process dump of test/dotnet/DumpContentsApp (known field values, a Timer holding a disposed
 * Clock, threads parked in ParkedWorker.HoldLocals / WaitInCatch) written by `heapscope dump`,
 * for the dump query tests. Linux only (the runtime writes ELF cores there; CI runs Linux).
 */
export const DUMP_CONTENTS_SKIP: string | null = processDumpSkip('dump query tests');

export interface ContentsDump {
  dir: string;
  dump: string;
  /** Environment.Version as the program printed it. */
  runtimeVersion: string;
  pid: number;
}

export async function writeContentsDump(type?: 'heap' | 'full'): Promise<ContentsDump> {
  const { dir, dump, app } = await dumpDotnetApp('DumpContentsApp', { prefix: 'heapscope-dump-contents-', file: 'contents.dmp', args: (d) => ['--info', join(d, 'info.txt')], type });
  const runtimeVersion = /RUNTIME (\S+)/.exec(readFileSync(join(dir, 'info.txt'), 'utf8'))![1];
  return { dir, dump, runtimeVersion, pid: app.pid };
}

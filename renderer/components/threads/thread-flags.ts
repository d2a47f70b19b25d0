import type { DumpThread } from '../../../shared/ipc/contract';

/** "background, finalizer": the flags the Threads view lists (the CLI's `threads` table says the same). */
export function threadFlags(t: DumpThread): string {
  const f = [t.background ? 'background' : 'foreground'];
  if (t.finalizer) f.push('finalizer');
  if (t.gc) f.push('GC');
  if (t.threadPool) f.push('thread pool');
  if (!t.alive) f.push('dead');
  return f.join(', ');
}

export function osId(t: DumpThread): string {
  return `0x${t.osThreadId.toString(16)}`;
}

import type { DumpThread } from '../../../shared/ipc/contract';

export { threadFlags } from '../../../shared/formats/dump/dump-queries';

/** The OS thread id in hex, as SOS and the CLI's `threads` table print it. */
export function osId(t: DumpThread): string {
  return `0x${t.osThreadId.toString(16)}`;
}

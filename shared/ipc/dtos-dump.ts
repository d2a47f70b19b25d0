/**
 * Process dumps (issue 15): what the inspector, the Threads view and the Summary's runtime card get
 * from a dump tab's dump reader. The shapes are the helper's answers, defined (and documented) in
 * shared/formats/dump/dump-queries.ts and printed as is by `heapscope runtime|threads|object --format json`.
 */
import type { SessionId } from './dtos-session.js';

export type { DumpAppDomain, DumpField, DumpFrame, DumpFrameRoot, DumpModule, DumpObject, DumpRuntimeInfo, DumpThread, DumpThreads, DumpValue } from '../formats/dump/dump-queries.js';

export interface DumpObjectReq {
  sessionId: SessionId;
  /** Hex, `0x` optional. */
  address: string;
  /** Array elements to list (default 20, at most 1,000). */
  elements?: number;
}

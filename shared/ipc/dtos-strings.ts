import type { SessionId, SortSpec } from './dtos-session.js';
import type { STRING_SORT_KEYS } from './sort-keys.js';

/**
 * Contract DTOs (see contract.ts for the rules) of the Strings view: duplicate strings of a
 * process dump (shared/analysis/duplicate-strings.ts). Only dumps carry string contents; other
 * sessions answer with the coded error strings/needs-dump.
 */
export type StringSortKey = (typeof STRING_SORT_KEYS)[number];

export interface StringRowsReq {
  sessionId: SessionId;
  sort: SortSpec<StringSortKey>;
  start: number;
  end: number;
  /** Values containing this text (case-insensitive). */
  filter?: string;
  /** Values with at least this many reachable copies (default 2). */
  minCount?: number;
}

/** One distinct value among the reachable strings. */
export interface StringRow {
  /** Session-local id of the value (for `stringInstances`). */
  valueId: number;
  /** The value as the dump keeps it: its first 1,024 chars. */
  value: string;
  /** Full length in UTF-16 chars. */
  length: number;
  truncated: boolean;
  count: number;
  totalBytes: number;
  /** totalBytes minus one copy. */
  wastedBytes: number;
}

/** The strings holding one value, in address order. */
export interface StringInstancesReq {
  sessionId: SessionId;
  valueId: number;
  start: number;
  end: number;
}

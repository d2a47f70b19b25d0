import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { toErrorDto } from '../../../shared/errors.js';

/**
 * What every heapscope MCP tool answers: one text block of compact JSON (no indentation: an
 * assistant pays per token), or, for an expected failure, `isError: true` with
 * `{"error": {"code", "message"}}`, the codes of `heapscope`'s `error <code>: ...` lines
 * (`io/not-found`, `format/corrupt`, `session/not-found`, …). A tool never throws to the SDK,
 * so a bad file or id never reaches the client as a protocol error or a stack trace.
 */
export function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

export function errorResult(e: unknown): CallToolResult {
  const { code, message, detail } = toErrorDto(e);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: detail ? { code, message, detail } : { code, message } }) }] };
}

/** Runs a tool body and wraps its value or error. */
export function guarded<A>(body: (args: A) => unknown): (args: A) => Promise<CallToolResult> {
  return async (args) => {
    try {
      return jsonResult(await body(args));
    } catch (e) {
      return errorResult(e);
    }
  };
}

/** The `snapshot` argument of every tool that reads one open snapshot. */
export const SNAPSHOT_ARG = z.string().describe('Snapshot id returned by open_snapshot, e.g. "s1".');

/** offset / limit arguments: a page of at most `max` rows, `def` by default. */
export function pageArgs(def: number, max: number) {
  return {
    offset: z.number().int().min(0).optional().describe('Rows to skip (default 0).'),
    limit: z.number().int().min(1).max(max).optional().describe(`Rows to return (default ${def}, at most ${max}).`),
  };
}

export interface Page<R> {
  /** Rows in the whole (filtered) list (not `total`: diff's `total` is the whole-heap row, as in the CLI). */
  totalRows: number;
  offset: number;
  /** The offset of the next page, or null when this page reaches the end. */
  nextOffset: number | null;
  rows: R[];
}

/** A page of `list` (an array or a typed-array view); `map` runs only on the rows in the page. */
export function pageOf<T, R>(list: ArrayLike<T>, offset: number | undefined, limit: number | undefined, def: number, map: (row: T) => R): Page<R> {
  const start = Math.min(offset ?? 0, list.length);
  const end = Math.min(start + (limit ?? def), list.length);
  const rows: R[] = [];
  for (let i = start; i < end; i++) rows.push(map(list[i]));
  return { totalRows: list.length, offset: start, nextOffset: end < list.length ? end : null, rows };
}

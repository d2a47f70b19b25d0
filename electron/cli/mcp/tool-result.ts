import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { toErrorDto } from '../../../shared/errors.js';
import { throttledProgress, type ProgressSink } from '../../../shared/util/progress.js';

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

/** What the SDK passes a tool besides its arguments (progress token, notifications, abort signal). */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Runs a tool body and wraps its value or error. */
export function guarded<A>(body: (args: A, extra: ToolExtra) => unknown): (args: A, extra: ToolExtra) => Promise<CallToolResult> {
  return async (args, extra) => {
    try {
      return jsonResult(await body(args, extra));
    } catch (e) {
      return errorResult(e);
    }
  };
}

/** The `snapshot` argument of every tool that reads one open snapshot. */
export const SNAPSHOT_ARG = z.string().describe('Snapshot id returned by open_snapshot, e.g. "s1".');

/** What a paged tool's description says about its pages (the test checks it names the schema's maximum). */
export function pagedNote(def: number, max: number): string {
  return ` Paged: offset / limit (${def} rows by default, at most ${max} a page); the answer gives totalRows and nextOffset (null on the last page).`;
}

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

/**
 * MCP progress notifications for a long tool call, when the client asked for them (a
 * progressToken in the request): at most one per 250 ms per phase, plus each phase's first and
 * last. `progress` must grow with every notification, and the phases (reading, dominators,
 * retained, tree, types) each count from 0: so progress = phases begun − 1 + the fraction done
 * of the current one (no total: how many phases a format has is not known up front).
 */
export function progressOf(extra: ToolExtra): ProgressSink | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let phase = '';
  let step = -1;
  let last = -1;
  return throttledProgress((p, done, total) => {
    if (p !== phase) {
      phase = p;
      step++;
    }
    const fraction = total > 0 ? Math.min(done / total, 0.999) : 0;
    const progress = Math.round((step + fraction) * 1000) / 1000;
    if (progress <= last) return;
    last = progress;
    const name = p === 'parse' ? 'reading' : p;
    const message = total > 0 ? `${name} ${Math.floor((done / total) * 100)}%` : name;
    // the worker reports progress as messages (snapshot-worker.ts); the main thread is free to send them at once
    void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } });
  }, 250);
}

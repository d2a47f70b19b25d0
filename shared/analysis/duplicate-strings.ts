import type { HeapGraph } from '../graph/heap-graph.js';
import { NONE } from '../graph/heap-graph.js';
import { stringValueCount, stringValueText } from '../graph/string-values.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';

/**
 * Duplicate strings: for each distinct string value among the reachable System.String objects,
 * how many copies there are and what the copies beyond the first cost. Only graphs that carry
 * string contents (process dumps; see graph/string-values.ts) have an answer.
 *
 * Per value:
 *   count        reachable string objects with this contents
 *   totalBytes   Σ their shallow sizes (equal contents ⇒ equal sizes)
 *   wastedBytes  totalBytes − the size of one copy: what interning or sharing the value would
 *                save (0 for a value held once)
 * Rows are sorted by wastedBytes, then count, descending (ties: the value's first-seen order in
 * the dump); `minCount` drops values with fewer copies, `top` keeps the first rows.
 *
 * Unreachable strings (dead, not yet collected) are left out: a dump keeps garbage, and garbage
 * wastes nothing the next GC does not free.
 *
 * Cost: one pass over the nodes and three columns per distinct value (count 4, total 8, copy
 * size 4 bytes), no per-node allocation; the sort is over values kept, not nodes.
 */
export interface DuplicateStringRow {
  /** Index into graph.stringValues. */
  valueId: number;
  /** The value's text as the dump keeps it (its first 1,024 chars for dumps). */
  value: string;
  /** Full length in UTF-16 chars. */
  length: number;
  /** `value` is only the start of the string. */
  truncated: boolean;
  count: number;
  totalBytes: number;
  wastedBytes: number;
}

export interface DuplicateStringsOptions {
  /** Values held by fewer copies are left out (default 2: real duplicates only; 1 lists every value). */
  minCount?: number;
  /** Rows kept, after sorting (default: all). */
  top?: number;
  token?: CancellationToken;
}

export interface DuplicateStringsResult {
  rows: DuplicateStringRow[];
  /** Values with at least minCount copies (before `top`). */
  valueCount: number;
  /** Reachable string objects with contents, and their bytes, over all values. */
  stringCount: number;
  stringBytes: number;
  /** Σ wastedBytes over all values with at least minCount copies (before `top`). */
  wastedBytes: number;
}

/** Per-value counts over reachable strings: the columns both the rows and the app's windows use. */
export interface StringValueStats {
  count: Uint32Array;
  totalBytes: Float64Array;
  copySize: Uint32Array;
  stringCount: number;
  stringBytes: number;
}

export function stringValueStats(g: HeapGraph, reachable: Uint8Array, token: CancellationToken = NEVER_CANCELLED): StringValueStats | null {
  const col = g.nodeStringValue;
  const table = g.stringValues;
  if (!col || !table) return null;
  const values = stringValueCount(table);
  const count = new Uint32Array(values);
  const totalBytes = new Float64Array(values);
  const copySize = new Uint32Array(values);
  let stringCount = 0;
  let stringBytes = 0;
  for (let n = 0; n < g.nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    const v = col[n];
    if (v === NONE || !reachable[n]) continue;
    const size = g.selfSize[n];
    if (count[v]++ === 0) copySize[v] = size;
    totalBytes[v] += size;
    stringCount++;
    stringBytes += size;
  }
  return { count, totalBytes, copySize, stringCount, stringBytes };
}

export function duplicateStrings(g: HeapGraph, reachable: Uint8Array, options: DuplicateStringsOptions = {}): DuplicateStringsResult | null {
  const token = options.token ?? NEVER_CANCELLED;
  const stats = stringValueStats(g, reachable, token);
  if (!stats) return null;
  const table = g.stringValues!;
  const minCount = Math.max(1, options.minCount ?? 2);
  const { count, totalBytes, copySize } = stats;
  const kept: number[] = [];
  let wasted = 0;
  for (let v = 0; v < count.length; v++) {
    if (count[v] < minCount) continue;
    kept.push(v);
    wasted += totalBytes[v] - copySize[v];
  }
  token.throwIfCancelled();
  const wastedOf = (v: number): number => totalBytes[v] - copySize[v];
  kept.sort((a, b) => wastedOf(b) - wastedOf(a) || count[b] - count[a] || a - b);
  const top = options.top === undefined ? kept.length : Math.max(0, Math.min(options.top, kept.length));
  const rows: DuplicateStringRow[] = [];
  for (let i = 0; i < top; i++) {
    const v = kept[i];
    const text = stringValueText(table, v);
    rows.push({
      valueId: v,
      value: text,
      length: table.lengths[v],
      truncated: table.lengths[v] > text.length,
      count: count[v],
      totalBytes: totalBytes[v],
      wastedBytes: wastedOf(v),
    });
  }
  return { rows, valueCount: kept.length, stringCount: stats.stringCount, stringBytes: stats.stringBytes, wastedBytes: wasted };
}

/** Reachable nodes holding value `valueId` (for "show the instances"), in node order, at most `limit`. */
export function nodesWithStringValue(g: HeapGraph, reachable: Uint8Array, valueId: number, limit = Infinity, token: CancellationToken = NEVER_CANCELLED): number[] {
  const col = g.nodeStringValue;
  const out: number[] = [];
  if (!col) return out;
  for (let n = 0; n < g.nodeCount && out.length < limit; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    if (col[n] === valueId && reachable[n]) out.push(n);
  }
  return out;
}

import type { HeapGraph } from './heap-graph.js';
import { NONE } from './heap-graph.js';

/**
 * "What does this string hold?" for graphs that know (process dumps: the ClrMD helper reads each
 * System.String's contents). .gcdump files and heap-walk traces carry no contents: every call
 * answers null there, and `hasStringValues` says so up front.
 */
export interface StringValue {
  /** Index into graph.stringValues: equal ids ⇔ equal contents. */
  id: number;
  /** The first chars of the value (the reader's bound, 1,024 for dumps). */
  text: string;
  /** Full length in UTF-16 chars. */
  length: number;
  /** text is a prefix: the value is longer than what the dump reader kept. */
  truncated: boolean;
}

export function hasStringValues(g: HeapGraph): boolean {
  return g.nodeStringValue !== undefined && g.stringValues !== undefined;
}

/** Index into graph.stringValues of node `node`'s contents, or NONE (not a string, or no contents in this format). */
export function stringValueIdOf(g: HeapGraph, node: number): number {
  const col = g.nodeStringValue;
  return col ? col[node] : NONE;
}

/** The contents of node `node` when it is a string whose contents the graph carries, else null. */
export function stringValueOf(g: HeapGraph, node: number): StringValue | null {
  const id = stringValueIdOf(g, node);
  const table = g.stringValues;
  if (id === NONE || !table) return null;
  return { id, text: table.texts[id], length: table.lengths[id], truncated: table.lengths[id] > table.texts[id].length };
}

/** Chars of a string's value listed in grid rows (Instances, CSV); the inspector shows what the graph keeps. */
export const ROW_VALUE_CHARS = 200;
/** Chars of a string's value shown beside a type name in path and dominator-tree rows. */
export const PREVIEW_CHARS = 40;

/** `text` cut to `max` chars with an ellipsis when longer (a surrogate pair is not split). */
export function cutText(text: string, max: number): string {
  return text.length <= max ? text : headOf(text, max) + '…';
}

/** The first `max` chars of `text` (a surrogate pair is not split). */
export function headOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const c = text.charCodeAt(max - 1);
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}

/**
 * A short quoted preview of node `node`'s value for rows that name objects by type (paths,
 * dominator tree): `"abc…"` (PREVIEW_CHARS at most), or null when the node is not a string with
 * contents. Control characters show as escapes so a preview stays on one line.
 */
export function stringPreviewOf(g: HeapGraph, node: number, max = PREVIEW_CHARS): string | null {
  const v = stringValueOf(g, node);
  if (!v) return null;
  const cut = v.text.length > max ? cutText(v.text, max) : v.truncated ? v.text + '…' : v.text;
  return JSON.stringify(cut);
}

import type { HeapGraph, StringValueTable } from './heap-graph.js';
import { NONE } from './heap-graph.js';
import { utf8Text } from '../util/utf8.js';

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

/** Distinct values in the table. */
export function stringValueCount(t: StringValueTable): number {
  return t.lengths.length;
}

/** The kept text of value `v` (decoded from the table's UTF-8 each call: one value is cheap). */
export function stringValueText(t: StringValueTable, v: number): string {
  return utf8Text(t.bytes, t.textStart[v], t.textEnd[v]);
}

/** Whether value `v`'s text is a prefix (the value is longer than what the reader kept). */
export function isTruncatedValue(t: StringValueTable, v: number): boolean {
  return t.lengths[v] > stringValueText(t, v).length;
}

const allTexts = new WeakMap<StringValueTable, readonly string[]>();

/**
 * Every value's text, decoded on the first call and kept with the table: for the passes that read
 * them all (sorting the Strings view by value, filtering by text). Costs a JS string per value
 * from then on, as every value did before the texts were pooled; views that show a window of rows
 * use stringValueText instead.
 */
export function stringValueTexts(t: StringValueTable): readonly string[] {
  let texts = allTexts.get(t);
  if (!texts) {
    const all = new Array<string>(stringValueCount(t));
    for (let v = 0; v < all.length; v++) all[v] = stringValueText(t, v);
    texts = all;
    allTexts.set(t, texts);
  }
  return texts;
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
  const text = stringValueText(table, id);
  return { id, text, length: table.lengths[id], truncated: table.lengths[id] > text.length };
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

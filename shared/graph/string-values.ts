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

import type { HeapGraph } from '../graph/heap-graph.js';
import { formatAddress, NODE_PSEUDO, NODE_UNDEFINED, NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { DominanceAnalysis } from './analyze.js';

/**
 * The big retainers of one snapshot, each under a name that survives into the next snapshot of
 * the same process (a HEURISTIC identity: objects move and get new addresses at every GC, so
 * nothing exact exists).
 *
 * Which nodes: the dominator tree is walked from the root down to `maxDepth` levels (the root is
 * level 0, root categories level 1), entering only nodes that retain at least `minBytes`. Every
 * heap object met is a retainer; pseudo-nodes (root categories, "[static var …]" holders) are
 * not listed but name the way down.
 *
 * Signature: the chain of segments from the root's child down to the node, one per dominator-tree
 * level. A segment is the node's type name without the size bucket dotnet-gcdump appends to big
 * objects (" (Bytes > 1K)", " (Bytes > 10K)", …: a growing array changes bucket), preceded by "field: " when the dominator itself holds
 * the node through a named field (process dumps only; .gcdump files name no fields). Siblings
 * with the same segment (same type and field under the same dominator) are told apart by rank
 * in retained size, largest first, ties by node ordinal: the 2nd gets " #2", and so on. Limits,
 * which make it a heuristic: two same-type siblings that swap their order of size between
 * snapshots swap names; a retainer whose dominator changes (a second path appears) gets a new
 * name; and one below `minBytes` in a snapshot is not seen there (counts as absent).
 *
 * Cost: O(visited nodes + their children scanned), where every level holds at most
 * reachable / minBytes visited nodes (siblings retain disjoint bytes); child runs are sorted by
 * retained size, so a scan stops at the first child under `minBytes`. Output: one entry per
 * visited heap object, never per node of the heap.
 */
export interface RetainerEntry {
  signature: string;
  /** The segments of the signature, root side first. */
  path: string[];
  node: number;
  /** 0x-prefixed hex (shown in the last snapshot's rows: the node is session-local). */
  address: string;
  type: string;
  /** Dominator-tree level (root categories are 1). */
  depth: number;
  retained: number;
}

export interface RetainerSnapshot {
  label: string;
  minBytes: number;
  maxDepth: number;
  /** In preorder of the dominator tree (a node before its subtree; siblings by retained size desc). */
  entries: RetainerEntry[];
}

export interface RetainerOptions {
  maxDepth?: number;
  minBytes?: number;
  token?: CancellationToken;
}

/** Levels walked by default: root → category → static holder → object → … 8 deep. */
export const DEFAULT_RETAINER_DEPTH = 8;
/** Default threshold: 0.01% of the reachable heap, at least 1 KiB (bounds the output to ~10,000 per level). */
export function defaultRetainerMinBytes(reachableSize: number): number {
  return Math.max(1024, Math.floor(reachableSize / 10_000));
}

export const SEGMENT_SEPARATOR = ' › ';

const SIZE_BUCKET = / \(Bytes > \d+[KM]?\)$/;

/** The type name as identity: without dotnet-gcdump's size-bucket suffix. */
export function identityTypeName(type: string): string {
  return type.replace(SIZE_BUCKET, '');
}

/** Segment text of a node reached through `field` (null: unknown), ranked `rank` (0-based) among same-segment siblings. */
export function segmentText(type: string, field: string | null, rank: number): string {
  return (field !== null ? `${field}: ` : '') + type + (rank > 0 ? ` #${rank + 1}` : '');
}

export function retainerSignatures(g: HeapGraph, a: DominanceAnalysis, label: string, opts: RetainerOptions = {}): RetainerSnapshot {
  const maxDepth = opts.maxDepth ?? DEFAULT_RETAINER_DEPTH;
  const minBytes = opts.minBytes ?? defaultRetainerMinBytes(a.reachableSize);
  const token = opts.token ?? NEVER_CANCELLED;
  const names = g.types.names;
  const { retainedSize, treePosition, treeChildStart, domChildren } = a;
  token.throwIfCancelled();
  const entries: RetainerEntry[] = [];
  // explicit stack of (node, depth, path): no recursion over the heap
  const stack: { node: number; depth: number; path: string[] }[] = [{ node: g.rootIndex, depth: 0, path: [] }];
  let work = 0;
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop()!;
    if (depth > 0 && (g.nodeFlags[node] & (NODE_PSEUDO | NODE_UNDEFINED)) === 0) {
      entries.push({ signature: path.join(SEGMENT_SEPARATOR), path, node, address: formatAddress(g, node), type: names[g.nodeType[node]], depth, retained: retainedSize[node] });
    }
    if (depth >= maxDepth) continue;
    const p = treePosition[node];
    if (p === NONE) continue;
    const start = treeChildStart[p];
    const end = treeChildStart[p + 1];
    const fields = fieldsHeldBy(g, node);
    const seen = new Map<string, number>();
    const children: { node: number; depth: number; path: string[] }[] = [];
    for (let i = start; i < end; i++) {
      if ((++work & 0xffff) === 0) token.throwIfCancelled();
      const c = domChildren[i];
      if (retainedSize[c] < minBytes) break; // sorted by retained desc: the rest are smaller
      const type = identityTypeName(names[g.nodeType[c]]);
      const field = fields?.get(c) ?? null;
      const key = segmentText(type, field, 0);
      const rank = seen.get(key) ?? 0;
      seen.set(key, rank + 1);
      children.push({ node: c, depth: depth + 1, path: [...path, segmentText(type, field, rank)] });
    }
    // pushed in reverse so the largest child is walked first (parents before children, stable order)
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return { label, minBytes, maxDepth, entries };
}

/** Field names through which `node` references its targets (first named edge wins), or null when the graph names no fields. */
function fieldsHeldBy(g: HeapGraph, node: number): Map<number, string> | null {
  const col = g.edgeFieldName;
  const fieldNames = g.fieldNames;
  if (!col || !fieldNames) return null;
  // bounded by the object's fields: array elements and pseudo-node edges carry no name
  const out = new Map<number, string>();
  for (let e = g.firstEdge[node]; e < g.firstEdge[node + 1]; e++) {
    const id = col[e];
    if (id === NONE) continue;
    const t = g.edgeTarget[e];
    if (!out.has(t)) out.set(t, fieldNames[id] ?? '?');
  }
  return out;
}

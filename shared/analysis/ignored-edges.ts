import { AppError } from '../errors.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { NODE_PSEUDO } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import { newUint32Array } from '../util/typed-arrays.js';

/**
 * "What if": references the user asks to ignore, as a mask with one bit per edge, and the graph
 * without them.
 *
 * Three kinds of rule, each resolved to edges of the snapshot's graph:
 *   - `reference`: every edge from node `from` to node `to` (duplicates included: a .gcdump may
 *     list the same reference twice, and ignoring one copy would change nothing);
 *   - `type`: every edge out of every node of type `typeIndex` (the type's instances stop keeping
 *     anything alive, like the weak-handle categories do);
 *   - `root`: every edge out of pseudo-node `node` — a root category such as
 *     "[finalizer Handles]" or "[static vars]", or one static-variable holder. The category itself
 *     stays, with no references: what only it held becomes unreachable.
 *
 * How the analysis treats the mask: `withoutEdges` copies the CSR minus the masked edges into a
 * graph that shares every node column with the original (node ordinals do not change, so rows,
 * selections and the inspector stay valid), and the whole unchanged pipeline runs on that graph.
 * So the DFS of the dominators, the retainer index, the paths' BFS, set retained sizes and the
 * inspections all skip exactly the same edges without a second predicate in their hot loops (the
 * drift counted-edges.ts warns about), and the original analysis is left untouched, so restoring
 * it is instant. Cost: one pass over nodes and edges; 4 bytes per node and per kept edge (plus 4
 * per kept edge for the field-name column of process dumps) while the recomputed analysis is
 * kept, and the mask, 1 bit per edge.
 */
export type IgnoreRule =
  | { kind: 'reference'; from: number; to: number }
  | { kind: 'type'; typeIndex: number }
  | { kind: 'root'; node: number };

export interface EdgeMask {
  /** Bit `e & 7` of byte `e >>> 3` is set when edge `e` (an index into edgeTarget) is ignored. */
  readonly bits: Uint8Array;
  /** Distinct edges ignored. */
  readonly count: number;
  /** Edges each rule matched, in rule order (a rule may share edges with another). */
  readonly perRule: number[];
}

export function isIgnored(mask: Uint8Array, edge: number): boolean {
  return (mask[edge >>> 3] & (1 << (edge & 7))) !== 0;
}

/**
 * Resolve the rules to edges. Throws `usage/bad-argument` for a rule that names no node, type or
 * reference of this graph (a stale rule must say so, not silently change nothing).
 */
export function ignoredEdgeMask(g: HeapGraph, rules: readonly IgnoreRule[], token: CancellationToken = NEVER_CANCELLED): EdgeMask {
  const { firstEdge, edgeTarget, nodeType, nodeFlags, nodeCount } = g;
  const bits = new Uint8Array((g.edgeCount + 7) >>> 3);
  let count = 0;
  const mark = (e: number): number => {
    const byte = e >>> 3;
    const bit = 1 << (e & 7);
    if ((bits[byte] & bit) === 0) {
      bits[byte] |= bit;
      count++;
    }
    return 1;
  };
  const markRow = (v: number): number => {
    let k = 0;
    for (let e = firstEdge[v]; e < firstEdge[v + 1]; e++) k += mark(e);
    return k;
  };
  const checkNode = (v: number, what: string) => {
    if (!Number.isInteger(v) || v < 0 || v >= nodeCount) throw new AppError('usage/bad-argument', `no node ${v} to ignore ${what}`);
  };
  const perRule: number[] = [];
  for (const rule of rules) {
    token.throwIfCancelled();
    let matched = 0;
    switch (rule.kind) {
      case 'reference': {
        checkNode(rule.from, 'a reference from');
        checkNode(rule.to, 'a reference to');
        for (let e = firstEdge[rule.from]; e < firstEdge[rule.from + 1]; e++) if (edgeTarget[e] === rule.to) matched += mark(e);
        if (matched === 0) throw new AppError('usage/bad-argument', `node ${rule.from} has no reference to node ${rule.to}`);
        break;
      }
      case 'type': {
        const t = rule.typeIndex;
        if (!Number.isInteger(t) || t < 0 || t >= g.types.count) throw new AppError('usage/bad-argument', `no type with index ${t}`);
        for (let v = 0; v < nodeCount; v++) {
          if ((v & 0xffff) === 0) token.throwIfCancelled();
          if (nodeType[v] === t) matched += markRow(v);
        }
        break;
      }
      case 'root': {
        checkNode(rule.node, 'a root category');
        if ((nodeFlags[rule.node] & NODE_PSEUDO) === 0) throw new AppError('usage/bad-argument', `node ${rule.node} is an object, not a root category`);
        if (rule.node === g.rootIndex) throw new AppError('usage/bad-argument', 'the synthetic root cannot be ignored (nothing would stay alive)');
        matched = markRow(rule.node);
        break;
      }
      default:
        throw new AppError('usage/bad-argument', `unknown ignore rule ${JSON.stringify(rule)}`);
    }
    perRule.push(matched);
  }
  return { bits, count, perRule };
}

/**
 * The graph minus the masked edges: new `firstEdge`, `edgeTarget` (and `edgeFieldName`), every
 * other column shared with `g`. `sharedMemory`: the new columns live in SharedArrayBuffers (the
 * app's analysis children read them). O(N + E).
 */
export function withoutEdges(g: HeapGraph, mask: EdgeMask, token: CancellationToken = NEVER_CANCELLED, sharedMemory = false): HeapGraph {
  const n = g.nodeCount;
  const kept = g.edgeCount - mask.count;
  const { firstEdge, edgeTarget } = g;
  const bits = mask.bits;
  const names = g.edgeFieldName;
  const first = newUint32Array(n + 1, sharedMemory);
  const target = newUint32Array(kept, sharedMemory);
  const fieldName = names ? newUint32Array(kept, sharedMemory) : null;
  let k = 0;
  for (let v = 0; v < n; v++) {
    if ((v & 0xffff) === 0) token.throwIfCancelled();
    first[v] = k;
    for (let e = firstEdge[v], end = firstEdge[v + 1]; e < end; e++) {
      if ((bits[e >>> 3] & (1 << (e & 7))) !== 0) continue;
      if (fieldName) fieldName[k] = names![e];
      target[k++] = edgeTarget[e];
    }
  }
  first[n] = k;
  if (k !== kept) throw new AppError('bug', `edge mask counts ${mask.count} ignored edges but ${g.edgeCount - k} were dropped`);
  return { ...g, firstEdge: first, edgeTarget: target, edgeCount: kept, ...(fieldName ? { edgeFieldName: fieldName } : {}) };
}

/** The graph with `rules` applied (mask + copy); `ignoredEdges` = distinct edges dropped. */
export function graphIgnoring(g: HeapGraph, rules: readonly IgnoreRule[], token: CancellationToken = NEVER_CANCELLED, sharedMemory = false): { graph: HeapGraph; mask: EdgeMask } {
  const mask = ignoredEdgeMask(g, rules, token);
  return { graph: withoutEdges(g, mask, token, sharedMemory), mask };
}

/** Root categories the user can ignore by name (the CLI's `--ignore-root`): every pseudo-node named `name`, or the last segment of "[a]/[b]". */
export function pseudoNodesNamed(g: HeapGraph, name: string, token: CancellationToken = NEVER_CANCELLED): number[] {
  const leaf = name.includes('/') ? name.slice(name.lastIndexOf('/') + 1) : name;
  const names = g.types.names;
  const want = new Uint8Array(g.types.count);
  for (let t = 0; t < names.length; t++) if (names[t] === leaf) want[t] = 1;
  const out: number[] = [];
  for (let v = 0; v < g.nodeCount; v++) {
    if ((v & 0xffff) === 0) token.throwIfCancelled();
    if ((g.nodeFlags[v] & NODE_PSEUDO) !== 0 && want[g.nodeType[v]] === 1 && v !== g.rootIndex) out.push(v);
  }
  return out;
}

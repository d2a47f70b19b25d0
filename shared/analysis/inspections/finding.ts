import type { DominanceAnalysis } from '../analyze.js';
import type { HeapGraph } from '../../graph/heap-graph.js';
import { formatAddress, NONE } from '../../graph/heap-graph.js';
import type { CancellationToken } from '../../util/cancellation.js';

/**
 * What every inspection returns, and the plumbing they share: a context with the dominator
 * order, and groups of flagged objects whose bytes are counted without double counting.
 *
 * `bytes` of a finding is exact retained size: Σ retainedSize over the finding's objects that no
 * other object flagged by the same inspection dominates (a flagged object inside another's
 * retained set is already in that one's figure). Within one inspection, the findings' `bytes`
 * therefore add up to the retained size of the union of their dominator subtrees.
 */
export type InspectionKind =
  | 'event-handler-leak'
  | 'timer-held'
  | 'finalization'
  | 'accumulation-point'
  | 'large-objects'
  | 'static-field'
  | 'growth-type'
  | 'growth-static'
  | 'duplicate-strings'
  | 'sparse-arrays'
  | 'empty-arrays'
  | 'empty-collections'
  | 'growth-retainer';

export interface FindingExample {
  node: number;
  address: string;
  type: string;
  retainedSize: number;
}

export interface Finding {
  kind: InspectionKind;
  title: string;
  /** One sentence: the pattern. */
  explanation: string;
  /** One sentence: the usual fix. */
  fix: string;
  /** How many objects the finding names. */
  objects: number;
  /** Exact retained bytes (see the file comment). */
  bytes: number;
  /** Σ shallow size of the objects counted in `objects`. */
  shallowBytes: number;
  /** The largest named objects by retained size, largest first. */
  examples: FindingExample[];
  /** Inspection-specific figures (types, publisher, baseline …). */
  details: Record<string, string | number | boolean | null>;
}

export interface InspectionContext {
  g: HeapGraph;
  a: DominanceAnalysis;
  token: CancellationToken;
  /** Reachable nodes in dominator order: idom[order[p]] sits at a position < p (a DFS preorder). */
  order: Uint32Array;
  /** Examples kept per finding. */
  exampleCount: number;
}

export function makeContext(g: HeapGraph, a: DominanceAnalysis, token: CancellationToken, exampleCount: number): InspectionContext {
  // treePosition is the position in the DFS preorder the dominators were computed from, where
  // every dominator precedes the nodes it dominates: inverting it gives a top-down order (4N bytes).
  const order = new Uint32Array(a.reachableCount);
  const { treePosition } = a;
  for (let n = 0; n < g.nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    const p = treePosition[n];
    if (p !== NONE) order[p] = n;
  }
  return { g, a, token, order, exampleCount };
}

/**
 * A type name without the annotation readers append: dotnet-gcdump's size bucket
 * ("System.Byte[] (Bytes > 10K)") and PerfView's array layout ("System.Object[] (Ptrs,ElemSize=4)").
 */
const ANNOTATION = / \((Bytes > |Ptrs|NoPtrs|ElemSize)[^()]*\)$/;
export function baseTypeName(name: string): string {
  return name.replace(ANNOTATION, '');
}

/**
 * Objects flagged by one inspection, in groups (few: per type, per publisher …). `memberGroup[n]`
 * is n's group or -1; counts, shallow sums and the top examples per group are kept as they are
 * added, bytes by `finish` in one top-down pass.
 */
export class FlaggedGroups<K> {
  readonly memberGroup: Int32Array;
  readonly keys: K[] = [];
  readonly count: number[] = [];
  readonly shallow: number[] = [];
  readonly examples: number[][] = [];
  private readonly index = new Map<string, number>();

  constructor(private readonly ctx: InspectionContext) {
    this.memberGroup = new Int32Array(ctx.g.nodeCount).fill(-1);
  }

  add(node: number, keyText: string, key: K): void {
    let gi = this.index.get(keyText);
    if (gi === undefined) {
      gi = this.keys.length;
      this.index.set(keyText, gi);
      this.keys.push(key);
      this.count.push(0);
      this.shallow.push(0);
      this.examples.push([]);
    }
    this.memberGroup[node] = gi;
    this.count[gi]++;
    this.shallow[gi] += this.ctx.g.selfSize[node];
    keepLargest(this.examples[gi], node, this.ctx.a.retainedSize, this.ctx.exampleCount);
  }

  /** Exact bytes per group: Σ retained of members no other member dominates. O(reachable). */
  finish(): number[] {
    const { order, a, token } = this.ctx;
    const { idom, retainedSize } = a;
    const bytes = new Array<number>(this.keys.length).fill(0);
    if (this.keys.length === 0) return bytes;
    const member = this.memberGroup;
    const covered = new Uint8Array(member.length);
    for (let p = 1; p < order.length; p++) {
      if ((p & 0xffff) === 0) token.throwIfCancelled();
      const n = order[p];
      const d = idom[n];
      const under = covered[d] !== 0 || member[d] >= 0;
      if (under) covered[n] = 1;
      else if (member[n] >= 0) bytes[member[n]] += retainedSize[n];
    }
    return bytes;
  }

  exampleRows(gi: number): FindingExample[] {
    return this.examples[gi].map((n) => exampleOf(this.ctx, n));
  }
}

/** Insert `node` into `list` (largest retained first) if it is among the `k` largest. */
export function keepLargest(list: number[], node: number, retained: Float64Array, k: number): void {
  if (k <= 0) return;
  if (list.length === k && retained[list[k - 1]] >= retained[node]) return;
  let i = list.length < k ? list.length : k - 1;
  list[i] = node;
  while (i > 0 && retained[list[i - 1]] < retained[node]) {
    list[i] = list[i - 1];
    list[--i] = node;
  }
}

/** 1234567 → "1,234,567" for titles (exact, grouped). */
export function grouped(n: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 0 });
}

export function exampleOf(ctx: InspectionContext, node: number): FindingExample {
  const { g } = ctx;
  return { node, address: formatAddress(g, node), type: g.types.names[g.nodeType[node]], retainedSize: ctx.a.retainedSize[node] };
}

import { AppError } from '../errors.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';

/**
 * PerfView's (and Visual Studio's) "inclusive size": a HEURISTIC, not a retained size.
 *
 * PerfView turns the heap graph into a tree by giving every object ONE parent: the first object
 * that reaches it in a priority-first traversal from the root (MemoryGraphStackSource.ForEach in
 * microsoft/perfview, src/PerfView/memory/MemoryGraphStackSource.cs). An object's inclusive size
 * is then the sum over its subtree in that spanning tree. An object shared by two owners is
 * charged to whichever the traversal met first, so "inclusive" can be far above or below what
 * freeing the object would actually release; use `retainedSize` (analyze.ts) for that. We offer
 * the figure only so users can match numbers they see in PerfView / VS, and the UI must show it
 * under `PERFVIEW_INCLUSIVE_LABEL`, never as "retained".
 *
 * What we reproduce, to the bit where PerfView is deterministic:
 *   - type priorities from PerfView's pattern syntax (`Pat->Num;…`, `*` any chars, `%` word
 *     chars, case-insensitive, first matching pattern wins), matched against the type NAME as
 *     MemoryGraphStackSource does; default `PERFVIEW_DEFAULT_PRIORITIES` (its DefaultPriorities);
 *   - a child's priority = its type's priority + its parent's priority / 10, in float32;
 *   - the queue key = priority − a float32 counter bumped by 1e-7 per enqueue (PerfView's FIFO
 *     hack, including where float32 rounding defeats it), in PerfView's own binary-heap layout,
 *     so equal keys come out in the same order as in PerfView;
 *   - the root never gets a parent; after the live heap, "orphans" (nodes no other orphan
 *     reaches, cycles broken at the lowest ordinal) are enqueued with their type's priority and
 *     hang below "[not reachable from roots]";
 *   - every reference counts (PerfView's graphs have no weak edges), and sampled dumps scale
 *     each object's size by its type's count multiplier.
 * Not reproduced: PerfView's grouping/folding of frames in the stack viewer.
 *
 * Cost: O((N + E) log N) time; memory ≈ 30 bytes per node while running (parent, float32
 * priorities, heap, visit order), output 4N + 8N + 8 × typeCount. Computed on request, not in
 * analyzeGraph.
 */
export const PERFVIEW_INCLUSIVE_LABEL = 'PerfView-style inclusive size (priority spanning tree heuristic, not retained size)';

/** PerfView's SpanningTree.DefaultPriorities, verbatim. */
export const PERFVIEW_DEFAULT_PRIORITIES =
  'v4.0.30319\\%!->-1;v2.0.50727\\%!->-1;[*local vars]->-1000;mscorlib!Runtime.CompilerServices.ConditionalWeakTable->-10000;' +
  '[COM/WinRT Objects]->-1000000;[*handles]->-2000000;[other roots]->-2000000';

/** `parent` value of an orphan root (its parent is PerfView's "[not reachable from roots]"). */
export const PERFVIEW_UNREACHABLE = 0xfffffffe;
const VISITED = 0xfffffffd;
const VISITING = 0xfffffffc;

export interface PerfViewInclusive {
  readonly label: string;
  /** Spanning-tree parent; NONE for the root, PERFVIEW_UNREACHABLE for orphan roots. */
  readonly parent: Uint32Array;
  /** Σ (scaled) size over each node's spanning subtree. */
  readonly inclusiveSize: Float64Array;
  /** PerfView's "By Name" Inc: Σ size of nodes with an instance of the type on their tree path. */
  readonly typeInclusive: Float64Array;
  /** Inclusive size of the "[not reachable from roots]" pseudo-frame. */
  readonly unreachableInclusive: number;
  readonly orphanRootCount: number;
}

/** Per-type priorities from a PerfView priority string (throws usage/bad-argument on bad syntax). */
export function perfViewTypePriorities(typeNames: readonly string[], patterns: string): Float32Array {
  const rules: { re: RegExp; priority: number }[] = [];
  for (const part of patterns.split(';')) {
    const m = /(.*)->(-?\d+.?\d*)/.exec(part);
    if (!m) {
      if (part.trim() === '') continue;
      throw new AppError('usage/bad-argument', `priority pattern "${part}" is not of the form Pat->Num`);
    }
    rules.push({ re: new RegExp(perfViewPatternToRegExp(m[1].trim()), 'i'), priority: Math.fround(parseFloat(m[2])) });
  }
  const out = new Float32Array(typeNames.length);
  for (let t = 0; t < typeNames.length; t++) {
    const rule = rules.find((r) => r.re.test(typeNames[t] ?? ''));
    if (rule) out[t] = rule.priority;
  }
  return out;
}

/** PerfView's ToDotNetRegEx: escape everything, then `%` → word chars, `*` → any, `^`, `|`, `{}` → groups. */
export function perfViewPatternToRegExp(pattern: string): string {
  if (pattern.startsWith('@')) return pattern.slice(1);
  return pattern
    .replace(/[\\*+?|{[()^$.#\s]/g, (c) => '\\' + c)
    .replace(/%/g, '[.\\w\\d?]*')
    .replace(/\\\*/g, '.*')
    .replace(/\\\^/g, '^')
    .replace(/\\\|/g, '|')
    .replace(/\\\{/g, '(')
    .replace(/\}/g, ')');
}

export function computePerfViewInclusive(
  g: HeapGraph,
  opts: { priorities?: string; token?: CancellationToken; progress?: ProgressSink } = {},
): PerfViewInclusive {
  const token = opts.token ?? NEVER_CANCELLED;
  const progress = opts.progress ?? NO_PROGRESS;
  const n = g.nodeCount;
  const { firstEdge, edgeTarget, nodeType, selfSize } = g;
  const root = g.rootIndex;
  const typePriority = perfViewTypePriorities(g.types.names, opts.priorities ?? PERFVIEW_DEFAULT_PRIORITIES);
  progress('perfview-inclusive', 0, n);
  token.throwIfCancelled();

  const parent = new Uint32Array(n).fill(NONE);
  const nodePriority = new Float32Array(n);
  const visitOrder = new Uint32Array(n);
  const queue = new PerfViewQueue();
  const epsilon = Math.fround(1e-7);
  let order = 0;
  let visited = 0;
  let orphansScanned = false;
  let orphanRootCount = 0;
  queue.enqueue(root, 0);
  for (;;) {
    if (queue.count === 0) {
      if (orphansScanned) break;
      orphansScanned = true;
      orphanRootCount = enqueueOrphans(g, parent, typePriority, queue);
      if (queue.count === 0) break;
    }
    const node = queue.dequeue();
    const parentPriority = nodePriority[node];
    for (let e = firstEdge[node], end = firstEdge[node + 1]; e < end; e++) {
      const child = edgeTarget[e];
      if (parent[child] !== NONE || child === root) continue;
      parent[child] = node;
      const childPriority = Math.fround(typePriority[nodeType[child]] + Math.fround(parentPriority / 10));
      nodePriority[child] = childPriority;
      order = Math.fround(order + epsilon);
      queue.enqueue(child, Math.fround(childPriority - order));
    }
    visitOrder[visited++] = node;
    if ((visited & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('perfview-inclusive', visited, n);
    }
  }

  // Sizes, scaled like PerfView's samples for sampled dumps, folded up in reverse visit order.
  const multipliers = g.metadata.countMultipliersByType;
  const inclusiveSize = new Float64Array(n);
  for (let v = 0; v < n; v++) inclusiveSize[v] = multipliers ? selfSize[v] * multipliers[nodeType[v]] : selfSize[v];
  let unreachableInclusive = 0;
  for (let i = visited - 1; i >= 0; i--) {
    const v = visitOrder[i];
    const p = parent[v];
    if (p === PERFVIEW_UNREACHABLE) unreachableInclusive += inclusiveSize[v];
    else if (p !== NONE) inclusiveSize[p] += inclusiveSize[v];
  }
  const typeInclusive = typeInclusiveOf(g, parent, visitOrder, visited, inclusiveSize);
  progress('perfview-inclusive', n, n);
  return { label: PERFVIEW_INCLUSIVE_LABEL, parent, inclusiveSize, typeInclusive, unreachableInclusive, orphanRootCount };
}

/**
 * PerfView's AddOrphansToQueue: every node still without a parent that no other parentless node
 * reaches (by MarkDecendentsIgnoringCycles, which never marks the node it starts from, so a cycle
 * keeps its first-scanned member) is enqueued with its type's priority. Same scan order, same
 * marks, iterative (PerfView's explicit-stack version).
 */
function enqueueOrphans(g: HeapGraph, parent: Uint32Array, typePriority: Float32Array, queue: PerfViewQueue): number {
  const n = g.nodeCount;
  const { firstEdge, edgeTarget, nodeType } = g;
  let stack = new Uint32Array(1024);
  for (let entry = 0; entry < n; entry++) {
    if (parent[entry] !== NONE) continue;
    let sp = 0;
    stack[sp++] = entry;
    while (sp > 0) {
      const v = stack[sp - 1];
      const mark = parent[v];
      if (mark === VISITING || mark === VISITED) {
        parent[v] = VISITED;
        sp--;
        continue;
      }
      parent[v] = VISITING;
      for (let e = firstEdge[v], end = firstEdge[v + 1]; e < end; e++) {
        const c = edgeTarget[e];
        if (parent[c] !== NONE) continue;
        if (sp === stack.length) {
          const grown = new Uint32Array(2 * sp);
          grown.set(stack);
          stack = grown;
        }
        stack[sp++] = c;
      }
    }
    parent[entry] = NONE;
  }
  let roots = 0;
  for (let v = 0; v < n; v++) {
    const p = parent[v];
    if (p === NONE) {
      if (v === g.rootIndex) continue;
      queue.enqueue(v, typePriority[nodeType[v]]);
      parent[v] = PERFVIEW_UNREACHABLE;
      roots++;
    } else if (p === VISITED) {
      parent[v] = NONE;
    }
  }
  return roots;
}

/** "By Name" inclusive: walk the spanning tree keeping per-type open counts (no double counting). */
function typeInclusiveOf(g: HeapGraph, parent: Uint32Array, visitOrder: Uint32Array, visited: number, inclusive: Float64Array): Float64Array {
  const n = g.nodeCount;
  const nodeType = g.nodeType;
  const firstChild = new Uint32Array(n + 2); // slot n: the "[not reachable from roots]" frame
  const slot = (p: number): number => (p === PERFVIEW_UNREACHABLE ? n : p);
  for (let i = 0; i < visited; i++) {
    const p = parent[visitOrder[i]];
    if (p !== NONE) firstChild[slot(p)]++;
  }
  let sum = 0;
  for (let p = 0; p <= n; p++) {
    sum += firstChild[p];
    firstChild[p] = sum;
  }
  firstChild[n + 1] = sum;
  const child = new Uint32Array(sum);
  for (let i = visited - 1; i >= 0; i--) {
    const v = visitOrder[i];
    const p = parent[v];
    if (p !== NONE) child[--firstChild[slot(p)]] = v;
  }
  const typeInclusive = new Float64Array(g.types.count);
  const open = new Int32Array(g.types.count);
  let stackNode = new Uint32Array(1024);
  let stackCursor = new Uint32Array(1024);
  const tops = [g.rootIndex, ...child.subarray(firstChild[n], firstChild[n + 1])];
  for (const top of tops) {
    let sp = 0;
    let v = top;
    for (;;) {
      const t = nodeType[v];
      if (open[t]++ === 0) typeInclusive[t] += inclusive[v];
      if (sp === stackNode.length) {
        const a = new Uint32Array(2 * sp);
        a.set(stackNode);
        stackNode = a;
        const b = new Uint32Array(2 * sp);
        b.set(stackCursor);
        stackCursor = b;
      }
      stackNode[sp] = v;
      stackCursor[sp] = firstChild[v];
      sp++;
      let next = -1;
      while (sp > 0) {
        const u = stackNode[sp - 1];
        const c = stackCursor[sp - 1];
        if (c < firstChild[u + 1]) {
          stackCursor[sp - 1] = c + 1;
          next = child[c];
          break;
        }
        open[nodeType[u]]--;
        sp--;
      }
      if (next < 0) break;
      v = next;
    }
  }
  return typeInclusive;
}

/**
 * PerfView's PriorityQueue (graph.cs), same layout and comparisons so ties break identically:
 * parent of i is i/2 and children of i are 2i and 2i+1 (so slot 0 has the single child 1), keys
 * are float32, larger first.
 */
class PerfViewQueue {
  count = 0;
  private node = new Uint32Array(1024);
  private key = new Float32Array(1024);

  enqueue(item: number, priority: number): void {
    let idx = this.count;
    if (idx >= this.node.length) {
      const node = new Uint32Array(2 * idx);
      node.set(this.node);
      this.node = node;
      const key = new Float32Array(2 * idx);
      key.set(this.key);
      this.key = key;
    }
    const { node, key } = this;
    node[idx] = item;
    key[idx] = priority;
    this.count = idx + 1;
    for (;;) {
      const p = idx >>> 1;
      if (key[p] >= key[idx]) break;
      this.swap(idx, p);
      if (p === 0) break;
      idx = p;
    }
  }

  dequeue(): number {
    const { node, key } = this;
    const ret = node[0];
    const count = --this.count;
    node[0] = node[count];
    key[0] = key[count];
    let idx = 0;
    for (;;) {
      let largest = idx;
      let c = idx * 2;
      if (c < count && key[c] > key[largest]) largest = c;
      c++;
      if (c < count && key[c] > key[largest]) largest = c;
      if (largest === idx) break;
      this.swap(idx, largest);
      idx = largest;
    }
    return ret;
  }

  private swap(a: number, b: number): void {
    const { node, key } = this;
    const n = node[a];
    node[a] = node[b];
    node[b] = n;
    const k = key[a];
    key[a] = key[b];
    key[b] = k;
  }
}

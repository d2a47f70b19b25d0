import type { CancellationToken } from '../../util/cancellation.js';

/**
 * Dependent handles (ConditionalWeakTable entries) as references: the runtime keeps a handle's
 * value alive only while its key is alive, which is exactly what a reference key → value says.
 * dotnet-gcdump makes every value a root instead ([Dependent Handles]), so a value looks alive
 * whatever happens to its key and is never part of the key's retained size.
 *
 * The references are appended to the keys' rows of the finished CSR columns, in place: the
 * caller leaves room for one more reference per handle at the end of the edge column, and the
 * rows from the first key on move up once (one copyWithin per key, one pass over firstEdge from
 * the first key's row). Handles are few (one per ConditionalWeakTable entry), so the sort and
 * the per-handle arrays cost nothing next to the heap; the move is at most one pass over the
 * references.
 */
export interface DependentReferences {
  /** Key node of each reference, ascending (the handles' arrival order within a key). */
  keys: Uint32Array;
  /** Value node of each reference. */
  values: Uint32Array;
  /** Values whose key is not an object of the graph: they stay roots, as in dotnet-gcdump. */
  orphans: number[];
}

/**
 * `pairs` holds key pid, value pid, …; `keyNode(pid)` is the key's node when it is an object of
 * the graph, else -1; `valueNode(pid)` the value's node.
 */
export function resolveDependentPairs(pairs: readonly number[], keyNode: (pid: number) => number, valueNode: (pid: number) => number): DependentReferences {
  const order: number[] = [];
  const keyOf: number[] = [];
  const orphans: number[] = [];
  for (let i = 0; i < pairs.length; i += 2) {
    const k = keyNode(pairs[i]);
    const v = valueNode(pairs[i + 1]);
    if (v < 0) continue; // cannot happen: every value's address is a node
    if (k < 0) orphans.push(v);
    else {
      order.push(order.length);
      keyOf.push(k);
      keyOf.push(v);
    }
  }
  order.sort((a, b) => keyOf[2 * a] - keyOf[2 * b] || a - b);
  const keys = new Uint32Array(order.length);
  const values = new Uint32Array(order.length);
  for (let i = 0; i < order.length; i++) {
    keys[i] = keyOf[2 * order[i]];
    values[i] = keyOf[2 * order[i] + 1];
  }
  return { keys, values, orphans };
}

/**
 * Append `values[i]` to the row of `keys[i]` in the CSR columns `firstEdge` (nodeCount + 1
 * entries) and `edgeTarget` (`edgeCount` used, room for keys.length more). Returns the new
 * reference count.
 */
export function insertDependentReferences(firstEdge: Uint32Array, edgeTarget: Uint32Array, nodeCount: number, edgeCount: number, refs: DependentReferences, token: CancellationToken): number {
  const { keys, values } = refs;
  const m = keys.length;
  if (m === 0) return edgeCount;
  if (edgeTarget.length < edgeCount + m) throw new RangeError(`no room for ${m} dependent-handle references`);
  // From the last key down: the rows after key k move up by the references of keys ≤ k.
  let shift = m;
  let segmentEnd = edgeCount; // old position where the rows already moved begin
  let rowEnd = nodeCount; // rows key+1 … rowEnd have had their start moved
  for (let i = m - 1; i >= 0; ) {
    const key = keys[i];
    let j = i;
    while (j > 0 && keys[j - 1] === key) j--;
    const from = firstEdge[key + 1]; // old end of the key's row
    edgeTarget.copyWithin(from + shift, from, segmentEnd);
    for (let n = rowEnd; n > key; n--) {
      if ((n & 0xfffff) === 0) token.throwIfCancelled();
      firstEdge[n] += shift;
    }
    shift -= i - j + 1;
    for (let q = j; q <= i; q++) edgeTarget[from + shift + (q - j)] = values[q];
    segmentEnd = from;
    rowEnd = key;
    i = j - 1;
  }
  return edgeCount + m;
}

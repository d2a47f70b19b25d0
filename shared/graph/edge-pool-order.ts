import type { CancellationToken } from '../util/cancellation.js';

/**
 * Puts an edge pool written in description order into node order (the CSR edge column), for
 * HeapGraphBuilder.finish when nodes were not described in ordinal order.
 *
 * Inputs: `start[i]` / `count[i]`, where node i's references are in the pool; nodes with count 0
 * may have any start. Output: `start[0 … n]` overwritten with the CSR offsets (firstEdge), and the
 * pool's first `start[n]` entries in node order. A duplicate description's older references are
 * dead space, covered by no node, and are dropped.
 *
 * In place, when the nodes fall into few *segments* (runs of consecutive nodes, ignoring those
 * without references, whose references follow each other in the pool): a file written in index
 * order except a few records (the .gcdump root's record last) has a handful of segments. The
 * heaviest chain of segments already in node order along the pool (a weighted
 * longest increasing subsequence) is shifted into place with memmoves; only the others' references
 * are copied aside (`stash`) and written back into the gaps. The extra memory is the stash plus
 * ~45 bytes per segment, against a second edge column (4 bytes per reference) and offsets (4 per
 * node) for a copy; for the root-last file the stash is the root's references.
 *
 * Past MAX_SEGMENT_SHARE segments per node (a shuffled file, or dotnet-gcdump's own order, where
 * about half the records are out of place), the per-segment arrays would cost more than they
 * save: `orderByCopy` then copies each node's run into a new column.
 */
const MAX_SEGMENT_SHARE = 1 / 16;
/** At most 2^21 segments in any case (heaviestChain's sort key). */
const MAX_SEGMENTS = 2 ** 21;

/** The number of segments (see above) of nodes 0 … n − 1, or `limit` once there are that many
 * (a shuffled pool is found out early, not after a pass over every node). */
export function countSegments(start: Uint32Array, count: Uint32Array, n: number, limit = Infinity): number {
  let segments = 0;
  let end = -1;
  for (let i = 0; i < n; i++) {
    const c = count[i];
    if (c === 0) continue;
    if (start[i] !== end && ++segments >= limit) return limit;
    end = start[i] + c;
  }
  return segments;
}

/** The most segments orderInPlace takes for n nodes. */
export function inPlaceLimit(n: number): number {
  return Math.min(MAX_SEGMENTS, Math.max(1024, Math.floor(n * MAX_SEGMENT_SHARE)));
}

/**
 * The in-place order (see above) for a pool with `segments` segments (countSegments); `start` needs
 * n + 1 entries. Returns the number of references in node order.
 */
export function orderInPlace(pool: Uint32Array, start: Uint32Array, count: Uint32Array, n: number, segments: number, token: CancellationToken): number {
  // Each segment's first node, pool start and length, in node order (= final order).
  const segNode = new Uint32Array(segments);
  const segPool = new Uint32Array(segments);
  const segLength = new Uint32Array(segments);
  let s = -1;
  let end = -1;
  for (let i = 0; i < n; i++) {
    const c = count[i];
    if (c === 0) continue;
    if (start[i] !== end) {
      s++;
      segNode[s] = i;
      segPool[s] = start[i];
    }
    segLength[s] += c;
    end = start[i] + c;
  }
  const sum = writeOffsets(count, n, start, token); // over the pool starts, read above for the last time

  const kept = heaviestChain(segPool, segLength, segments);
  let stashLength = 0;
  for (let k = 0; k < segments; k++) if (kept[k] === 0) stashLength += segLength[k];
  const stash = new Uint32Array(stashLength);
  let at = 0;
  for (let k = 0; k < segments; k++) {
    if (kept[k] !== 0) continue;
    stash.set(pool.subarray(segPool[k], segPool[k] + segLength[k]), at);
    at += segLength[k];
  }
  token.throwIfCancelled();
  // The kept segments are in node order along the pool, and so are their places: one that moves
  // right cannot land on a kept one to its right not yet moved (that one's place is further right,
  // or it moves left from further right still), and symmetrically; the others are in the stash.
  for (let k = segments - 1; k >= 0; k--) {
    const to = start[segNode[k]];
    if (kept[k] !== 0 && to > segPool[k]) pool.copyWithin(to, segPool[k], segPool[k] + segLength[k]);
  }
  for (let k = 0; k < segments; k++) {
    const to = start[segNode[k]];
    if (kept[k] !== 0 && to < segPool[k]) pool.copyWithin(to, segPool[k], segPool[k] + segLength[k]);
  }
  at = 0;
  for (let k = 0; k < segments; k++) {
    if (kept[k] !== 0) continue;
    pool.set(stash.subarray(at, at + segLength[k]), start[segNode[k]]);
    at += segLength[k];
  }
  return sum;
}

/**
 * 1 for the segments of the heaviest chain (by references) that is in node order along the pool,
 * i.e. whose pool starts increase with the segment index: a weighted longest increasing
 * subsequence, the segments taken in pool order, with a Fenwick tree of prefix maxima over the
 * segment index. O(S log S).
 */
export function heaviestChain(segPool: Uint32Array, segLength: Uint32Array, segments: number): Uint8Array {
  // pool start × 2^21 + segment index is exact in a double (MAX_SEGMENTS), and a Float64Array
  // sorts natively, without a comparator call per comparison
  const byPool = new Float64Array(segments);
  for (let k = 0; k < segments; k++) byPool[k] = segPool[k] * MAX_SEGMENTS + k;
  byPool.sort();
  const best = new Float64Array(segments); // heaviest chain ending at segment k
  const previous = new Int32Array(segments);
  const treeWeight = new Float64Array(segments + 1);
  const treeAt = new Int32Array(segments + 1).fill(-1);
  let top = -1;
  for (let j = 0; j < segments; j++) {
    const k = byPool[j] % MAX_SEGMENTS;
    let w = 0;
    let from = -1;
    for (let i = k; i > 0; i -= i & -i) {
      if (treeWeight[i] > w) {
        w = treeWeight[i];
        from = treeAt[i];
      }
    }
    best[k] = w + segLength[k];
    previous[k] = from;
    for (let i = k + 1; i <= segments; i += i & -i) {
      if (best[k] > treeWeight[i]) {
        treeWeight[i] = best[k];
        treeAt[i] = k;
      }
    }
    if (top < 0 || best[k] > best[top]) top = k;
  }
  const kept = new Uint8Array(segments);
  for (let k = top; k >= 0; k = previous[k]) kept[k] = 1;
  return kept;
}

/** Each node's references copied into a new column in node order; `firstEdge` gets the offsets. */
export function orderByCopy(pool: Uint32Array, start: Uint32Array, count: Uint32Array, n: number, firstEdge: Uint32Array, edgeTarget: (length: number) => Uint32Array, token: CancellationToken): Uint32Array {
  const sum = writeOffsets(count, n, firstEdge, token);
  // A plain loop, not set(subarray()): a subarray object per node costs ~1 s per 10M nodes.
  const target = edgeTarget(sum);
  for (let i = 0; i < n; i++) {
    if ((i & 0xffff) === 0) token.throwIfCancelled();
    let s = start[i];
    const end = s + count[i];
    let d = firstEdge[i];
    while (s < end) target[d++] = pool[s++];
  }
  return target;
}

/** The CSR offsets of `count` into `offsets[0 … n]`; returns their total. */
function writeOffsets(count: Uint32Array, n: number, offsets: Uint32Array, token: CancellationToken): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    if ((i & 0xffff) === 0) token.throwIfCancelled();
    offsets[i] = sum;
    sum += count[i];
  }
  offsets[n] = sum;
  return sum;
}

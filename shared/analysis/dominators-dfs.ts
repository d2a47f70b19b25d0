import { AppError } from '../errors.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { MAX_TYPED_ARRAY_LENGTH } from '../graph/graph-limits.js';
import { NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { countsOutEdges } from './counted-edges.js';

/**
 * The DFS that numbers the flowgraph for dominators.ts, and the later-predecessor lists it
 * produces, grouped for the semidominator pass.
 *
 * Everything here is bound by memory latency at 10M objects (the DFS is a pointer chase through
 * arrays larger than the CPU cache), so the layouts below were chosen by measurement on the
 * synthetic 10M-object benchmark heap; the numbers are CPU time on the 2-core reference machine.
 */

/** Set in a node record's edge word when the node's references do not count (weak handles). */
const WEAK = 0x80000000;
/** Later predecessors are bucketed by `u >>> BUCKET_SHIFT` (8,192 vertices per bucket). */
const BUCKET_SHIFT = 13;
/** Bucket storage comes in chunks of 2^CHUNK_SHIFT words (128 pairs). */
const CHUNK_SHIFT = 8;
const CHUNK = 1 << CHUNK_SHIFT;

/**
 * Chunks of pair storage for `edges` references: every later predecessor is one pair (2 words),
 * plus one partly filled chunk per bucket. The storage is one Uint32Array, so its words must stay
 * within V8's longest typed array (2^32): that refuses a little under 2^31 references with a
 * coded error before allocating (graph-limits.ts), where `new Uint32Array` would throw a RangeError.
 */
function pairChunks(edges: number, buckets: number): number {
  const chunks = Math.ceil((2 * edges) / CHUNK) + buckets;
  if (chunks * CHUNK > MAX_TYPED_ARRAY_LENGTH) {
    throw new AppError('format/too-large', `dominators: ${edges} references need more than 2^32 words of pair storage`, { edges });
  }
  return chunks;
}

export interface DfsNumbering {
  /** Number of vertices (reachable nodes); preorder numbers are 1..count. */
  count: number;
  /** Total later-predecessor pairs. */
  pairCount: number;
  /**
   * The pairs (u, v), v a later predecessor of u, as two words each in chunks; each bucket's
   * chunks form a list, newest first: `bucketEnd[b]` is one past its last word, `chunkPrev[c]`
   * the chunk before c (NONE at the first).
   */
  pairs: Uint32Array;
  bucketEnd: Uint32Array;
  chunkPrev: Uint32Array;
}

/**
 * Iterative DFS from the root over counted references. Numbers the nodes in preorder (from 1),
 * fills vertex (preorder → node), parent and the initial semi, and classifies every counted
 * reference v → u it scans, once, while u's number is at hand anyway:
 *   - tree edge (u new): semi[u] starts at v, its parent;
 *   - forward edge (u > v, a descendant): semi[u] = min(semi[u], v), as EVAL(v) = v then;
 *   - cross or back edge (u < v): v is a "later" predecessor of u that needs EVAL; the pair
 *     (u, v) goes to u's bucket.
 * So the flowgraph is exactly what this DFS walks: references out of weak or unreachable nodes
 * are never scanned, and no other pass decides which references count.
 *
 * `rec` (2 words per node + 2, scratch) holds one record per node: [preorder number (0 = not
 * seen), first edge | WEAK]; a node's edge range ends where the next record's begins, so
 * discovering a node reads one 8-byte record and usually its neighbour on the same cache line
 * (16-byte records with the end stored measured 5–10% slower, separate columns 40% slower).
 * The stack keeps each frame's edge cursor and end, so resuming a frame touches no node data.
 * When a node is entered, the records of all its targets are loaded at once (the loads overlap
 * instead of one dependent miss per target as the scan reaches it: about 10% off).
 *
 * Later predecessors go straight into coarse buckets by u instead of one list sorted afterwards:
 * the ~1,200 open chunk ends stay in cache, and `groupLaterPredecessors` then sorts each bucket
 * inside cache (a global counting sort of 12.6M pairs cost 0.55 s; this costs 0.2 s plus a
 * little in the DFS). Memory: 8 bytes per pair, plus up to one partly filled 1 KiB chunk per
 * bucket; the buffer is sized for every counted edge, but pages never written are never
 * committed. With `collectPairs` false no pair is stored (nor its memory allocated): the caller
 * finds the later predecessors again from the finished numbering (dominators-rescan.ts), and
 * `rec` keeps every node's preorder number in its first word for that.
 */
export function numberByDfs(
  g: HeapGraph,
  rec: Uint32Array,
  vertex: Uint32Array,
  parent: Uint32Array,
  semi: Uint32Array,
  token: CancellationToken,
  progress: ProgressSink,
  work: number,
  collectPairs = true,
): DfsNumbering {
  const n = g.nodeCount;
  const firstEdge = g.firstEdge;
  const flags = g.nodeFlags;
  const edgeTarget = g.edgeTarget;
  // 2^31 references would be an 8 GB edge column; no reader produces one, but never misread it
  if (g.edgeCount >= WEAK) throw new AppError('format/too-large', 'dominators: 2^31 or more references', { edges: g.edgeCount });
  fillCompactRecords(rec, n, firstEdge, flags, token);

  const buckets = (n >>> BUCKET_SHIFT) + 2;
  const maxChunks = pairChunks(g.edgeCount, buckets);
  // without collectPairs the later predecessors are found again afterwards (dominators-rescan.ts)
  const pairs = new Uint32Array(collectPairs ? maxChunks * CHUNK : 0);
  const bucketEnd = new Uint32Array(collectPairs ? buckets : 0);
  const chunkPrev = new Uint32Array(collectPairs ? maxChunks : 0);
  let chunks = 0;
  let pairCount = 0;
  // Frames of [vertex, edge cursor, edge end]; grows on demand (a 10M-long chain needs 120 MB).
  let stack = new Uint32Array(3 * 4096);
  let count = 1;
  let sink = 0;
  const root = g.rootIndex;
  rec[2 * root] = 1;
  vertex[1] = root;
  semi[1] = 1;
  let sp = 0;
  stack[0] = 1;
  stack[2] = rec[2 * root + 3] & ~WEAK;
  stack[1] = rec[2 * root + 1] >= WEAK ? stack[2] : rec[2 * root + 1];
  while (sp >= 0) {
    const v = stack[sp];
    const end = stack[sp + 2];
    let k = stack[sp + 1];
    let w = 0;
    let first = 0;
    let last = 0;
    while (k < end) {
      const t = edgeTarget[k++];
      const u = rec[2 * t];
      if (u === 0) {
        w = ++count;
        rec[2 * t] = w;
        vertex[w] = t;
        parent[w] = v;
        semi[w] = v;
        if ((w & 0xffff) === 0) {
          token.throwIfCancelled();
          progress('dominators', w, work);
        }
        last = rec[2 * t + 3] & ~WEAK;
        first = rec[2 * t + 1] >= WEAK ? last : rec[2 * t + 1];
        if (first < last) break;
        w = 0; // nothing to scan (a leaf, or weak): numbered, no frame
        continue;
      }
      if (u > v) {
        if (v < semi[u]) semi[u] = v;
      } else if (u < v && collectPairs) {
        const b = u >>> BUCKET_SHIFT;
        let at = bucketEnd[b];
        if ((at & (CHUNK - 1)) === 0) {
          // the bucket's chunk is full (or it has none): open the next free chunk
          chunkPrev[chunks] = at === 0 ? NONE : (at >>> CHUNK_SHIFT) - 1;
          at = chunks++ * CHUNK; // not <<: past 2^23 chunks a shift goes negative
        }
        pairs[at] = u;
        pairs[at + 1] = v;
        bucketEnd[b] = at + 2;
        pairCount++;
      }
    }
    if (w === 0) {
      sp -= 3;
      continue;
    }
    stack[sp + 1] = k;
    sp += 3;
    if (sp === stack.length) {
      const grown = new Uint32Array(2 * stack.length);
      grown.set(stack);
      stack = grown;
    }
    stack[sp] = w;
    stack[sp + 1] = first;
    stack[sp + 2] = last;
    for (let q = first; q < last; q++) sink ^= rec[2 * edgeTarget[q]];
  }
  semi[0] = sink; // semi[0] is no vertex; the store only keeps the early loads alive
  return { count, pairCount, pairs, bucketEnd, chunkPrev };
}

/**
 * numberByDfs with 4-word records [preorder number, first edge | WEAK, first target, second
 * target]: entering a node with at most two references reads no edge row, so the DFS's chain of
 * dependent misses loses a link for most nodes of a sparse heap. `rec` holds 4 words per node + 4.
 * Chosen when references are at most twice the nodes (computeDominators): on the 5M-object CF
 * benchmark log (1.67 per node) the DFS took 1.10–1.49 s instead of 1.65–1.87 s; on the 10M
 * .gcdump benchmark heap (2.5 per node, targets uniformly random) the records' doubled size cost
 * more than the rows saved (2.5–3.2 s against 2.1–2.9 s). The classification of each scanned
 * reference is numberByDfs's, line for line: a copy, kept in step by hand, because both loops are
 * hand-inlined (no call per scanned reference in the hottest loop of the analysis); the tests run
 * every oracle comparison on both layouts and compare the two numberings.
 */
export function numberByDfsInline(
  g: HeapGraph,
  rec: Uint32Array,
  vertex: Uint32Array,
  parent: Uint32Array,
  semi: Uint32Array,
  token: CancellationToken,
  progress: ProgressSink,
  work: number,
  collectPairs = true,
): DfsNumbering {
  const n = g.nodeCount;
  const firstEdge = g.firstEdge;
  const flags = g.nodeFlags;
  const edgeTarget = g.edgeTarget;
  if (g.edgeCount >= WEAK) throw new AppError('format/too-large', 'dominators: 2^31 or more references', { edges: g.edgeCount });
  fillInlineRecords(rec, n, firstEdge, edgeTarget, flags, token);

  const buckets = (n >>> BUCKET_SHIFT) + 2;
  const maxChunks = pairChunks(g.edgeCount, buckets);
  // without collectPairs the later predecessors are found again afterwards (dominators-rescan.ts)
  const pairs = new Uint32Array(collectPairs ? maxChunks * CHUNK : 0);
  const bucketEnd = new Uint32Array(collectPairs ? buckets : 0);
  const chunkPrev = new Uint32Array(collectPairs ? maxChunks : 0);
  let chunks = 0;
  let pairCount = 0;
  // Frames of [vertex, edge cursor, edge end, node].
  let stack = new Uint32Array(4 * 4096);
  let count = 1;
  let sink = 0;
  const root = g.rootIndex;
  rec[4 * root] = 1;
  vertex[1] = root;
  semi[1] = 1;
  let sp = 0;
  stack[0] = 1;
  stack[2] = rec[4 * root + 5] & ~WEAK;
  stack[1] = rec[4 * root + 1] >= WEAK ? stack[2] : rec[4 * root + 1];
  stack[3] = root;
  while (sp >= 0) {
    const v = stack[sp];
    const end = stack[sp + 2];
    let k = stack[sp + 1];
    const at = 4 * stack[sp + 3];
    const row = rec[at + 1] & ~WEAK;
    let w = 0;
    let first = 0;
    let last = 0;
    let t = 0;
    while (k < end) {
      const i = k - row;
      t = i < 2 ? rec[at + 2 + i] : edgeTarget[k];
      k++;
      const u = rec[4 * t];
      if (u === 0) {
        w = ++count;
        rec[4 * t] = w;
        vertex[w] = t;
        parent[w] = v;
        semi[w] = v;
        if ((w & 0xffff) === 0) {
          token.throwIfCancelled();
          progress('dominators', w, work);
        }
        last = rec[4 * t + 5] & ~WEAK;
        first = rec[4 * t + 1] >= WEAK ? last : rec[4 * t + 1];
        if (first < last) break;
        w = 0; // nothing to scan (a leaf, or weak): numbered, no frame
        continue;
      }
      if (u > v) {
        if (v < semi[u]) semi[u] = v;
      } else if (u < v && collectPairs) {
        const b = u >>> BUCKET_SHIFT;
        let end2 = bucketEnd[b];
        if ((end2 & (CHUNK - 1)) === 0) {
          chunkPrev[chunks] = end2 === 0 ? NONE : (end2 >>> CHUNK_SHIFT) - 1;
          end2 = chunks++ * CHUNK;
        }
        pairs[end2] = u;
        pairs[end2 + 1] = v;
        bucketEnd[b] = end2 + 2;
        pairCount++;
      }
    }
    if (w === 0) {
      sp -= 4;
      continue;
    }
    stack[sp + 1] = k;
    sp += 4;
    if (sp === stack.length) {
      const grown = new Uint32Array(2 * stack.length);
      grown.set(stack);
      stack = grown;
    }
    stack[sp] = w;
    stack[sp + 1] = first;
    stack[sp + 2] = last;
    stack[sp + 3] = t;
    // load the targets' records now, so their misses overlap (see numberByDfs)
    sink ^= rec[4 * rec[4 * t + 2]];
    if (last - first > 1) sink ^= rec[4 * rec[4 * t + 3]];
    for (let q = first + 2; q < last; q++) sink ^= rec[4 * edgeTarget[q]];
  }
  semi[0] = sink;
  return { count, pairCount, pairs, bucketEnd, chunkPrev };
}

// The record fills are functions of their own so the DFS loop is compiled with its own type
// feedback on a cold worker (see sorted-id-resolution.ts on deoptimization at unrun loops).
function fillCompactRecords(rec: Uint32Array, n: number, firstEdge: Uint32Array, flags: Uint8Array, token: CancellationToken): void {
  for (let v = 0; v < n; v++) {
    if ((v & 0xffff) === 0) token.throwIfCancelled();
    rec[2 * v + 1] = countsOutEdges(flags, v) ? firstEdge[v] : firstEdge[v] | WEAK;
  }
  rec[2 * n + 1] = firstEdge[n];
}

function fillInlineRecords(rec: Uint32Array, n: number, firstEdge: Uint32Array, edgeTarget: Uint32Array, flags: Uint8Array, token: CancellationToken): void {
  for (let v = 0; v < n; v++) {
    if ((v & 0xffff) === 0) token.throwIfCancelled();
    const s = firstEdge[v];
    const at = 4 * v;
    if (!countsOutEdges(flags, v)) {
      rec[at + 1] = s | WEAK;
      continue;
    }
    const e = firstEdge[v + 1];
    rec[at + 1] = s;
    if (s < e) rec[at + 2] = edgeTarget[s];
    if (s + 1 < e) rec[at + 3] = edgeTarget[s + 1];
  }
  rec[4 * n + 1] = firstEdge[n];
}

/**
 * Sorts the later-predecessor pairs by u into `pred`, in runs the semidominator pass reads in
 * descending u: pred[start(u) .. start(u + 1)). Bucket by bucket (ascending u): count per u,
 * prefix sums, place; a bucket's counts (32 KiB) and output (~40 KiB) stay in cache. u's start
 * is written to `forest[stride·u + 1]`, a slot the pass reads once before it reuses it. The
 * order inside a run does not matter (semi is a minimum). Memory: `pred` 4 bytes per pair.
 */
export function groupLaterPredecessors(dfs: DfsNumbering, forest: Uint32Array, stride: number, token: CancellationToken): Uint32Array {
  const { pairs, bucketEnd, chunkPrev, count: reachableCount } = dfs;
  const pred = new Uint32Array(dfs.pairCount);
  const mask = (1 << BUCKET_SHIFT) - 1;
  const local = new Uint32Array(1 << BUCKET_SHIFT);
  let base = 0;
  for (let b = 0; b <= reachableCount >>> BUCKET_SHIFT; b++) {
    if ((b & 0x3f) === 0) token.throwIfCancelled();
    const end = bucketEnd[b];
    if (end !== 0) {
      for (let c = (end - 1) >>> CHUNK_SHIFT, stop = end; ; stop = (c + 1) * CHUNK) {
        for (let p = c * CHUNK; p < stop; p += 2) local[pairs[p] & mask]++;
        c = chunkPrev[c];
        if (c === NONE) break;
      }
    }
    const lo = b << BUCKET_SHIFT;
    const hi = Math.min(lo + mask, reachableCount);
    for (let u = lo; u <= hi; u++) {
      const k = local[u & mask];
      forest[stride * u + 1] = base; // u = 0 is no vertex: its slot is never read
      local[u & mask] = base;
      base += k;
    }
    if (end !== 0) {
      for (let c = (end - 1) >>> CHUNK_SHIFT, stop = end; ; stop = (c + 1) * CHUNK) {
        for (let p = c * CHUNK; p < stop; p += 2) pred[local[pairs[p] & mask]++] = pairs[p + 1];
        c = chunkPrev[c];
        if (c === NONE) break;
      }
    }
    local.fill(0);
  }
  return pred;
}

import type { HeapGraph } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import type { ProgressSink } from '../util/progress.js';
import { NO_PROGRESS } from '../util/progress.js';

/**
 * The reverse of the reference graph, in CSR form: who points at `n` is
 * `retainerNode[firstRetainer[n] .. firstRetainer[n + 1])`.
 *
 * Every reference is kept, weak ones and those from unreachable objects included (the UI shows
 * them as "referenced by"); passes that only want live references filter with
 * `countsOutEdges` (counted-edges.ts). A node referenced twice by the same object appears twice.
 * Within a node's run the retainers are in ascending ordinal order (a property of the counting
 * sort), which makes the output deterministic.
 */
export interface Retainers {
  /** Length nodeCount + 1. */
  readonly firstRetainer: Uint32Array;
  /** Length edgeCount: source ordinals. */
  readonly retainerNode: Uint32Array;
}

/**
 * buildRetainers' arrays allocated and touched ahead of time (the app's other analysis worker
 * does it while the parse finishes, as the dominance worker does: see dominators.ts
 * DominatorScratch). Single use (`firstRetainer` must be zero); ignored when too small.
 */
export interface RetainersMemory {
  readonly firstRetainer: Uint32Array;
  readonly retainerNode: Uint32Array;
  readonly pairTarget: Uint32Array;
  readonly pairSource: Uint32Array;
}

/** For a graph of about `nodes` nodes and `edges` references. */
export function prepareRetainersMemory(nodes: number, edges: number, roundPairs: number = ROUND_PAIRS): RetainersMemory {
  const pairs = Math.min(edges, roundPairs);
  return {
    firstRetainer: new Uint32Array(nodes + 1).fill(0),
    retainerNode: new Uint32Array(edges).fill(0),
    pairTarget: new Uint32Array(pairs).fill(0),
    pairSource: new Uint32Array(pairs).fill(0),
  };
}

/** Targets are grouped in at most 2^BUCKET_BITS buckets of consecutive ordinals. */
const BUCKET_BITS = 10;
/** (target, source) pairs held at once: 16M pairs = 128 MB; more references are done in rounds. */
export const ROUND_PAIRS = 1 << 24;

/**
 * A counting sort of the references by target, done in cache-sized pieces. The plain version
 * (count in-degrees, then place every source at its target's cursor) makes two random
 * read-modify-writes per reference in arrays far larger than the cache: ~0.6–0.8 s at 5M objects,
 * and it slowed the dominator worker running beside it (analysis-runner.ts) by as much again,
 * both fighting for the memory bus. Here the references are first scattered, in source order,
 * into ≤ 1,024 buckets of consecutive targets (sequential writes into 1,024 streams); then each
 * bucket, whose targets' counters and output run fit in cache, is counted and placed on its own.
 * Runs come out in ascending source order (placed from the end of each run, walking the bucket's
 * pairs backwards; each cursor ends on its run's start, so no second N-sized array).
 *
 * Memory: the output, 4(N + 1) + 4E bytes, plus 8 bytes per reference of scratch, at most
 * `roundPairs` pairs at a time. Up to twice that many references are done in rounds of target
 * buckets, each of which re-reads every reference (2–3 rounds); more in rounds of consecutive
 * sources (bySourceRounds below), which read every reference three times however many rounds
 * there are. (Target-bucket rounds alone made this pass quadratic in the heap's size: 5 rounds at
 * 30M objects, 16 at 100M; with 2 rounds they are the cheaper of the two: measured at 10M and 30M
 * objects in test/perf/analysis-scaling.bench.ts.) `stats.edgePasses` counts the passes over the
 * reference column (tests).
 */
export function buildRetainers(
  g: HeapGraph,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
  roundPairs: number = ROUND_PAIRS,
  prepared: RetainersMemory | null = null,
  stats: { edgePasses: number } | null = null,
): Retainers {
  const n = g.nodeCount;
  const e = g.edgeCount;
  const firstEdge = g.firstEdge;
  const edgeTarget = g.edgeTarget;
  const ready = prepared !== null && prepared.firstRetainer.length >= n + 1 && prepared.retainerNode.length >= e;
  const firstRetainer = ready ? prepared.firstRetainer.subarray(0, n + 1) : new Uint32Array(n + 1);
  const retainerNode = ready ? prepared.retainerNode.subarray(0, e) : new Uint32Array(e);
  progress('retainers', 0, n);
  token.throwIfCancelled();

  let shift = 0;
  while (n > 0 && (n - 1) >>> shift >= 1 << BUCKET_BITS) shift++;
  const buckets = n === 0 ? 0 : ((n - 1) >>> shift) + 1;
  if (e > 2 * roundPairs) return bySourceRounds(g, firstRetainer, retainerNode, shift, buckets, roundPairs, ready ? prepared : null, token, progress, stats);
  const bucketStart = new Uint32Array(buckets + 1);
  for (let k = 0; k < e; k++) {
    if ((k & 0xfffff) === 0) token.throwIfCancelled();
    bucketStart[(edgeTarget[k] >>> shift) + 1]++;
  }
  let widest = 0;
  for (let b = 0; b < buckets; b++) {
    widest = Math.max(widest, bucketStart[b + 1]);
    bucketStart[b + 1] += bucketStart[b];
  }
  if (stats) stats.edgePasses = 1;
  const capacity = Math.min(e, Math.max(roundPairs, widest));
  const reuse = ready && prepared.pairTarget.length >= capacity;
  const pairTarget = reuse ? prepared.pairTarget : new Uint32Array(capacity);
  const pairSource = reuse ? prepared.pairSource : new Uint32Array(capacity);
  const cursor = new Uint32Array(buckets);

  for (let b0 = 0; b0 < buckets; ) {
    // One round: the buckets [b0, b1) whose pairs fit in the scratch.
    let b1 = b0 + 1;
    while (b1 < buckets && bucketStart[b1 + 1] - bucketStart[b0] <= capacity) b1++;
    const origin = bucketStart[b0];
    for (let b = b0; b < b1; b++) cursor[b] = bucketStart[b] - origin;
    const lo = b0 << shift;
    const hi = Math.min(n, b1 << shift);
    const whole = b0 === 0 && b1 === buckets;
    if (stats) stats.edgePasses++;
    for (let src = 0; src < n; src++) {
      if ((src & 0xffff) === 0) token.throwIfCancelled();
      for (let k = firstEdge[src], end = firstEdge[src + 1]; k < end; k++) {
        const t = edgeTarget[k];
        if (!whole && (t < lo || t >= hi)) continue;
        const at = cursor[t >>> shift]++;
        pairTarget[at] = t;
        pairSource[at] = src;
      }
    }
    for (let b = b0; b < b1; b++) {
      if ((b & 0x3f) === 0) {
        token.throwIfCancelled();
        progress('retainers', Math.min(n, b << shift), n);
      }
      const from = bucketStart[b] - origin;
      const to = bucketStart[b + 1] - origin;
      for (let p = from; p < to; p++) firstRetainer[pairTarget[p]]++;
      // run ends, then sources placed backwards so each run is ascending and its cursor ends on its start
      let sum = bucketStart[b];
      for (let t = b << shift, tEnd = Math.min(n, (b + 1) << shift); t < tEnd; t++) {
        sum += firstRetainer[t];
        firstRetainer[t] = sum;
      }
      for (let p = to - 1; p >= from; p--) retainerNode[--firstRetainer[pairTarget[p]]] = pairSource[p];
    }
    b0 = b1;
  }
  firstRetainer[n] = e;
  progress('retainers', n, n);
  return { firstRetainer, retainerNode };
}

/**
 * buildRetainers for more references than one round holds: rounds of consecutive sources (each
 * at most `roundPairs` references, or one source's), so each round reads only its own slice of
 * the reference column. Pass 1, rounds in order: the round's targets are scattered into its
 * buckets, and each bucket counts its targets' in-degrees (bucket-sized counters, in cache). Then
 * the counts become run ends. Pass 2, rounds in reverse: the (target, source) pairs are scattered
 * again and placed backwards from the run ends, so every run is in ascending source order and
 * each cursor ends on its run's start: the same output as one round. The per-round bucket sizes
 * come from a first pass over the targets. Memory: the scratch of one round, whose size is
 * max(roundPairs, the largest out-degree).
 */
function bySourceRounds(
  g: HeapGraph,
  firstRetainer: Uint32Array,
  retainerNode: Uint32Array,
  shift: number,
  buckets: number,
  roundPairs: number,
  prepared: RetainersMemory | null,
  token: CancellationToken,
  progress: ProgressSink,
  stats: { edgePasses: number } | null,
): Retainers {
  const n = g.nodeCount;
  const e = g.edgeCount;
  const firstEdge = g.firstEdge;
  const edgeTarget = g.edgeTarget;
  // round r covers sources [roundSource[r], roundSource[r + 1])
  const starts: number[] = [0];
  let capacity = 0;
  for (let s0 = 0; s0 < n; ) {
    let s1 = s0 + 1;
    while (s1 < n && firstEdge[s1 + 1] - firstEdge[s0] <= roundPairs) s1++;
    capacity = Math.max(capacity, firstEdge[s1] - firstEdge[s0]);
    starts.push(s1);
    s0 = s1;
  }
  const rounds = starts.length - 1;
  const roundSource = Uint32Array.from(starts);
  // roundBucket[r·(buckets + 1) + b + 1]: the round's pairs in buckets < b + 1 (after the prefix sums)
  const stride = buckets + 1;
  const roundBucket = new Uint32Array(rounds * stride);
  for (let r = 0; r < rounds; r++) {
    token.throwIfCancelled();
    const at = r * stride;
    for (let k = firstEdge[roundSource[r]], end = firstEdge[roundSource[r + 1]]; k < end; k++) roundBucket[at + (edgeTarget[k] >>> shift) + 1]++;
    for (let b = 0; b < buckets; b++) roundBucket[at + b + 1] += roundBucket[at + b];
  }
  if (stats) stats.edgePasses = 1;
  const reuse = prepared !== null && prepared.pairTarget.length >= capacity;
  const pairTarget = reuse ? prepared.pairTarget : new Uint32Array(capacity);
  const pairSource = reuse ? prepared.pairSource : new Uint32Array(capacity);
  const cursor = new Uint32Array(buckets);
  /** Scatter round r's pairs by bucket (sources only when `withSources`). */
  const scatter = (r: number, withSources: boolean) => {
    const at = r * stride;
    for (let b = 0; b < buckets; b++) cursor[b] = roundBucket[at + b];
    for (let src = roundSource[r], end = roundSource[r + 1]; src < end; src++) {
      if ((src & 0xffff) === 0) token.throwIfCancelled();
      for (let k = firstEdge[src], kEnd = firstEdge[src + 1]; k < kEnd; k++) {
        const t = edgeTarget[k];
        const p = cursor[t >>> shift]++;
        pairTarget[p] = t;
        if (withSources) pairSource[p] = src;
      }
    }
  };
  for (let r = 0; r < rounds; r++) {
    progress('retainers', Math.floor(roundSource[r] / 2), n);
    scatter(r, false);
    const total = roundBucket[r * stride + buckets];
    for (let p = 0; p < total; p++) {
      if ((p & 0xfffff) === 0) token.throwIfCancelled();
      firstRetainer[pairTarget[p]]++;
    }
  }
  if (stats) stats.edgePasses++;
  let sum = 0;
  for (let t = 0; t < n; t++) {
    if ((t & 0xfffff) === 0) token.throwIfCancelled();
    sum += firstRetainer[t];
    firstRetainer[t] = sum;
  }
  for (let r = rounds - 1; r >= 0; r--) {
    progress('retainers', Math.floor(n - roundSource[r + 1] / 2), n);
    scatter(r, true);
    for (let p = roundBucket[r * stride + buckets] - 1; p >= 0; p--) {
      if ((p & 0xfffff) === 0) token.throwIfCancelled();
      retainerNode[--firstRetainer[pairTarget[p]]] = pairSource[p];
    }
  }
  if (stats) stats.edgePasses++;
  firstRetainer[n] = e;
  progress('retainers', n, n);
  return { firstRetainer, retainerNode };
}

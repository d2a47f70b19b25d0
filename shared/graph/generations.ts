import { GEN_FROZEN, GEN_UNKNOWN, NODE_PSEUDO, NODE_UNDEFINED } from './heap-graph.js';
import type { HeapSegment } from './metadata.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';

/**
 * What computeGenerations needs to tell a frozen (non-GC heap) object from a node that merely lies
 * outside the GC heap: without it, every address outside the segments is "unknown".
 */
export interface FrozenInputs {
  nodeFlags: Uint8Array;
  nodeType: Uint32Array;
  typeNames: readonly string[];
}

/**
 * Generation of every node from the snapshot's heap segments (PerfView's `GenerationFor`).
 *
 * For an address `a`: find the segment with start ≤ a < end, then test in this order:
 * a < gen4End ⇒ 4 (POH), a < gen3End ⇒ 3 (LOH), a < gen2End ⇒ 2, a < gen1End ⇒ 1,
 * a < gen0End ⇒ 0, else unknown. Address 0 (pseudo-nodes) is always unknown.
 *
 * An address in no segment, given `frozen`: the segments come from the runtime's generation ranges
 * (GCGenerationRange, or a .gcdump's DotNetHeapInfo written from them), which cover every GC
 * segment or region but never a frozen one (the GC walks only read-write segments when it
 * describes its generations). A heap object there is on a frozen segment: GEN_FROZEN. Two kinds
 * of node stay unknown: pseudo and undefined nodes (not objects), and nodes whose type name
 * starts with '[' — nodes a dumper made up for native things, such as PerfView's
 * "[CCW for X]" with the wrapper's native address (no CLR type name starts with '[').
 *
 * Addresses are compared as doubles built from the two 32-bit halves: exact below 2^53, which
 * covers every user-space address on x64 and arm64 (47–52 bits). Segments are sorted once and
 * found by binary search (skipped while addresses stay in the last segment found), so the cost is at most O(N log S), with no BigInt in the loop; the frozen test
 * adds one flag read per node outside the segments and a per-type table of `typeNames.length`
 * bytes.
 */
export function computeGenerations(
  address: BigUint64Array,
  segments: readonly HeapSegment[],
  token: CancellationToken = NEVER_CANCELLED,
  frozen: FrozenInputs | null = null,
  unknown: Uint8Array | null = null,
): Uint8Array {
  const n = address.length;
  // `unknown`: a column of n bytes, all GEN_UNKNOWN, to fill instead of a new one
  const gen = unknown !== null && unknown.length === n ? unknown : new Uint8Array(n).fill(GEN_UNKNOWN);
  if (segments.length === 0) return gen;
  const segs = segments
    .map((s) => ({
      start: Number(s.start),
      end: Number(s.end),
      bounds: [Number(s.gen4End), Number(s.gen3End), Number(s.gen2End), Number(s.gen1End), Number(s.gen0End)],
    }))
    .filter((s) => s.end > s.start)
    .sort((a, b) => a.start - b.start);
  const segCount = segs.length;
  // one more start (+∞) so "the next segment starts after a" needs no bounds test
  const starts = new Float64Array(segCount + 1).fill(Infinity);
  const ends = new Float64Array(segCount);
  const bounds = new Float64Array(5 * segCount);
  segs.forEach((s, k) => {
    starts[k] = s.start;
    ends[k] = s.end;
    bounds.set(s.bounds, 5 * k);
  });
  const words = new Uint32Array(address.buffer, address.byteOffset, n * 2);
  // per type: 1 when its nodes outside the segments may be frozen objects
  const frozenType = frozen ? Uint8Array.from(frozen.typeNames, (name) => (name.startsWith('[') ? 0 : 1)) : null;
  const outside = (i: number) => {
    if (frozen && frozenType && (frozen.nodeFlags[i] & (NODE_PSEUDO | NODE_UNDEFINED)) === 0 && frozenType[frozen.nodeType[i]] === 1) gen[i] = GEN_FROZEN;
  };
  // Readers lay nodes out mostly in address order, so most addresses fall in the previous node's
  // segment: that one is tried before the binary search, with the same answer (the last segment
  // whose start ≤ a) because the next segment's start is checked too; its bounds sit in locals.
  // (The measured gain is in README's parse floor row.)
  // the found segment's bounds, in locals: [lo, hi) is where it is the last segment starting ≤ a
  let lo = Infinity;
  let hi = -Infinity;
  let end = 0;
  let b4 = 0;
  let b3 = 0;
  let b2 = 0;
  let b1 = 0;
  let b0 = 0;
  for (let i = 0; i < n; i++) {
    if ((i & 0xffff) === 0) token.throwIfCancelled();
    const a = words[2 * i + 1] * 4294967296 + words[2 * i];
    if (a === 0) continue;
    if (!(lo <= a && a < hi)) {
      // last segment whose start ≤ a
      let l = 0;
      let h = segCount - 1;
      let found = -1;
      while (l <= h) {
        const mid = (l + h) >>> 1;
        if (starts[mid] <= a) {
          found = mid;
          l = mid + 1;
        } else h = mid - 1;
      }
      if (found < 0) {
        lo = Infinity;
        hi = -Infinity;
        outside(i);
        continue;
      }
      lo = starts[found];
      hi = starts[found + 1];
      end = ends[found];
      b4 = bounds[5 * found];
      b3 = bounds[5 * found + 1];
      b2 = bounds[5 * found + 2];
      b1 = bounds[5 * found + 3];
      b0 = bounds[5 * found + 4];
    }
    if (a >= end) outside(i);
    else if (a < b4) gen[i] = 4;
    else if (a < b3) gen[i] = 3;
    else if (a < b2) gen[i] = 2;
    else if (a < b1) gen[i] = 1;
    else if (a < b0) gen[i] = 0;
  }
  return gen;
}

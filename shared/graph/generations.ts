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
 * found by binary search, so the cost is O(N log S) with no BigInt in the loop; the frozen test
 * adds one flag read per node outside the segments and a per-type table of `typeNames.length`
 * bytes.
 */
export function computeGenerations(
  address: BigUint64Array,
  segments: readonly HeapSegment[],
  token: CancellationToken = NEVER_CANCELLED,
  frozen: FrozenInputs | null = null,
): Uint8Array {
  const n = address.length;
  const gen = new Uint8Array(n).fill(GEN_UNKNOWN);
  if (segments.length === 0) return gen;
  const segs = segments
    .map((s) => ({
      start: Number(s.start),
      end: Number(s.end),
      bounds: [Number(s.gen4End), Number(s.gen3End), Number(s.gen2End), Number(s.gen1End), Number(s.gen0End)],
    }))
    .filter((s) => s.end > s.start)
    .sort((a, b) => a.start - b.start);
  const starts = new Float64Array(segs.map((s) => s.start));
  const words = new Uint32Array(address.buffer, address.byteOffset, n * 2);
  const GEN_FOR_BOUND = [4, 3, 2, 1, 0];
  // per type: 1 when its nodes outside the segments may be frozen objects
  const frozenType = frozen ? Uint8Array.from(frozen.typeNames, (name) => (name.startsWith('[') ? 0 : 1)) : null;
  const outside = (i: number) => {
    if (frozen && frozenType && (frozen.nodeFlags[i] & (NODE_PSEUDO | NODE_UNDEFINED)) === 0 && frozenType[frozen.nodeType[i]] === 1) gen[i] = GEN_FROZEN;
  };
  for (let i = 0; i < n; i++) {
    if ((i & 0xffff) === 0) token.throwIfCancelled();
    const a = words[2 * i + 1] * 4294967296 + words[2 * i];
    if (a === 0) continue;
    // last segment whose start ≤ a
    let lo = 0;
    let hi = starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid] <= a) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0) {
      outside(i);
      continue;
    }
    const s = segs[found];
    if (a >= s.end) {
      outside(i);
      continue;
    }
    for (let k = 0; k < 5; k++) {
      if (a < s.bounds[k]) {
        gen[i] = GEN_FOR_BOUND[k];
        break;
      }
    }
  }
  return gen;
}

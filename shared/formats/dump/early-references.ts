import { addressIndex } from './address-index.js';

/**
 * Resolves a dump's references to object nodes while the stream is still arriving, so that little
 * of that work is left for dumpRecordsToGraph after the END record, where it delays the first
 * type rows (on a 5M-object dump the search over 7M references was most of the build).
 *
 * Why it is exact: OBJECT records come in strictly ascending address order, so once object m has
 * arrived, every object at an address ≤ m's is known. A reference whose target is ≤ the last
 * object's address therefore resolves now to what the search over all N objects would give (the
 * node, or none: a dangling reference); a reference above it waits for the build, which resolves
 * it as before. Objects are visited once, WINDOW heap bytes behind the last object, so the many
 * references to an object allocated just after their source (a list and then its array) are
 * already resolvable when visited.
 *
 * Where a reference was resolved, its bit in `resolved` is set and the low word of its target in
 * the reference column is replaced by the node (NOT_FOUND for none): no column beyond one bit per
 * reference. While the decoder is waiting for the helper, which walks the heap more slowly than
 * this side decodes it, the work costs no wall time; otherwise it is the same work, done earlier.
 */
export const NOT_FOUND = 0xffffffff;

/** Objects decoded between two catch-ups (bounds the work between two cancellation checks of the decoder). */
export const CATCH_UP_EVERY = 4096;

/** Heap bytes behind the newest object that a visited object must be: forward references within it resolve early. */
const WINDOW = 1 << 16;

export class EarlyReferences {
  /** Bit j: reference j is resolved (its target's low word holds the node or NOT_FOUND). */
  private bits = new Uint8Array(1024);
  /** First object whose references have not been visited. */
  private next = 0;
  /** References resolved early (a count for tests and the bench). */
  count = 0;

  /**
   * Visit the references of the objects at least WINDOW bytes below the newest one.
   * `addr`: lo, hi per object (ascending); `objects`: objects decoded so far; `refEnd`: exclusive end
   * of each object's references; `targets`: lo, hi per reference (rewritten where resolved).
   */
  catchUp(addr: Uint32Array, objects: number, refEnd: Uint32Array, targets: Uint32Array): void {
    if (objects === 0) return;
    const lastLo = addr[2 * (objects - 1)];
    const lastHi = addr[2 * (objects - 1) + 1];
    const last = lastHi * 4294967296 + lastLo;
    let stop = this.next;
    // Doubles: exact below 2^53 (user-space addresses); above, only how far this visits is approximate.
    while (stop < objects - 1 && addr[2 * stop + 1] * 4294967296 + addr[2 * stop] + WINDOW <= last) stop++;
    if (stop === this.next) return;
    const refs = refEnd[stop - 1];
    if (this.bits.length < (refs >>> 3) + 1) {
      const grown = new Uint8Array(Math.max((refs >>> 3) + 1, 2 * this.bits.length));
      grown.set(this.bits);
      this.bits = grown;
    }
    const bits = this.bits;
    const find = addressIndex(addr, objects);
    let resolved = 0;
    for (let i = this.next; i < stop; i++) {
      for (let j = i === 0 ? 0 : refEnd[i - 1], end = refEnd[i]; j < end; j++) {
        const lo = targets[2 * j];
        const hi = targets[2 * j + 1];
        if (hi > lastHi || (hi === lastHi && lo > lastLo)) continue;
        const node = find(lo, hi, i);
        targets[2 * j] = node < 0 ? NOT_FOUND : node;
        bits[j >>> 3] |= 1 << (j & 7);
        resolved++;
      }
    }
    this.count += resolved;
    this.next = stop;
  }

  /** The bit per reference (shorter than the reference count when the last ones were not visited). */
  finish(): Uint8Array {
    return this.bits;
  }
}


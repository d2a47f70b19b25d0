/**
 * Finds the node of an object by its address in the ascending address column of a dump
 * (lo, hi words per object), for resolving every reference of the heap walk.
 *
 * Most references of a heap point at an object allocated just before or after their source (a
 * list and its array, an object and the strings it was built with), so a lookup given the
 * source's node first checks the NEAR objects on either side: two comparisons tell whether the
 * target lies between them, and a search of those few adjacent addresses (one or two cache
 * lines) finds it. Only other targets pay the binary search over all N addresses, whose last
 * steps each miss the CPU cache. No memory beyond the address column; results are those of the
 * binary search alone. (A block index that keeps every 32nd address in a small array was tried
 * and was no faster than the plain search on the 5M-object bench dump.)
 */
const NEAR = 8;

/** Node of the object at address (lo, hi), or -1. `from`: the referencing node, or -1. */
export type FindNode = (lo: number, hi: number, from?: number) => number;

export function addressIndex(addr: Uint32Array, n: number): FindNode {
  const search = (lo: number, hi: number, p: number, q: number): number => {
    while (p <= q) {
      const m = (p + q) >>> 1;
      const mh = addr[2 * m + 1];
      const ml = addr[2 * m];
      if (mh < hi || (mh === hi && ml < lo)) p = m + 1;
      else if (mh === hi && ml === lo) return m;
      else q = m - 1;
    }
    return -1;
  };
  /** Address of node m below (lo, hi). */
  const below = (m: number, lo: number, hi: number): boolean => {
    const mh = addr[2 * m + 1];
    return mh < hi || (mh === hi && addr[2 * m] < lo);
  };
  return (lo: number, hi: number, from = -1): number => {
    if (from >= 0 && n > 0) {
      const p = from > NEAR ? from - NEAR : 0;
      const q = from + NEAR < n ? from + NEAR : n - 1;
      if ((p === 0 || below(p, lo, hi)) && (q === n - 1 || !below(q, lo, hi))) return search(lo, hi, p, q);
    }
    return search(lo, hi, 0, n - 1);
  };
}

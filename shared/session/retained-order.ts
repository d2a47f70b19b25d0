/**
 * Node ids in order of a size column, largest first, ties by ascending id: a type group's
 * instances in the grouped dominator tree (issue 14), where one group can hold millions of
 * objects (every String of a heap). A comparator sort calls back into JS for each of its
 * O(k log k) comparisons; this is a stable LSD radix sort instead, five 11-bit digits of the key
 * (sizes are integers below 2^53), skipping the digits on which every key agrees (usually the
 * top ones). Because it is stable, ids given in ascending order keep that order among equal keys.
 * Scratch: 8 + 8 + 4 bytes per id, dropped on return.
 */
const SMALL = 256;
const RADIX = 2048;

/** Sorts `ids` in place (and returns it) by key[id] descending; `ids` must be in ascending order. */
export function sortIdsByKeyDesc(ids: Uint32Array, key: Float64Array): Uint32Array {
  const k = ids.length;
  if (k < SMALL) return ids.sort((a, b) => key[b] - key[a] || a - b);
  let srcK = new Float64Array(k);
  for (let i = 0; i < k; i++) srcK[i] = key[ids[i]];
  let srcI: Uint32Array = ids;
  let dstK = new Float64Array(k);
  let dstI: Uint32Array = new Uint32Array(k);
  const counts = new Uint32Array(RADIX);
  for (let d = 0; d < 5; d++) {
    counts.fill(0);
    for (let i = 0; i < k; i++) counts[digit(srcK[i], d)]++;
    if (counts[digit(srcK[0], d)] === k) continue; // every key has this digit: nothing moves
    let sum = 0;
    for (let b = RADIX - 1; b >= 0; b--) {
      // larger digits first: descending
      const c = counts[b];
      counts[b] = sum;
      sum += c;
    }
    for (let i = 0; i < k; i++) {
      const to = counts[digit(srcK[i], d)]++;
      dstK[to] = srcK[i];
      dstI[to] = srcI[i];
    }
    [srcK, dstK] = [dstK, srcK];
    [srcI, dstI] = [dstI, srcI];
  }
  if (srcI !== ids) ids.set(srcI);
  return ids;
}

/** Digit d (0 = least significant) of a non-negative integer below 2^55, 11 bits each. */
function digit(key: number, d: number): number {
  const lo = key >>> 0;
  switch (d) {
    case 0:
      return lo & 0x7ff;
    case 1:
      return (lo >>> 11) & 0x7ff;
  }
  const hi = (key - lo) / 4294967296;
  switch (d) {
    case 2:
      return (lo >>> 22) | ((hi & 1) << 10);
    case 3:
      return (hi >>> 1) & 0x7ff;
    default:
      return (hi >>> 12) & 0x7ff;
  }
}

import { AppError } from '../errors.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';

/**
 * "Go to address": find the heap object at (or containing) a 64-bit address, heap-wide.
 *
 * What an address is, per format: a .gcdump or an EventPipe trace stores each object's real
 * address; a Compact Framework heap log has none and its address column holds the log's object
 * id (hex, as the log writes it), so there "address" means that id. Pseudo-nodes (the root,
 * root categories) have address 0 and undefined nodes are not objects: neither is ever found.
 *
 * The index is the ordinals of the addressed heap objects sorted by address (a Uint32Array
 * permutation: 4 bytes per object), built on the first lookup and kept for the session. When the
 * file already lists objects in address order (a heap walk) it is one filtering pass; otherwise an
 * LSD radix sort on 16-bit digits of the two 32-bit halves (at most four O(N) passes, digits that
 * are equal for every object skipped, e.g. the high half on most heaps), so no comparator sort
 * and no BigInt. A lookup is then a binary search: O(log N).
 */
export interface AddressHit {
  node: number;
  /** Bytes from the object's start to the address asked for (0 = the object's own address). */
  offset: number;
}

export class AddressIndex {
  private sorted: Uint32Array | null = null;
  private readonly words: Uint32Array;

  constructor(private readonly g: HeapGraph) {
    this.words = new Uint32Array(g.address.buffer, g.address.byteOffset, g.nodeCount * 2);
  }

  /** Whether the index has been built (tests, diagnostics). */
  get built(): boolean {
    return this.sorted !== null;
  }

  /**
   * The object whose address is `hi:lo`, else the object that contains it (address ≤ x < address
   * + size, for an interior pointer); null when neither exists. Several objects at one address
   * (a file listing one twice) give the lowest ordinal of them.
   */
  find(hi: number, lo: number, token: CancellationToken = NEVER_CANCELLED): AddressHit | null {
    const s = this.index(token);
    const w = this.words;
    // first position whose address is > x
    let a = 0;
    let b = s.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      const n = s[m];
      const nh = w[2 * n + 1];
      if (nh < hi || (nh === hi && w[2 * n] <= lo)) a = m + 1;
      else b = m;
    }
    if (a === 0) return null;
    // the run of equal addresses ends at a − 1; its first element has the lowest ordinal
    let i = a - 1;
    const nh = w[2 * s[i] + 1];
    const nl = w[2 * s[i]];
    while (i > 0 && w[2 * s[i - 1] + 1] === nh && w[2 * s[i - 1]] === nl) i--;
    const n = s[i];
    const offset = (hi - nh) * 4294967296 + (lo - nl);
    return offset === 0 || offset < this.g.selfSize[n] ? { node: n, offset } : null;
  }

  /** The sorted permutation, built once. */
  index(token: CancellationToken = NEVER_CANCELLED): Uint32Array {
    return (this.sorted ??= this.build(token));
  }

  private build(token: CancellationToken): Uint32Array {
    const g = this.g;
    const w = this.words;
    const flags = g.nodeFlags;
    let count = 0;
    let ascending = true;
    let prevHi = 0;
    let prevLo = 0;
    for (let n = 0; n < g.nodeCount; n++) {
      if ((n & 0xffff) === 0) token.throwIfCancelled();
      if (flags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
      const hi = w[2 * n + 1];
      const lo = w[2 * n];
      if (hi === 0 && lo === 0) continue;
      if (hi < prevHi || (hi === prevHi && lo < prevLo)) ascending = false;
      prevHi = hi;
      prevLo = lo;
      count++;
    }
    let perm = new Uint32Array(count);
    for (let n = 0, k = 0; n < g.nodeCount; n++) {
      if (flags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
      if (w[2 * n + 1] === 0 && w[2 * n] === 0) continue;
      perm[k++] = n;
    }
    if (ascending) return perm;
    // LSD radix: stable passes from the least significant 16-bit digit up; ties keep ordinal order
    let tmp = new Uint32Array(count);
    const hist = new Uint32Array(65536);
    for (let digit = 0; digit < 4; digit++) {
      const word = digit >> 1;
      const shift = (digit & 1) * 16;
      hist.fill(0);
      for (let i = 0; i < count; i++) {
        if ((i & 0xffff) === 0) token.throwIfCancelled();
        hist[(w[2 * perm[i] + word] >>> shift) & 0xffff]++;
      }
      if (count > 0 && hist[(w[2 * perm[0] + word] >>> shift) & 0xffff] === count) continue; // one value: nothing to sort
      let sum = 0;
      for (let d = 0; d < 65536; d++) {
        const c = hist[d];
        hist[d] = sum;
        sum += c;
      }
      for (let i = 0; i < count; i++) {
        if ((i & 0xffff) === 0) token.throwIfCancelled();
        const n = perm[i];
        tmp[hist[(w[2 * n + word] >>> shift) & 0xffff]++] = n;
      }
      const t = perm;
      perm = tmp;
      tmp = t;
    }
    return perm;
  }
}

/**
 * Parse what a user types as an address: hex with or without `0x` ("0x7F3A10", "7f3a10",
 * "0000_7f3a_10" with `_` or `` ` `` group separators as debuggers print them). Returns the two
 * 32-bit halves; throws `usage/bad-argument` for anything else or more than 64 bits.
 */
export function parseAddress(text: string): { hi: number; lo: number } {
  const t = text.trim().replace(/[_`']/g, '');
  const m = /^(?:0x)?([0-9a-f]+)$/i.exec(t);
  if (!m) throw new AppError('usage/bad-argument', `not an address: "${text.slice(0, 40)}" (expected hex such as 0x7f3a10)`);
  const hex = m[1].replace(/^0+(?=.)/, '');
  if (hex.length > 16) throw new AppError('usage/bad-argument', `not an address: "${text.slice(0, 40)}" has more than 64 bits`);
  const lo = parseInt(hex.slice(-8), 16);
  const hi = hex.length > 8 ? parseInt(hex.slice(0, -8), 16) : 0;
  return { hi, lo };
}

/** Whether filter text asks for one exact address ("0x…"), not a substring of addresses. */
export function isAddressQuery(text: string): boolean {
  return /^0x[0-9a-f]+$/i.test(text.trim());
}

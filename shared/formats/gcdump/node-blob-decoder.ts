import type { HeapGraphBuilder } from '../../graph/heap-graph-builder.js';
import type { CancellationToken } from '../../util/cancellation.js';
import type { ProgressSink } from '../../util/progress.js';
import type { ByteCursor } from './byte-cursor.js';

/**
 * Decodes the MemoryGraph node blob (gcdump-format.md §6.2) into the builder while streaming it.
 *
 * Records are random access through `offsets`, and producers define nodes in their own order
 * (the root comes last), so records are visited in blob order: directly when the non-zero offsets
 * already increase with the node index, otherwise through a two-pass radix sort of the node
 * indices by offset (O(N), 8 bytes per node while sorting). The blob is then read forward in
 * windows of `cur.chunkSize` bytes and each record is handed to `setNode` (out of order is fine).
 *
 * Hot loop: compressed ints are decoded inline from a Uint8Array window into locals; the only
 * allocation is the reusable children array. Records may not overlap (a real file never has
 * that), which bounds the work by the blob length even for hostile offsets.
 */

/** Zero bytes after a window's data, so an inline decode of one int never reads past the array. */
const PAD = 16;
/** Longest node header: three 5-byte ints (typeAndSize, size, childCount). */
const MAX_HEADER = 15;

export interface BlobInput {
  cur: ByteCursor;
  /** File offset of the blob's first byte. */
  blobStart: number;
  blobLength: number;
  /** Blob offset of each node's record; 0 = never described (left UNDEFINED). */
  offsets: Uint32Array;
  typeSizes: Int32Array;
  builder: HeapGraphBuilder;
  token: CancellationToken;
  progress: ProgressSink;
}

/** Node indices with a non-zero offset, sorted by offset (stable LSD radix sort on 16-bit digits). */
export function sortNodesByOffset(offsets: Uint32Array, nonZero: number): Uint32Array {
  const n = offsets.length;
  let a = new Uint32Array(nonZero);
  let m = 0;
  for (let i = 0; i < n; i++) if (offsets[i] !== 0) a[m++] = i;
  let b = new Uint32Array(nonZero);
  const counts = new Uint32Array(65536);
  for (let shift = 0; shift < 32; shift += 16) {
    counts.fill(0);
    for (let i = 0; i < m; i++) counts[(offsets[a[i]] >>> shift) & 0xffff]++;
    let sum = 0;
    for (let d = 0; d < 65536; d++) {
      const c = counts[d];
      counts[d] = sum;
      sum += c;
    }
    for (let i = 0; i < m; i++) {
      const node = a[i];
      b[counts[(offsets[node] >>> shift) & 0xffff]++] = node;
    }
    const t = a;
    a = b;
    b = t;
  }
  return a;
}

/** Decode every described node into the builder; returns Σ of the (valid) sizes given. */
export async function decodeNodeBlob(input: BlobInput): Promise<number> {
  const { cur, blobStart, blobLength, offsets, typeSizes, builder, token, progress } = input;
  const n = offsets.length;
  const typeCount = typeSizes.length;

  let nonZero = 0;
  let sorted = true;
  let last = 0;
  for (let i = 0; i < n; i++) {
    const off = offsets[i];
    if (off === 0) continue;
    if (off >= blobLength) throw cur.corrupt(`node ${i} has its record at blob offset ${off}, past the blob's ${blobLength} bytes`);
    nonZero++;
    if (off <= last) sorted = false;
    last = off;
  }
  const order = sorted ? null : sortNodesByOffset(offsets, nonZero);

  let win = new Uint8Array(0);
  let winStart = 0; // blob offset of win[0]
  let winLen = 0; // valid bytes in win
  let winIsTail = false; // window reaches the end of the blob
  const chunk = cur.chunkSize;
  const load = async (start: number, min: number): Promise<void> => {
    const len = Math.min(blobLength - start, Math.max(chunk, min));
    const data = await cur.readRange(blobStart + start, len);
    if (win.length < len + PAD) win = new Uint8Array(Math.max(len, chunk) + PAD);
    win.set(data);
    win.fill(0, len, len + PAD);
    winStart = start;
    winLen = len;
    winIsTail = start + len >= blobLength;
  };

  let kids = new Int32Array(1024);
  let prevEnd = 0;
  let sumOfSizes = 0;
  let k = 0; // position in `order`
  let next = 0; // next index to try when `order` is null
  for (let visited = 0; visited < nonZero; visited++) {
    let node: number;
    if (order) node = order[k++];
    else {
      while (offsets[next] === 0) next++;
      node = next++;
    }
    const off = offsets[node];
    if (off < prevEnd) throw cur.corrupt(`node ${node}'s record at blob offset ${off} overlaps the previous record (which ends at ${prevEnd})`, blobStart + off);
    if ((visited & 0xffff) === 0) {
      token.throwIfCancelled();
      progress('parse', blobStart + off, cur.size);
    }
    if (off < winStart || (off + MAX_HEADER > winStart + winLen && !(winIsTail && off < winStart + winLen))) await load(off, MAX_HEADER);

    const w = win;
    let p = off - winStart;
    // typeAndSize
    let b = w[p++];
    let v = (b & 0x3f) - (b & 0x40);
    if (b & 0x80) {
      b = w[p++]; v = (v << 7) + (b & 0x7f);
      if (b & 0x80) {
        b = w[p++]; v = (v << 7) + (b & 0x7f);
        if (b & 0x80) {
          b = w[p++]; v = (v << 7) + (b & 0x7f);
          if (b & 0x80) { b = w[p++]; v = ((v << 7) + b) | 0; }
        }
      }
    }
    const type = v >> 1;
    let size: number;
    if (v & 1) {
      b = w[p++];
      v = (b & 0x3f) - (b & 0x40);
      if (b & 0x80) {
        b = w[p++]; v = (v << 7) + (b & 0x7f);
        if (b & 0x80) {
          b = w[p++]; v = (v << 7) + (b & 0x7f);
          if (b & 0x80) {
            b = w[p++]; v = (v << 7) + (b & 0x7f);
            if (b & 0x80) { b = w[p++]; v = ((v << 7) + b) | 0; }
          }
        }
      }
      size = v;
    } else {
      size = type >= 0 && type < typeCount ? typeSizes[type] : 0;
    }
    // childCount
    b = w[p++];
    v = (b & 0x3f) - (b & 0x40);
    if (b & 0x80) {
      b = w[p++]; v = (v << 7) + (b & 0x7f);
      if (b & 0x80) {
        b = w[p++]; v = (v << 7) + (b & 0x7f);
        if (b & 0x80) {
          b = w[p++]; v = (v << 7) + (b & 0x7f);
          if (b & 0x80) { b = w[p++]; v = ((v << 7) + b) | 0; }
        }
      }
    }
    const childCount = v;
    if (p > winLen) throw cur.corrupt(`node ${node}'s record runs past the end of the blob`, blobStart + off);
    // Each child takes at least one byte: a larger count cannot be real.
    if (childCount < 0 || childCount > blobLength - (winStart + p)) {
      throw cur.corrupt(`node ${node} claims ${childCount} children, more than the blob can hold`, blobStart + off);
    }
    if (childCount > kids.length) kids = new Int32Array(Math.max(childCount, kids.length * 2));

    let c = 0;
    while (c < childCount) {
      // Inside `safe` a 5-byte int cannot leave the window; the tail window is checked per child.
      const safe = winIsTail ? winLen : winLen - 5;
      const ww = win;
      const kk = kids;
      while (c < childCount && p < safe) {
        b = ww[p++];
        v = (b & 0x3f) - (b & 0x40);
        if (b & 0x80) {
          b = ww[p++]; v = (v << 7) + (b & 0x7f);
          if (b & 0x80) {
            b = ww[p++]; v = (v << 7) + (b & 0x7f);
            if (b & 0x80) {
              b = ww[p++]; v = (v << 7) + (b & 0x7f);
              if (b & 0x80) { b = ww[p++]; v = ((v << 7) + b) | 0; }
            }
          }
        }
        kk[c++] = node + v;
      }
      if (c < childCount) {
        if (winIsTail) throw cur.corrupt(`node ${node}'s record runs past the end of the blob`, blobStart + off);
        const at = winStart + p;
        await load(at, MAX_HEADER);
        p = 0;
      }
    }
    if (p > winLen) throw cur.corrupt(`node ${node}'s record runs past the end of the blob`, blobStart + off);
    prevEnd = winStart + p;
    if (size >= 0) sumOfSizes += size;
    builder.setNode(node, type, size, kids, 0, childCount);
  }
  progress('parse', blobStart + blobLength, cur.size);
  return sumOfSizes;
}

import type { HeapGraphBuilder } from '../../graph/heap-graph-builder.js';
import { NODE_UNDEFINED } from '../../graph/heap-graph.js';
import { GrowableInt32Array } from '../../util/growable-array.js';
import type { CancellationToken } from '../../util/cancellation.js';
import type { ProgressSink } from '../../util/progress.js';
import type { ByteCursor } from './byte-cursor.js';

/**
 * Decodes the MemoryGraph node blob (gcdump-format.md §6.2) into the builder while streaming it.
 *
 * Records are random access through `offsets`, and producers define nodes in their own order
 * (the root last; in the real fixtures a third of the nodes come out of index order), so the blob
 * is read forward in windows of `cur.chunkSize` bytes and records are visited in blob order:
 *
 * - offsets increasing with the node index: each record goes straight to `setNode`;
 * - otherwise node indices are radix-sorted by offset (O(N), 12 bytes per node while sorting),
 *   records are decoded in that order into a flat store (16 bytes per node + 4 per child), and
 *   then replayed to `setNode` in index order. Calling the builder in index order (undefined
 *   nodes included, re-flagged UNDEFINED) lets it use its edge pool as the CSR array as is;
 *   out-of-order calls would make it compact 4 bytes per edge again, node by node, which costs
 *   more than the store.
 *
 * Hot loop: compressed ints are decoded inline from a Uint8Array window into locals; nothing is
 * allocated per node. Records may not overlap (a real file never has that), which bounds the
 * work by the blob length even for hostile offsets.
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

/**
 * Node indices with a non-zero offset, sorted by offset: stable LSD radix sort on two 16-bit
 * digits, carrying the keys so the second pass reads them sequentially (one digit pass when the
 * blob is under 64 KiB).
 */
export function sortNodesByOffset(offsets: Uint32Array, nonZero: number, maxOffset = 0xffffffff): Uint32Array {
  const n = offsets.length;
  const counts = new Uint32Array(65536);
  for (let i = 0; i < n; i++) {
    const off = offsets[i];
    if (off !== 0) counts[off & 0xffff]++;
  }
  prefixSums(counts);
  const idx1 = new Uint32Array(nonZero);
  const key1 = maxOffset > 0xffff ? new Uint32Array(nonZero) : null;
  for (let i = 0; i < n; i++) {
    const off = offsets[i];
    if (off === 0) continue;
    const at = counts[off & 0xffff]++;
    idx1[at] = i;
    if (key1) key1[at] = off;
  }
  if (!key1) return idx1;
  counts.fill(0);
  for (let j = 0; j < nonZero; j++) counts[key1[j] >>> 16]++;
  prefixSums(counts);
  const out = new Uint32Array(nonZero);
  for (let j = 0; j < nonZero; j++) out[counts[key1[j] >>> 16]++] = idx1[j];
  return out;
}

function prefixSums(counts: Uint32Array): void {
  let sum = 0;
  for (let d = 0; d < counts.length; d++) {
    const c = counts[d];
    counts[d] = sum;
    sum += c;
  }
}

/**
 * Edges to allocate for up front: about one per 3 blob bytes, but at most 16 per node, so a blob
 * of zeros behind three nodes does not pre-allocate 4 bytes per 3 of its bytes. A graph with more
 * (a few huge arrays) grows its edge pool by doubling.
 */
export function expectedEdgeCount(nodeCount: number, blobLength: number): number {
  return Math.max(16, Math.min(Math.floor(blobLength / 3), 16 * nodeCount));
}

/** Decoded records kept in blob order until they can be replayed in node order. */
interface RecordStore {
  type: Int32Array;
  size: Int32Array;
  first: Uint32Array;
  count: Uint32Array;
  children: GrowableInt32Array;
}

const NO_CHILDREN = new Int32Array(0);

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
  const order = sorted ? null : sortNodesByOffset(offsets, nonZero, blobLength);
  const store: RecordStore | null = sorted
    ? null
    : {
        type: new Int32Array(n),
        size: new Int32Array(n),
        first: new Uint32Array(n),
        count: new Uint32Array(n),
        children: new GrowableInt32Array(expectedEdgeCount(n, blobLength)),
      };
  // Undefined nodes (offset 0) are described as empty and flagged UNDEFINED again, in index order.
  const setUndefined = (node: number): void => {
    builder.setNode(node, 0, 0, NO_CHILDREN, 0, 0);
    builder.addFlags(node, NODE_UNDEFINED);
  };

  let win = new Uint8Array(0);
  let winStart = 0; // blob offset of win[0]
  let winLen = 0; // valid bytes in win
  let winIsTail = false; // window reaches the end of the blob
  const chunk = cur.chunkSize;
  const load = async (start: number, min: number): Promise<void> => {
    const len = Math.min(blobLength - start, Math.max(chunk, min));
    const data = await cur.readRange(blobStart + start, len);
    // A window as big as the blob when it is smaller than a chunk (a small file never gets 8 MiB).
    if (win.length < len + PAD) win = new Uint8Array(Math.max(len, Math.min(chunk, blobLength)) + PAD);
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
      while (offsets[next] === 0) setUndefined(next++);
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
    let dst: Int32Array;
    let base: number;
    if (store) {
      store.children.reserve(childCount);
      dst = store.children.raw;
      base = store.children.length;
    } else {
      if (childCount > kids.length) kids = new Int32Array(Math.max(childCount, kids.length * 2));
      dst = kids;
      base = 0;
    }

    let c = 0;
    while (c < childCount) {
      // Inside `safe` a 5-byte int cannot leave the window; the tail window is checked per child.
      const safe = winIsTail ? winLen : winLen - 5;
      const ww = win;
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
        dst[base + c++] = node + v;
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
    if (store) {
      store.type[node] = type;
      store.size[node] = size;
      store.first[node] = base;
      store.count[node] = childCount;
      store.children.length = base + childCount;
    } else builder.setNode(node, type, size, kids, 0, childCount);
  }
  progress('parse', blobStart + blobLength, cur.size);
  if (store) replay(store, offsets, builder, setUndefined, token);
  else while (next < n) setUndefined(next++);
  return sumOfSizes;
}

function replay(store: RecordStore, offsets: Uint32Array, builder: HeapGraphBuilder, setUndefined: (node: number) => void, token: CancellationToken): void {
  const { type, size, first, count } = store;
  const children = store.children.raw;
  for (let node = 0; node < offsets.length; node++) {
    if ((node & 0xffff) === 0) token.throwIfCancelled();
    if (offsets[node] === 0) setUndefined(node);
    else builder.setNode(node, type[node], size[node], children, first[node], count[node]);
  }
}

import { AppError, FormatError } from '../../errors.js';
import type { HeapGraph } from '../../graph/heap-graph.js';
import { NODE_UNDEFINED } from '../../graph/heap-graph.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { ByteSink } from './byte-sink.js';
import { TAG_BYTE } from './fast-serialization.js';

/**
 * Writes the body of a `Graphs.MemoryGraph` object (gcdump-format.md §6.1–6.2) from a HeapGraph.
 *
 * Node records go to a separate chunked sink first, because the offset table precedes the blob
 * in the file; the blob's chunks are then appended without copying. Writer rule (§6.2): a node's
 * size is written explicitly only when it differs from its type's stored size, so a file read
 * and written again keeps the type table, and every node, exactly.
 *
 * Memory: 4 bytes per node for offsets plus the encoded blob (~3–4 bytes per reference).
 */

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const MAX_I32 = 0x7fffffff;

/**
 * `recordOrder` (a permutation of the node indices) sets the order of records in the blob, the
 * way producers that define nodes out of index order do (default: index order).
 */
export function writeMemoryGraphBody(
  sink: ByteSink,
  g: HeapGraph,
  is64Bit: boolean,
  token: CancellationToken,
  recordOrder?: Uint32Array,
  chunkSize?: number,
): void {
  const n = g.nodeCount;
  const { names, modules, sizes, count: typeCount } = g.types;
  sink.i64(g.totalSize);
  sink.i32(g.rootIndex);
  sink.i32(typeCount);
  for (let t = 0; t < typeCount; t++) {
    sink.string(names[t]);
    sink.i32(sizes[t]);
    sink.string(modules[t]);
  }

  const blob = new ByteSink(chunkSize);
  blob.u8(0); // the sentinel record at offset 0 that every undefined node points to:
  blob.u8(0); // type 0, size from the type, no children
  const offsets = new Uint32Array(n);
  const { nodeType, selfSize, nodeFlags, firstEdge, edgeTarget } = g;
  if (recordOrder && recordOrder.length !== n) throw new AppError('usage/bad-argument', `record order has ${recordOrder.length} entries for ${n} nodes`);
  for (let k = 0; k < n; k++) {
    if ((k & 0xffff) === 0) token.throwIfCancelled();
    const node = recordOrder ? recordOrder[k] : k;
    if (nodeFlags[node] & NODE_UNDEFINED) continue;
    const at = blob.offset;
    if (at > MAX_I32) throw new FormatError('format/too-large', `the graph's node records exceed the 2 GiB a .gcdump blob can hold (at node ${node} of ${n})`);
    offsets[node] = at;
    const type = nodeType[node];
    const size = selfSize[node];
    if (size > MAX_I32) throw new FormatError('format/size-overflow', `node ${node} is ${size} bytes; a .gcdump stores sizes as 32-bit signed integers`);
    if (size === sizes[type]) blob.compressed(type << 1);
    else {
      blob.compressed((type << 1) | 1);
      blob.compressed(size);
    }
    const start = firstEdge[node];
    const end = firstEdge[node + 1];
    blob.compressed(end - start);
    for (let e = start; e < end; e++) blob.compressed(edgeTarget[e] - node);
  }
  const blobLength = blob.offset;
  if (blobLength > MAX_I32) throw new FormatError('format/too-large', `the graph's node records (${blobLength} bytes) exceed the 2 GiB a .gcdump blob can hold`);

  sink.i32(n);
  if (LITTLE_ENDIAN) sink.bytes(new Uint8Array(offsets.buffer, offsets.byteOffset, offsets.byteLength));
  else for (let i = 0; i < n; i++) sink.u32(offsets[i]);
  sink.i32(blobLength);
  sink.appendChunks(blob.finish());

  sink.i32(n);
  const addr = g.address;
  if (LITTLE_ENDIAN) sink.bytes(new Uint8Array(addr.buffer, addr.byteOffset, n * 8));
  else for (let i = 0; i < n; i++) sink.u64(addr[i]);
  sink.u8(TAG_BYTE);
  sink.u8(is64Bit ? 1 : 0);
}

import { BugError, FormatError } from '../../errors.js';
import { HeapGraphBuilder } from '../../graph/heap-graph-builder.js';
import type { CancellationToken } from '../../util/cancellation.js';
import type { ProgressSink } from '../../util/progress.js';
import { NO_PROGRESS } from '../../util/progress.js';
import { ByteCursor } from './byte-cursor.js';
import { TAG_BYTE, checkTypeVersion, type BodyReader, type FastSerializationReader, type SerializationType } from './fast-serialization.js';
import { ModuleInfo } from './heap-info-reader.js';
import { decodeNodeBlob, expectedEdgeCount, type BlobSplit } from './node-blob-decoder.js';
import { checkMemoryBudget, type MemoryBudget } from '../../graph/memory-estimate.js';

/**
 * The body of a `Graphs.MemoryGraph` object (gcdump-format.md §6.1): type table, node offsets,
 * node blob, optional deferred-type region, addresses, tagged Is64Bit. Everything proportional to
 * the node count goes straight into a HeapGraphBuilder.
 *
 * Memory while reading: the builder's columns, 4 bytes per node of offsets, one blob window, and
 * (when records are out of node order) 8 bytes per node for the sort, then the builder's count
 * column (4 per node) and, at its finish, the references put into node order: in place, beside
 * the references of the records out of place, when those are few runs (the root's record last);
 * else copied (4 per reference; edge-pool-order.ts).
 */

export const MEMORY_GRAPH_TYPE = 'Graphs.MemoryGraph';

export interface MemoryGraphResult {
  readonly kind: 'memory-graph';
  builder: HeapGraphBuilder;
  /** Tagged Is64Bit; null when the tag is absent (old files). */
  is64Bit: boolean | null;
  declaredTotalSize: number;
  /** Σ of the valid sizes given to nodes (compare with declaredTotalSize). */
  sumOfSizes: number;
  version: number;
  addressCount: number;
}

/**
 * Type tables are JS arrays (names, modules) in the reader and the graph; V8 aborts the process
 * past ~2^27 elements, so a claim is refused well before. Real heaps have up to ~10^5–10^6 types.
 */
export const MAX_TYPES = 1 << 24;

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Count × minimum bytes per entry must fit in what is left of the file, checked before allocating. */
function checkCount(cur: ByteCursor, count: number, minBytes: number, what: string, at: number): void {
  if (count < 0 || count * minBytes > cur.remaining) {
    throw cur.corrupt(`${what} count ${count} cannot fit in the ${cur.remaining} bytes left (the file is truncated or corrupt)`, at);
  }
}

/** `split`: a second thread for the node blob (node-blob-decoder.ts). */
export function memoryGraphBody(token: CancellationToken, progress: ProgressSink, sizeHint?: (nodes: number, edges: number) => void, split?: BlobSplit, memoryBudget?: () => MemoryBudget, sharedMemory = false): BodyReader {
  return async (fs: FastSerializationReader, type: SerializationType): Promise<MemoryGraphResult> => {
    const cur = fs.cur;
    checkTypeVersion(cur, type, 1, 0);
    cur.section = 'the MemoryGraph header';
    await cur.need(16);
    const declaredTotalSize = cur.i64();
    const rootIndex = cur.i32();
    const typeCountAt = cur.pos;
    const typeCount = cur.i32();

    // The root is one of the nodes, whose offsets (4 bytes each) follow: refuted before the type table.
    if (rootIndex > 0 && 4 * rootIndex > cur.remaining) throw cur.corrupt(`root index ${rootIndex} cannot be a node: the file has room for at most ${Math.floor(cur.remaining / 4)}`, typeCountAt - 4);
    cur.section = 'the type table';
    checkCount(cur, typeCount, 12, 'type', typeCountAt);
    if (typeCount > MAX_TYPES) throw new FormatError('format/too-large', `${cur.source.name}: ${typeCount} types are more than this reader handles (${MAX_TYPES})`, { offset: typeCountAt });
    const names: (string | null)[] = new Array(typeCount);
    const modules: (string | null)[] = new Array(typeCount);
    const sizes = new Int32Array(typeCount);
    for (let i = 0; i < typeCount; i++) {
      if ((i & 0xffff) === 0) token.throwIfCancelled();
      const name = cur.nameInWindow();
      names[i] = name !== undefined ? name : await cur.readName();
      sizes[i] = cur.has(4) ? cur.i32() : await cur.readI32();
      const module = cur.nameInWindow();
      modules[i] = module !== undefined ? module : await cur.readName();
    }

    cur.section = 'the node table';
    const nodeCountAt = cur.pos;
    const nodeCount = await cur.readI32();
    checkCount(cur, nodeCount, 4, 'node', nodeCountAt);
    if (rootIndex < 0 || rootIndex >= nodeCount) throw cur.corrupt(`root index ${rootIndex} is not one of the ${nodeCount} nodes`, nodeCountAt);
    const claim = await checkNodeClaim(fs, type.minimumReaderVersion >= 1, nodeCount, nodeCountAt);
    // Counts the file backs, before the first allocation proportional to them (the offsets).
    checkMemoryBudget(cur.source.name, nodeCount, expectedEdgeCount(nodeCount, claim.blobLength), memoryBudget);
    // shared with the blob's second thread when there is one (no copy to it)
    const offsets = split ? new Uint32Array(new SharedArrayBuffer(4 * nodeCount)) : new Uint32Array(nodeCount);
    await readU32Array(cur, offsets);

    cur.section = 'the node blob';
    const blobAt = cur.pos;
    const blobLength = await cur.readI32();
    checkCount(cur, blobLength, 1, 'blob byte', blobAt);
    const blobStart = cur.pos;

    const expectedEdges = expectedEdgeCount(nodeCount, blobLength);
    sizeHint?.(nodeCount, expectedEdges); // the node count is exact: known from here on
    const builder = new HeapGraphBuilder({ expectedNodes: nodeCount, expectedEdges, sharedMemory }); // shared: the graph's columns are born where the app's threads read them
    for (let i = 0; i < typeCount; i++) {
      const name = names[i] ?? `(unnamed type ${i})`;
      if (i === 0) builder.setType(0, name, modules[0], sizes[0]);
      else builder.addType(name, modules[i], sizes[i]);
    }
    if (nodeCount > 0) builder.createNodes(nodeCount);
    // The address table is read while the blob is decoded (see AddressRead).
    const early = new AddressRead(cur, token, claim.addressAt, claim.addressCount, nodeCount, builder);
    let sumOfSizes: number;
    try {
      sumOfSizes = await decodeNodeBlob({ cur, blobStart, blobLength, offsets, typeSizes: sizes, builder, token, progress, split });
      cur.seek(blobStart + blobLength);
      if (type.minimumReaderVersion >= 1) await readDeferredRegion(fs, names, modules, sizes, builder);
    } catch (e) {
      await early.cancel();
      throw e;
    }

    // AddressRead has read the table from where checkNodeClaim found it, which is here: both come
    // from the same bytes (the blob's end, or the same forward reference), and the count was
    // checked there against the file's size
    cur.section = 'the address table';
    if (cur.pos !== claim.addressAt) {
      await early.cancel();
      throw new BugError('gcdump: the address table is not where the node-count check found it', { at: cur.pos, claimed: claim.addressAt });
    }
    await early.done;
    const { addressCount } = claim;
    cur.seek(claim.addressAt + 4 + 8 * addressCount);
    if (addressCount !== nodeCount) {
      builder.problems.add('malformed-record', `the file has ${addressCount} addresses for ${nodeCount} nodes`);
    }

    let is64Bit: boolean | null = null;
    cur.section = 'the MemoryGraph trailer';
    if (await fs.tryTag(TAG_BYTE)) is64Bit = (await cur.readU8()) !== 0;
    builder.setRoot(rootIndex);
    return { kind: 'memory-graph', builder, is64Bit, declaredTotalSize, sumOfSizes, version: type.version, addressCount };
  };
}

/**
 * Before anything proportional to the node count is allocated (offsets, sizeHint, the builder):
 * look ahead at the blob length and the address count, and require every claimed node to be
 * described by the file, by an address (8 bytes) or a record in the blob (2 bytes at least:
 * records may not overlap). A sparse file of zeros claiming 700M nodes then costs a few reads,
 * not the 4 bytes per node of offsets and ~25 of graph columns it would otherwise fill first.
 * Real files have one address per node. The cursor is left where it was. Returns the blob length
 * and where the address table's count is, with the count.
 */
async function checkNodeClaim(fs: FastSerializationReader, deferred: boolean, nodeCount: number, at: number): Promise<{ blobLength: number; addressAt: number; addressCount: number }> {
  const cur = fs.cur;
  const back = cur.pos;
  const i32At = async (offset: number): Promise<number> => {
    if (offset + 4 > cur.size) {
      cur.seek(offset); // where the file would have to go on: a cut file, or a node count too big for it
      throw cur.truncated(4);
    }
    const b = await cur.readRange(offset, 4);
    return b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24);
  };
  const blobAt = back + 4 * nodeCount;
  const blobLength = await i32At(blobAt);
  if (blobLength < 0 || blobAt + 4 + blobLength > cur.size) {
    throw cur.corrupt(`the node blob length ${blobLength} (at offset ${blobAt}, after ${nodeCount} node offsets) cannot fit in the file`, at);
  }
  let addressAt = blobAt + 4 + blobLength;
  if (deferred) {
    const forwardIndex = await i32At(addressAt);
    cur.seek(addressAt);
    addressAt = await fs.forwardTarget(forwardIndex);
    cur.seek(back);
  }
  const addressCount = await i32At(addressAt);
  if (addressCount < 0 || addressAt + 4 + 8 * addressCount > cur.size) {
    throw cur.corrupt(`the address count ${addressCount} (at offset ${addressAt}) cannot fit in the file`, at);
  }
  const described = addressCount + Math.floor(blobLength / 2);
  if (nodeCount > described) {
    throw cur.corrupt(`node count ${nodeCount} is more than the file describes (${addressCount} addresses and a ${blobLength}-byte node blob: at most ${described} nodes)`, at);
  }
  return { blobLength, addressAt, addressCount };
}

/** Fill `out` with little-endian u32s from the cursor position, in chunks. */
async function readU32Array(cur: ByteCursor, out: Uint32Array): Promise<void> {
  const bytes = LITTLE_ENDIAN ? new Uint8Array(out.buffer, out.byteOffset, out.byteLength) : null;
  const step = Math.max(4, cur.chunkSize & ~3);
  for (let done = 0; done < out.byteLength; ) {
    const len = Math.min(step, out.byteLength - done);
    const into = bytes?.subarray(done, done + len);
    const data = await cur.readRange(cur.pos, len, into);
    if (into) {
      if (!ByteCursor.landedIn(data, into)) into.set(data);
    } else {
      const dv = new DataView(data.buffer, data.byteOffset, data.length);
      for (let j = 0; j < len; j += 4) out[(done + j) / 4] = dv.getUint32(j, true); // not >> 2: a table past 2 GiB
    }
    done += len;
    cur.seek(cur.pos + len);
  }
}

/**
 * The address table, read into the builder's address column while the node blob is decoded, from
 * where checkNodeClaim found it (its own cursor, which reports no progress: the blob's reads do).
 *
 * Why: the column is 8 bytes per node of fresh memory, which the kernel commits page by page as
 * it copies the file into it. Read after the blob, that was one thread's work while the other
 * core sat idle, and the dearest part of the parse at 100M objects, whose earlier columns have
 * used up the memory this VM still holds for it (README, performance table). Beside the blob's
 * decode it takes the cycles that the decode leaves free. Memory: none more (the column is the
 * destination either way). A failure here surfaces at `done`, where the table would have been read.
 */
class AddressRead {
  readonly done: Promise<void>;
  private stopped = false;

  constructor(cur: ByteCursor, token: CancellationToken, addressAt: number, addressCount: number, nodeCount: number, builder: HeapGraphBuilder) {
    const own = new ByteCursor(cur.source, cur.size, token, NO_PROGRESS, cur.chunkSize);
    own.section = 'the address table';
    own.seek(addressAt + 4);
    this.done = readAddresses(own, addressCount, nodeCount, builder, () => this.stopped);
    this.done.catch(() => {}); // awaited later, or given up on by cancel(): never unhandled
  }

  /** Stops after the read in flight and waits for it, so nothing reads the file after the reader returns. */
  async cancel(): Promise<void> {
    this.stopped = true;
    await this.done.catch(() => {});
  }
}

/**
 * Addresses are raw bytes of the builder's address column, read into it in place on a
 * little-endian machine (else copied); extra ones (count > nodes) are skipped.
 */
async function readAddresses(cur: ByteCursor, addressCount: number, nodeCount: number, builder: HeapGraphBuilder, stopped = () => false): Promise<void> {
  const per = Math.max(1, cur.chunkSize >> 3);
  for (let done = 0; done < addressCount && !stopped(); ) {
    const cnt = Math.min(per, addressCount - done);
    const usable = Math.max(0, Math.min(cnt, nodeCount - done));
    const into = LITTLE_ENDIAN && usable === cnt ? builder.addressBytes(done, cnt) : undefined;
    const data = await cur.readRange(cur.pos, cnt * 8, into);
    if (!into || !ByteCursor.landedIn(data, into)) {
      if (usable > 0) builder.setAddressBytes(done, data.subarray(0, usable * 8));
    }
    done += cnt;
    cur.seek(cur.pos + cnt * 8);
  }
}

/**
 * §6.6 DeferedRegion: per type a type id, a module and a name suffix, for producers that did not
 * resolve type names. Unnamed types become "TypeID(0x…)" (PerfView's fallback, no suffix); a
 * missing module name is taken from the module object.
 */
async function readDeferredRegion(
  fs: FastSerializationReader,
  names: (string | null)[],
  modules: (string | null)[],
  sizes: Int32Array,
  builder: HeapGraphBuilder,
): Promise<void> {
  const cur = fs.cur;
  cur.section = 'the deferred type region';
  const at = cur.pos;
  await cur.need(8);
  const forwardIndex = cur.i32();
  const count = cur.i32();
  checkCount(cur, count, 9, 'deferred type', at);
  // Entries name types by position: those past the type table name nothing and are not read
  // (the region's end is known from its forward reference).
  const read = Math.min(count, names.length);
  if (count > read) builder.problems.add('malformed-record', `the deferred type region has ${count} entries for ${names.length} types; the extra ones were ignored`);
  for (let i = 0; i < read; i++) {
    if ((i & 0xffff) === 0) cur.throwIfCancelled();
    const typeId = await cur.readI32();
    const module = await fs.readObject();
    await cur.skipString(); // name suffix: only used with a symbol resolver, which we do not have
    const name = names[i] ?? `TypeID(0x${(typeId >>> 0).toString(16)})`;
    const moduleName = modules[i] ?? (module instanceof ModuleInfo ? module.path : null);
    if (names[i] === null || modules[i] !== moduleName) builder.setType(i, name, moduleName, sizes[i]);
  }
  const target = await fs.forwardTarget(forwardIndex);
  if (target < cur.pos) throw cur.corrupt(`the deferred type region ends at ${target}, before its last entry`, at);
  cur.seek(target);
}

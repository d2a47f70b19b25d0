import { AppError, FormatError } from '../../errors.js';
import type { HeapGraph } from '../../graph/heap-graph.js';
import { NODE_PSEUDO, NODE_WEAK_EDGES } from '../../graph/heap-graph.js';
import { emptyMetadata, ticksToIso, type SnapshotMetadata } from '../../graph/metadata.js';
import type { ByteSource } from '../../util/byte-source.js';
import { NEVER_CANCELLED } from '../../util/cancellation.js';
import { NO_PROGRESS, throttledProgress } from '../../util/progress.js';
import type { ReadOptions } from '../read-options.js';
import { ByteCursor, DEFAULT_CHUNK, MAX_NAME_CHARS, MAX_TEXT_CHARS, NAME_CUT_MARK } from './byte-cursor.js';
import { FastSerializationReader, FS_HEADER_LENGTH, TAG_END_OBJECT, TAG_FORWARD_DEFINITION, UnknownObject, type BodyReader } from './fast-serialization.js';
import { GCHEAPDUMP_TYPE, heapDumpBody, HeapDumpFields } from './heap-dump-body.js';
import {
  DOTNET_HEAP_INFO_TYPE,
  dotNetHeapInfoBody,
  INTEROP_INFO_TYPE,
  interopInfoBody,
  JS_HEAP_INFO_TYPE,
  jsHeapInfoBody,
  MODULE_TYPE,
  moduleBody,
  SEGMENT_TYPE,
  segmentBody,
} from './heap-info-reader.js';
import { MEMORY_GRAPH_TYPE, memoryGraphBody } from './memory-graph-reader.js';
import { isWeakCategoryName } from './weak-categories.js';

/**
 * Read a .gcdump (PerfView / dotnet-gcdump heap snapshot) into a HeapGraph.
 *
 * The file is read in windows of `chunkSize` bytes (default 8 MiB), never as one buffer; node
 * records stream from the blob into a HeapGraphBuilder. Structural damage (bad header, a count
 * larger than the file, a record past the blob) is a FormatError with the offset; data problems
 * (dangling children, undefined nodes, Σ sizes ≠ TotalSize) go to the graph's problem list.
 *
 * Pseudo-nodes (NODE_PSEUDO) are the root and every node with address 0 whose type has no module
 * and a bracketed name ("[static vars]", "[.NET Roots]"), the producers' convention (§6.5).
 * Those named as weak-handle categories ("[weak Handles]", weak-categories.ts) are also
 * NODE_WEAK_EDGES: their references keep nothing alive, as in the trace the file was made from.
 *
 * With `opts.stretchReader.gcdumpBlob` the second half of a big node blob is decoded on another
 * thread (node-blob-decoder.ts, blob-split.ts), with the same result as one thread.
 */
export interface GcdumpReadOptions extends ReadOptions {
  /** Bytes per read (default 8 MiB); tests use tiny sizes. */
  chunkSize?: number;
  /**
   * With `stretchReader.gcdumpBlob`: the number of node records this thread decodes before the
   * second thread's part (tests choose any, 0 … all); default the middle of the blob, for blobs
   * of PARALLEL_MIN_BLOB_BYTES or more.
   */
  splitAtVisit?: number;
  /** Tests: the smallest node blob read on two threads (default PARALLEL_MIN_BLOB_BYTES). */
  splitMinBlobBytes?: number;
}

export async function readGcdump(source: ByteSource, opts: GcdumpReadOptions = {}): Promise<HeapGraph> {
  const token = opts.token ?? NEVER_CANCELLED;
  const progress = opts.progress ? throttledProgress(opts.progress) : NO_PROGRESS;
  if (source.size < 0) throw new AppError('io/read-failed', `${source.name}: reading a .gcdump needs a source of known length`);
  const cur = new ByteCursor(source, source.size, token, progress, opts.chunkSize ?? DEFAULT_CHUNK);
  const blobReader = opts.stretchReader?.gcdumpBlob;
  const bodies: Record<string, BodyReader> = {
    [GCHEAPDUMP_TYPE]: heapDumpBody,
    [MEMORY_GRAPH_TYPE]: memoryGraphBody(token, progress, opts.sizeHint, blobReader ? { reader: blobReader, atVisit: opts.splitAtVisit, minBlobBytes: opts.splitMinBlobBytes } : undefined, opts.memoryBudget, opts.sharedMemory === true),
    [DOTNET_HEAP_INFO_TYPE]: dotNetHeapInfoBody,
    [SEGMENT_TYPE]: segmentBody,
    [INTEROP_INFO_TYPE]: interopInfoBody,
    [MODULE_TYPE]: moduleBody,
    [JS_HEAP_INFO_TYPE]: jsHeapInfoBody,
  };
  const fs = new FastSerializationReader(cur, bodies);
  progress('parse', 0, source.size);
  await fs.readHeader();

  cur.section = 'the GCHeapDump object';
  const dump = await fs.readObject();
  if (!(dump instanceof HeapDumpFields)) {
    const what = dump instanceof UnknownObject ? `a ${dump.typeName}` : 'not a GCHeapDump object';
    throw new FormatError('format/corrupt', `${source.name}: the first object is ${what}`, { offset: FS_HEADER_LENGTH });
  }
  const graph = dump.graph;
  if (!graph) throw new FormatError('format/corrupt', `${source.name}: the GCHeapDump has no MemoryGraph`, { offset: FS_HEADER_LENGTH });
  const builder = graph.builder;
  if (graph.declaredTotalSize !== graph.sumOfSizes) {
    builder.problems.add('size-mismatch', `the file says TotalSize ${graph.declaredTotalSize}, but its nodes add up to ${graph.sumOfSizes}`);
  }
  await checkEndOfStream(fs, builder.problems);
  if (cur.stringsCut > 0) {
    const what = `names are cut at ${MAX_NAME_CHARS} characters, the collection log at ${MAX_TEXT_CHARS}`;
    builder.problems.addMany('malformed-record', cur.stringsCut, `${cur.stringsCut} over-long string(s) were cut and end in "${NAME_CUT_MARK}" (${what}; the longest had ${cur.longestCut})`);
  }

  opts.collectGarbage?.();
  const g = builder.finish(toMetadata(dump), token);
  markPseudoNodes(g);
  progress('parse', source.size, source.size);
  return g;
}

function toMetadata(d: HeapDumpFields): SnapshotMetadata {
  const m = emptyMetadata('gcdump');
  const graph = d.graph!;
  m.formatVersion = `GCHeapDump v${d.version}`;
  m.creationTool = d.creationTool;
  m.processName = d.processName;
  m.processId = d.processId;
  m.machineName = d.machineName;
  m.timeCollected = ticksToIso(d.timeCollectedTicks);
  m.pointerSize = (graph.is64Bit ?? d.legacyIs64Bit ?? false) ? 8 : 4;
  m.averageCountMultiplier = d.averageCountMultiplier;
  m.averageSizeMultiplier = d.averageSizeMultiplier;
  m.countMultipliersByType = d.countMultipliersByType;
  m.totalProcessCommit = d.totalProcessCommit;
  m.totalProcessWorkingSet = d.totalProcessWorkingSet;
  m.collectionLog = d.collectionLog;
  m.declaredTotalSize = graph.declaredTotalSize;
  m.segments = d.segments;
  m.interop = d.interop;
  if (d.timeCollectedTicks !== 0n) m.extra.timeCollectedTicks = d.timeCollectedTicks.toString();
  if (d.sizeOfAllSegments !== null) m.extra.sizeOfAllSegments = d.sizeOfAllSegments;
  if (d.jsHeapInfo) m.extra.jsHeapInfo = 1;
  m.extra.memoryGraphVersion = graph.version;
  return m;
}

/**
 * After the entry object: forward-defined objects, the unbalanced EndObject, then table, trailer
 * and suffix label (§3.7).
 * A damaged tail does not lose the graph, so it is a problem, not an error.
 */
async function checkEndOfStream(fs: FastSerializationReader, problems: { add(code: 'truncated', message: string): void }): Promise<void> {
  const cur = fs.cur;
  try {
    // Objects only reached through ForwardReferences are defined here (§3.7 item 1).
    while ((await cur.peek()) === TAG_FORWARD_DEFINITION) await fs.readObject();
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    problems.add('truncated', e.message);
    return;
  }
  const at = cur.pos;
  if ((await cur.peek()) !== TAG_END_OBJECT) {
    problems.add('truncated', `no end-of-objects marker after the GCHeapDump object (offset ${at})`);
    return;
  }
  try {
    await fs.loadForwardTable();
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    problems.add('truncated', e.message);
  }
}

/** Mark the root and the producers' bracketed, module-less, address-0 category nodes (weak ones also NODE_WEAK_EDGES). */
function markPseudoNodes(g: HeapGraph): void {
  const { names, modules, count } = g.types;
  const pseudoType = new Uint8Array(count); // the flags a node of this type gets when it has no address
  for (let t = 0; t < count; t++) {
    const name = names[t];
    if (modules[t] === null && name.length >= 2 && name.charCodeAt(0) === 0x5b && name.charCodeAt(name.length - 1) === 0x5d) {
      pseudoType[t] = NODE_PSEUDO | (isWeakCategoryName(name) ? NODE_WEAK_EDGES : 0);
    }
  }
  const words = new Uint32Array(g.address.buffer, g.address.byteOffset, g.nodeCount * 2);
  const { nodeType, nodeFlags } = g;
  for (let i = 0; i < g.nodeCount; i++) {
    if (pseudoType[nodeType[i]] && words[2 * i] === 0 && words[2 * i + 1] === 0) nodeFlags[i] |= pseudoType[nodeType[i]];
  }
  nodeFlags[g.rootIndex] |= NODE_PSEUDO;
}

import { FormatError } from '../../errors.js';
import { graphFromColumns } from '../../graph/graph-from-columns.js';
import type { HeapGraph, StringValueTable } from '../../graph/heap-graph.js';
import type { MemoryBudget } from '../../graph/memory-estimate.js';
import { NODE_PINNED, NODE_PSEUDO, NODE_WEAK_EDGES, NONE } from '../../graph/heap-graph.js';
import { emptyMetadata } from '../../graph/metadata.js';
import type { ByteSource } from '../../util/byte-source.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { NEVER_CANCELLED } from '../../util/cancellation.js';
import { NO_PROGRESS, type ProgressSink } from '../../util/progress.js';
import { newUint32Array, newUint8Array } from '../../util/typed-arrays.js';
import { PseudoNodeTree } from '../nettrace/pseudo-node-tree.js';
import { addressIndex } from './address-index.js';
import type { TypeHistogramSink } from './type-histogram.js';
import { decodeDumpStream, NONE_ID, RootKind, type DumpRecords } from './dump-stream.js';

/**
 * A decoded dump stream as a HeapGraph: objects are nodes 0 … N−1 in address order, the root
 * categories follow (the synthetic root "[.NET Roots]" is node N):
 *
 *     [.NET Roots]
 *       [local vars] → [thread 1 (OS 0x1a2b)] or [thread 5 "name" (OS 0x1a2c)] → [<frame signature>] → objects
 *       [static vars] → [static var <declaring type>.<field>] → object
 *       [thread static vars] → …
 *       [other roots] → [strong Handles] / [pinning Handles] / [async pinned Handles] /
 *                       [ref-counted Handles] / [sized-ref Handles] / [other Handles] /
 *                       [finalizer queue] / [Dependent Handles] (values whose key is no object)
 *       [weak Handles] (NODE_WEAK_EDGES: does not keep its objects alive)
 *
 * A dependent handle becomes a reference key → value (named "(dependent handle)"), as the nettrace
 * reader does (nettrace/dependent-edges.ts): the value is alive exactly while the key is.
 * Objects reached from pinning handles are flagged NODE_PINNED.
 *
 * String contents (STRING_VALUE records) become the optional nodeStringValue column (objects only;
 * pseudo nodes NONE) and the stringValues table (graph/string-values.ts reads them).
 *
 * ARRAY_FILL / COLLECTION_FILL / COLLECTION records become the optional fillFacts columns (graph/fill-facts.ts).
 *
 * References are resolved by a search over the ascending object addresses (address-index.ts: the
 * source's neighbours first, then binary search; no hash map per object): O(E log N) time, no
 * memory beyond the final columns. A reference to an address that is
 * no object start is dropped and counted as a 'dangling-reference' problem.
 */
export const DEPENDENT_FIELD_NAME = '(dependent handle)';

/**
 * `sharedMemory` (ReadOptions.sharedMemory, the app's snapshot worker): the graph's seven columns
 * that shareGraph hands to the analysis children are allocated in SharedArrayBuffers from the
 * start, so the worker does not copy them (~140 MB on a 5M-object dump) after the build, on the
 * way to the first type rows.
 */
export async function readDumpStream(
  source: ByteSource,
  token: CancellationToken = NEVER_CANCELLED,
  progress: ProgressSink = NO_PROGRESS,
  memoryBudget?: () => MemoryBudget,
  sharedMemory = false,
  onTypeHistogram?: TypeHistogramSink,
): Promise<HeapGraph> {
  return dumpRecordsToGraph(await decodeDumpStream(source, token, progress, memoryBudget, onTypeHistogram), token, sharedMemory);
}

export function dumpRecordsToGraph(r: DumpRecords, token: CancellationToken = NEVER_CANCELLED, sharedMemory = false): HeapGraph {
  const n = r.objectCount;
  // A runtime always has objects (strings, the AppDomain, exceptions preallocated at start-up).
  if (n === 0) throw new FormatError('format/corrupt', 'the dump reader found no objects on the managed heap');
  const addr = r.objectAddress;
  const problems = r.problems;
  /** Node of the object at address (lo, hi), or -1. */
  const find = addressIndex(addr, n);

  // Roots → pseudo-node tree. Pseudo nodes are numbered from N in creation order.
  let next = n;
  const pn = new PseudoNodeTree('[.NET Roots]', () => next++);
  const flags = new Uint8Array(n);
  const otherRoots = (): number => pn.child(pn.root, '[other roots]');
  let missingRoots = 0;
  for (let i = 0; i < r.rootKind.length; i++) {
    const node = find(r.rootObject[2 * i], r.rootObject[2 * i + 1]);
    if (node < 0) {
      missingRoots++;
      continue;
    }
    const g = r.rootGroup[i];
    const nm = r.rootName[i];
    const group = g === NONE_ID ? null : r.strings.get(g);
    const name = nm === NONE_ID ? null : r.strings.get(nm);
    let parent: number;
    switch (r.rootKind[i] as RootKind) {
      case RootKind.Stack:
        parent = pn.child(pn.child(pn.root, '[local vars]'), group ?? '[thread ?]');
        if (name) parent = pn.child(parent, `[${name}]`);
        break;
      case RootKind.Static:
      case RootKind.ThreadStatic:
        parent = pn.child(
          pn.child(pn.root, r.rootKind[i] === RootKind.Static ? '[static vars]' : '[thread static vars]'),
          `[static var ${group ?? '?'}${name ? '.' + name : ''}]`,
        );
        break;
      case RootKind.StrongHandle:
        parent = pn.child(otherRoots(), '[strong Handles]');
        break;
      case RootKind.PinnedHandle:
      case RootKind.AsyncPinnedHandle:
        parent = pn.child(otherRoots(), r.rootKind[i] === RootKind.PinnedHandle ? '[pinning Handles]' : '[async pinned Handles]');
        flags[node] |= NODE_PINNED;
        break;
      case RootKind.RefCountedHandle:
        parent = pn.child(otherRoots(), '[ref-counted Handles]');
        break;
      case RootKind.SizedRefHandle:
        parent = pn.child(otherRoots(), '[sized-ref Handles]');
        break;
      case RootKind.WeakHandle:
        parent = pn.child(pn.root, '[weak Handles]');
        pn.flags[parent] |= NODE_WEAK_EDGES;
        break;
      case RootKind.FinalizerQueue:
        parent = pn.child(otherRoots(), '[finalizer queue]');
        break;
      default:
        parent = pn.child(otherRoots(), '[other Handles]');
    }
    pn.addNode(parent, node);
  }
  if (missingRoots > 0) problems.addMany('dangling-reference', missingRoots, `${missingRoots} roots point at addresses that are no object of the heap walk (dropped)`);

  // Dependent handles: key → value references, sorted by key; values of unknown keys stay roots.
  const depKeys: number[] = [];
  const depValues: number[] = [];
  let missingDeps = 0;
  const d = r.dependents;
  for (let i = 0; i < d.length; i += 4) {
    const value = find(d[i + 2], d[i + 3]);
    if (value < 0) {
      missingDeps++;
      continue;
    }
    const key = find(d[i], d[i + 1]);
    if (key < 0) pn.addNode(pn.child(otherRoots(), '[Dependent Handles]'), value);
    else {
      depKeys.push(key);
      depValues.push(value);
    }
  }
  if (missingDeps > 0) problems.addMany('dangling-reference', missingDeps, `${missingDeps} dependent handles hold values that are no object of the heap walk (dropped)`);
  const depOrder = depKeys.map((_, i) => i).sort((a, b) => depKeys[a] - depKeys[b] || a - b);

  const total = n + pn.count;
  if (total >= NONE) throw new FormatError('format/too-large', `a dump of ${n} objects is more than this reader handles`);
  let pnEdges = 0;
  for (let p = 0; p < pn.count; p++) pnEdges += pn.children[p].length;
  const maxEdges = r.referenceField.length + depKeys.length + pnEdges;

  const firstEdge = newUint32Array(total + 1, sharedMemory);
  const edgeTarget = newUint32Array(maxEdges, sharedMemory);
  const edgeField = new Uint32Array(maxEdges);
  // The stream's string table also holds string values' texts (a million in a big dump): the
  // edges get ids into a table of the field names alone (in order of first use), so the graph
  // keeps no slot per value text (8 bytes each) and passes over field names stay short.
  const fieldOf = new Uint32Array(r.strings.length).fill(NONE);
  const fieldNames: string[] = [];
  for (let j = 0; j < r.referenceField.length; j++) {
    const f = r.referenceField[j];
    if (f !== NONE_ID && fieldOf[f] === NONE) {
      fieldOf[f] = fieldNames.length;
      fieldNames.push(r.strings.get(f));
    }
  }
  fieldNames.push(DEPENDENT_FIELD_NAME);
  const dependentField = fieldNames.length - 1;
  const targets = r.referenceTarget;
  const fields = r.referenceField;
  const ends = r.referenceEnd;
  let e = 0;
  let k = 0;
  let dangling = 0;
  for (let i = 0; i < n; i++) {
    if ((i & 0xffff) === 0) token.throwIfCancelled();
    firstEdge[i] = e;
    for (let j = i === 0 ? 0 : ends[i - 1], end = ends[i]; j < end; j++) {
      const t = find(targets[2 * j], targets[2 * j + 1], i);
      if (t < 0) {
        dangling++;
        continue;
      }
      edgeTarget[e] = t;
      const f = fields[j];
      edgeField[e++] = f === NONE_ID ? NONE : fieldOf[f];
    }
    while (k < depOrder.length && depKeys[depOrder[k]] === i) {
      edgeTarget[e] = depValues[depOrder[k++]];
      edgeField[e++] = dependentField;
    }
  }
  if (dangling > 0) problems.addMany('dangling-reference', dangling, `${dangling} references point at addresses that are no object start of the heap walk (dropped)`);
  const nodeFlags = newUint8Array(total, sharedMemory);
  nodeFlags.set(flags);
  const pseudoTypeBase = r.typeNames.length;
  const nodeType = newUint32Array(total, sharedMemory);
  nodeType.set(r.objectType);
  for (let p = 0; p < pn.count; p++) {
    const node = n + p;
    firstEdge[node] = e;
    nodeFlags[node] = NODE_PSEUDO | pn.flags[p];
    nodeType[node] = pseudoTypeBase + p;
    for (const child of pn.children[p]) {
      edgeTarget[e] = child;
      edgeField[e++] = NONE;
    }
  }
  firstEdge[total] = e;

  const selfSize = newUint32Array(total, sharedMemory);
  selfSize.set(r.objectSize);
  const generation = newUint8Array(total, sharedMemory).fill(255);
  generation.set(r.objectGeneration);
  const addressWords = newUint32Array(2 * total, sharedMemory);
  addressWords.set(addr);
  let strings: { nodeStringValue: Uint32Array; stringValues: StringValueTable } | null = null;
  if (r.objectStringValue.length > 0) {
    const nodeStringValue = new Uint32Array(total).fill(NONE);
    nodeStringValue.set(r.objectStringValue);
    // The texts stay UTF-8 in the stream's string pool (graph/string-values.ts decodes them).
    const values = r.stringValueText.length;
    const textStart = new Uint32Array(values);
    const textEnd = new Uint32Array(values);
    for (let v = 0; v < values; v++) {
      textStart[v] = r.strings.start(r.stringValueText[v]);
      textEnd[v] = r.strings.end(r.stringValueText[v]);
    }
    strings = { nodeStringValue, stringValues: { bytes: r.strings.bytes(), textStart, textEnd, lengths: r.stringValueLength } };
  }
  const typeNames = [...r.typeNames, ...pn.names];
  const typeModules = [...r.typeModules, ...pn.names.map(() => null)];

  const fillFacts = r.fills.columns(total, typeNames.length);

  const metadata = emptyMetadata('dump');
  metadata.formatVersion = 'process dump (ClrMD stream v1)';
  metadata.creationTool = null;
  const pointerSize = Number(r.info.pointerSize);
  metadata.pointerSize = pointerSize === 4 || pointerSize === 8 ? pointerSize : 0;
  metadata.processId = Number(r.info.processId) || 0;
  for (const key of ['clrVersion', 'clrFlavor', 'architecture', 'platform', 'serverGC', 'dacFile', 'dacSource', 'dacMatchedBy']) {
    if (r.info[key] !== undefined) metadata.extra[key] = r.info[key];
  }

  return graphFromColumns(
    {
      nodeType,
      selfSize,
      firstEdge,
      edgeTarget: e === maxEdges ? edgeTarget : trimmed(edgeTarget, e, sharedMemory),
      addressWords,
      nodeFlags,
      generation,
      rootIndex: n,
      types: { names: typeNames, modules: typeModules, sizes: new Int32Array(typeNames.length).fill(-1) },
      metadata,
      problems,
      edgeFieldName: e === maxEdges ? edgeField : edgeField.slice(0, e),
      fieldNames,
      ...(strings ?? {}),
      ...(fillFacts ? { fillFacts } : {}),
    },
    token,
  );
}

/** The first `length` entries of `col` in a new array (shared when `shared`), for the edge column after dropped references. */
function trimmed(col: Uint32Array, length: number, shared: boolean): Uint32Array {
  const out = newUint32Array(length, shared);
  out.set(col.subarray(0, length));
  return out;
}

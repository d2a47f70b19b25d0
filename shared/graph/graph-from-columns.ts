import { checkFillFacts, type FillFacts } from './fill-facts.js';
import { FormatError } from '../errors.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import { computeGenerations } from './generations.js';
import { checkGraphSize } from './graph-limits.js';
import type { HeapGraph } from './heap-graph.js';
import { GEN_UNKNOWN, NODE_UNDEFINED, NONE, type StringValueTable } from './heap-graph.js';
import type { SnapshotMetadata } from './metadata.js';
import type { ProblemList } from './problems.js';
import { pluralIsAre } from '../util/plural.js';

/**
 * A HeapGraph from columns a reader laid out itself, for readers that know every node before
 * they write any (the CF heap log reader resolves all ids at the end) and so can skip
 * HeapGraphBuilder's per-node calls and its CSR copy: on a 5M-object log those cost ~0.7 s.
 * HeapGraphBuilder.finish ends here too, so every reader's graph is frozen by this one function.
 * Generations: the reader's own, else from the metadata's segments.
 *
 * The reader owns the layout; this checks what a layout bug would break silently (CSR offsets,
 * edge targets and type indices in range) in one linear pass, and throws — these are programming
 * errors, not data problems, which the reader has already put in `problems`. Like the builder's
 * finish(), it counts nodes still flagged NODE_UNDEFINED as one 'undefined-node' problem.
 *
 * Cost: one pass over nodes and one over edges (~20 ms per 10M edges); no copies: the arrays
 * become the graph's. HeapGraphBuilder skips the re-checks (graphFromBuilderColumns).
 */
export interface GraphColumns {
  nodeType: Uint32Array;
  selfSize: Uint32Array;
  /** CSR offsets, nodeCount + 1. */
  firstEdge: Uint32Array;
  edgeTarget: Uint32Array;
  /** Address halves (lo, hi) per node: 2 × nodeCount words. */
  addressWords: Uint32Array;
  nodeFlags: Uint8Array;
  /** Per node when the reader knows it; null: from `metadata.segments` when present, else none (GEN_UNKNOWN). */
  generation: Uint8Array | null;
  /**
   * With `generation` null: a column of nodeCount bytes, all GEN_UNKNOWN, that becomes the
   * generation column (filled from the segments when there are any) instead of a new one: the
   * builder's own, already committed (and shared when its columns are, so a host that shares the
   * graph does not copy it).
   */
  unknownGenerations?: Uint8Array;
  rootIndex: number;
  types: { names: string[]; modules: (string | null)[]; sizes: ArrayLike<number> };
  metadata: SnapshotMetadata;
  problems: ProblemList;
  /** Optional per-edge field-name index into `fieldNames` (NONE: no name); see HeapGraph.edgeFieldName. */
  edgeFieldName?: Uint32Array;
  fieldNames?: string[];
  /** Optional per-node string value index (NONE: none); see HeapGraph.nodeStringValue. */
  nodeStringValue?: Uint32Array;
  stringValues?: StringValueTable;
  /** Optional fill facts of arrays and collections; see HeapGraph.fillFacts. */
  fillFacts?: FillFacts;
}

export function graphFromColumns(c: GraphColumns, token: CancellationToken = NEVER_CANCELLED): HeapGraph {
  return freezeColumns(c, token, false);
}

/**
 * graphFromColumns for HeapGraphBuilder.finish, which has already checked per reference and per
 * node what the linear pass re-checks (every edge target < nodeCount and type < typeCount as it
 * was stored, offsets non-decreasing by construction): it skips that pass over the edges and the
 * per-node range checks, a stream over 4 bytes per reference and 8 per node. The column lengths
 * and the offsets' two ends are still checked; other readers keep the full validation.
 */
export function graphFromBuilderColumns(c: GraphColumns, token: CancellationToken = NEVER_CANCELLED): HeapGraph {
  return freezeColumns(c, token, true);
}

function freezeColumns(c: GraphColumns, token: CancellationToken, builderChecked: boolean): HeapGraph {
  const n = c.nodeType.length;
  const e = c.edgeTarget.length;
  const typeCount = c.types.names.length;
  const bug = (what: string): never => {
    throw new FormatError('format/corrupt', `internal error assembling the graph: ${what}`);
  };
  if (n === 0) bug('no nodes');
  checkGraphSize(n, e);
  if (c.selfSize.length !== n || c.nodeFlags.length !== n || c.firstEdge.length !== n + 1 || c.addressWords.length !== 2 * n) bug('column lengths differ');
  if (c.generation && c.generation.length !== n) bug('generation column length');
  if (c.rootIndex < 0 || c.rootIndex >= n) bug(`root ${c.rootIndex} of ${n} nodes`);
  if (c.types.modules.length !== typeCount || c.types.sizes.length !== typeCount) bug('type table lengths differ');
  const { firstEdge, edgeTarget, nodeType, selfSize, nodeFlags } = c;
  if (firstEdge[0] !== 0 || firstEdge[n] !== e) bug('edge offsets do not span the edge column');
  if (c.edgeFieldName && (c.edgeFieldName.length !== e || !c.fieldNames)) bug('field-name column length');
  if (c.nodeStringValue) {
    const values = c.stringValues ?? bug('string value column without its table');
    const count = values.lengths.length;
    if (c.nodeStringValue.length !== n || values.textStart.length !== count || values.textEnd.length !== count) bug('string value column length');
    for (let v = 0; v < count; v++) if (values.textStart[v] > values.textEnd[v] || values.textEnd[v] > values.bytes.length) bug(`string value ${v} has bytes outside the pool`);
    for (let i = 0; i < n; i++) {
      if ((i & 0xffff) === 0) token.throwIfCancelled();
      if (c.nodeStringValue[i] !== NONE && c.nodeStringValue[i] >= count) bug(`node ${i} has string value ${c.nodeStringValue[i]}`);
    }
  }

  if (c.fillFacts) {
    const wrong = checkFillFacts(c.fillFacts, n, typeCount);
    if (wrong) bug(wrong);
  }

  let totalSize = 0;
  let undefinedCount = 0;
  if (builderChecked) {
    for (let i = 0; i < n; i++) {
      if ((i & 0xffff) === 0) token.throwIfCancelled();
      totalSize += selfSize[i];
      if (nodeFlags[i] & NODE_UNDEFINED) undefinedCount++;
    }
  } else {
    for (let i = 0; i < n; i++) {
      if ((i & 0xffff) === 0) token.throwIfCancelled();
      if (firstEdge[i + 1] < firstEdge[i]) bug(`edge offsets decrease at node ${i}`);
      if (nodeType[i] >= typeCount) bug(`node ${i} has type ${nodeType[i]} of ${typeCount}`);
      totalSize += selfSize[i];
      if (nodeFlags[i] & NODE_UNDEFINED) undefinedCount++;
    }
    for (let k = 0; k < e; k++) {
      if ((k & 0xfffff) === 0) token.throwIfCancelled();
      if (edgeTarget[k] >= n) bug(`edge ${k} targets node ${edgeTarget[k]} of ${n}`);
    }
  }
  if (undefinedCount > 0) {
    c.problems.addMany('undefined-node', undefinedCount, `${pluralIsAre(undefinedCount, 'node')} referenced but never described (shown as UNDEFINED, size 0)`);
  }
  const words = c.addressWords;
  const address = new BigUint64Array(words.buffer, words.byteOffset, n);
  const segments = c.metadata.segments && c.metadata.segments.length > 0 ? c.metadata.segments : null;
  const frozen = { nodeFlags, nodeType, typeNames: c.types.names };
  const spare = c.unknownGenerations !== undefined && c.unknownGenerations.length === n ? c.unknownGenerations : null;
  const generation = c.generation ?? (segments ? computeGenerations(address, segments, token, frozen, spare) : null);
  return {
    nodeCount: n,
    edgeCount: e,
    nodeType,
    selfSize,
    firstEdge,
    edgeTarget,
    address,
    nodeFlags,
    generation: generation ?? spare ?? new Uint8Array(n).fill(GEN_UNKNOWN),
    hasGenerationData: generation !== null,
    rootIndex: c.rootIndex,
    types: { count: typeCount, names: c.types.names, modules: c.types.modules, sizes: Int32Array.from(c.types.sizes) },
    metadata: c.metadata,
    problems: c.problems.snapshot(),
    totalSize,
    ...(c.edgeFieldName && c.fieldNames ? { edgeFieldName: c.edgeFieldName, fieldNames: c.fieldNames } : {}),
    ...(c.nodeStringValue && c.stringValues ? { nodeStringValue: c.nodeStringValue, stringValues: c.stringValues } : {}),
    ...(c.fillFacts ? { fillFacts: c.fillFacts } : {}),
  };
}

import type { HeapGraph } from '../graph/heap-graph.js';
import type { SnapshotMetadata } from '../graph/metadata.js';
import { FROZEN_GENERATION_NAME, GEN_FROZEN, GENERATION_NAMES, LOH_THRESHOLD, NODE_PSEUDO, NODE_UNDEFINED } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';

/**
 * Objects and bytes per GC generation (gen0, gen1, gen2, LOH, POH, unknown, frozen (non-GC heap)),
 * overall and per type. The frozen column holds objects on the runtime's frozen segments, outside
 * the GC heap (see computeGenerations); it comes last so the other columns keep their indices.
 *
 * Only heap objects count: the root, root categories and undefined slots are neither in a
 * generation nor objects. A pseudo-node is recognised by NODE_PSEUDO or, for readers that do not
 * flag them, by address 0 with size 0 (address 0 alone is not enough: CF heap logs may omit
 * addresses of real objects).
 *
 * Many files carry no generation data (dotnet-gcdump never writes segments, so every object would
 * land in "unknown"). Then the result says so plainly and carries no per-generation numbers;
 * what can still be said is which objects are large enough to live in the LOH (≥ 85,000 bytes,
 * the runtime's threshold), reported as "LOH by size".
 *
 * Cost: one pass over the nodes (O(N)), 112 bytes per type for the per-type table.
 */

/** Column index of "unknown" in the per-type table: generations 0–4 are 0–4. */
export const GEN_COLUMN_UNKNOWN = 5;
/** Column index of "frozen (non-GC heap)". */
export const GEN_COLUMN_FROZEN = 6;
export const GEN_COLUMNS = 7;
export const GEN_COLUMN_NAMES = [...GENERATION_NAMES, 'unknown', FROZEN_GENERATION_NAME] as const;
export type GenerationName = (typeof GEN_COLUMN_NAMES)[number];

export const NO_GENERATION_DATA_MESSAGE = 'this file carries no generation data (dotnet-gcdump never writes it)';

/**
 * Why there is no generation data, worded by what the file is: dotnet-gcdump never writes GC
 * segments, PerfView writes them for some captures but never names itself in the file (so an
 * unnamed creator must not be called dotnet-gcdump), a trace lacks GCGenerationRange events, and a
 * Compact Framework heap log has no notion of them.
 */
export function noGenerationDataMessage(m: SnapshotMetadata): string {
  switch (m.format) {
    case 'gcdump':
      if (m.creationTool === 'dotnet-gcdump') return NO_GENERATION_DATA_MESSAGE;
      if (m.creationTool) return `this file carries no generation data (written by ${m.creationTool}, it lists no GC segments)`;
      return 'this file carries no generation data (it lists no GC segments; the file does not name the tool that wrote it)';
    case 'nettrace':
      return 'this trace carries no generation data (it has no GCGenerationRange events)';
    case 'cf-heaplog':
      return 'this heap log carries no generation data (Compact Framework heap logs do not record generations)';
    default:
      return 'this snapshot carries no generation data';
  }
}

export interface GenerationRow {
  name: GenerationName;
  count: number;
  bytes: number;
}

export interface GenerationBreakdown {
  hasGenerationData: boolean;
  /** Set when there is no generation data: say that instead of printing zeros. */
  message: string | null;
  /** Seven rows (gen0, gen1, gen2, LOH, POH, unknown, frozen (non-GC heap)) when the file has generation data, else null. */
  generations: GenerationRow[] | null;
  /** Per type × generation, index type·GEN_COLUMNS + column (GEN_COLUMN_NAMES order); null without generation data. */
  typeCount: Float64Array | null;
  typeBytes: Float64Array | null;
  /** Objects of at least LOH_THRESHOLD bytes, whatever the file says about generations. */
  largeBySize: { count: number; bytes: number; threshold: number };
  /** Heap objects counted (pseudo-nodes and undefined slots excluded). */
  objectCount: number;
  objectBytes: number;
}

export function generationBreakdown(g: HeapGraph, token: CancellationToken = NEVER_CANCELLED): GenerationBreakdown {
  const has = g.hasGenerationData;
  const { nodeType, selfSize, nodeFlags, generation } = g;
  const words = new Uint32Array(g.address.buffer, g.address.byteOffset, g.nodeCount * 2);
  const counts = new Float64Array(GEN_COLUMNS);
  const bytes = new Float64Array(GEN_COLUMNS);
  const typeCount = has ? new Float64Array(g.types.count * GEN_COLUMNS) : null;
  const typeBytes = has ? new Float64Array(g.types.count * GEN_COLUMNS) : null;
  let largeCount = 0;
  let largeBytes = 0;
  let objectCount = 0;
  let objectBytes = 0;
  for (let n = 0; n < g.nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    const f = nodeFlags[n];
    if (f & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
    const size = selfSize[n];
    if (size === 0 && words[2 * n] === 0 && words[2 * n + 1] === 0) continue;
    objectCount++;
    objectBytes += size;
    if (size >= LOH_THRESHOLD) {
      largeCount++;
      largeBytes += size;
    }
    if (!has) continue;
    const gen = generation[n];
    const col = gen < GENERATION_NAMES.length ? gen : gen === GEN_FROZEN ? GEN_COLUMN_FROZEN : GEN_COLUMN_UNKNOWN;
    counts[col]++;
    bytes[col] += size;
    const at = nodeType[n] * GEN_COLUMNS + col;
    typeCount![at]++;
    typeBytes![at] += size;
  }
  return {
    hasGenerationData: has,
    message: has ? null : noGenerationDataMessage(g.metadata),
    generations: has ? GEN_COLUMN_NAMES.map((name, i) => ({ name, count: counts[i], bytes: bytes[i] })) : null,
    typeCount,
    typeBytes,
    largeBySize: { count: largeCount, bytes: largeBytes, threshold: LOH_THRESHOLD },
    objectCount,
    objectBytes,
  };
}

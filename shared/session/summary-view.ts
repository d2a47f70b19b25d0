import type { HeapAnalysis } from '../analysis/analyze.js';
import { generationBreakdown, type GenerationBreakdown } from '../analysis/generation-breakdown.js';
import { rootCategories } from '../analysis/root-categories.js';
import { snapshotWarnings } from '../analysis/snapshot-warnings.js';
import type { TypeStats } from '../analysis/type-stats.js';
import type { AppErrorDto } from '../errors.js';
import type { AnalysisState, CodedMessage, FileEntry, GenerationRow, Generations, SessionId, SnapshotMetadataDto, SnapshotSummary } from '../ipc/contract.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import type { SnapshotMetadata } from '../graph/metadata.js';

/**
 * DTO builders for the summary panel and the generations view: small objects only, built from the
 * graph's metadata and the per-type statistics (never from per-node data).
 */

export interface SummaryInputs {
  sessionId: SessionId;
  file: FileEntry;
  parseMs: number;
  /** Facts found while loading that the graph does not show (e.g. no-heap-dump), shown as warnings. */
  notes?: readonly CodedMessage[];
  analysis: { state: AnalysisState; error: AppErrorDto | null; ms: number | null; result: HeapAnalysis | null };
}

/** The summary's copy of a graph's metadata (a plain object: it crosses the IPC boundary). */
export function metadataDto(m: SnapshotMetadata): SnapshotMetadataDto {
  return {
    format: m.format,
    formatVersion: m.formatVersion,
    creationTool: m.creationTool,
    processName: m.processName,
    processId: m.processId,
    machineName: m.machineName,
    timeCollected: m.timeCollected,
    pointerSize: m.pointerSize,
    averageCountMultiplier: m.averageCountMultiplier,
    averageSizeMultiplier: m.averageSizeMultiplier,
    totalProcessCommit: m.totalProcessCommit,
    totalProcessWorkingSet: m.totalProcessWorkingSet,
    declaredTotalSize: m.declaredTotalSize,
    extra: { ...m.extra },
  };
}

export function buildSummary(g: HeapGraph, stats: TypeStats, inp: SummaryInputs): SnapshotSummary {
  const metadata = metadataDto(g.metadata);
  let typeCount = 0;
  for (let t = 0; t < stats.count.length; t++) if (stats.count[t] > 0) typeCount++;
  const a = inp.analysis.result;
  const counts: Record<string, number> = {};
  for (const [k, v] of Object.entries(g.problems.counts)) if (v !== undefined) counts[k] = v;
  return {
    sessionId: inp.sessionId,
    file: inp.file,
    metadata,
    nodeCount: g.nodeCount,
    edgeCount: g.edgeCount,
    typeCount,
    objects: { count: stats.objectCount, size: stats.objectSize },
    estimated: { count: stats.scaledObjectCount, size: stats.scaledObjectSize },
    sampled: stats.sampled,
    hasGenerations: g.hasGenerationData,
    rootsByCategory: rootCategories(g).byCategory.map((c) => ({ category: c.category, count: c.count })),
    warnings: [...(inp.notes ?? []), ...snapshotWarnings(g).map((w) => ({ code: w.code, message: w.message }))],
    problems: { total: g.problems.total, counts, entries: g.problems.entries.map((p) => ({ code: p.code, message: p.message })) },
    analysis: { state: inp.analysis.state, error: inp.analysis.error, ms: inp.analysis.ms },
    // objects only: the analysis' reachableCount / unreachableCount count nodes
    reachable: a ? { count: a.reachableObjectCount, size: a.reachableSize } : null,
    unreachable: a ? { count: a.unreachableObjectCount - a.unreachableFrozenCount, size: a.unreachableObjectSize - a.unreachableFrozenSize } : null,
    unreachableFrozen: a ? { count: a.unreachableFrozenCount, size: a.unreachableFrozenSize } : null,
    pseudoNodeCount: stats.pseudoNodeCount,
    undefinedNodeCount: stats.undefinedNodeCount,
    parseMs: inp.parseMs,
  };
}

/** Generation rows with the `top` largest types per generation (by bytes, ties by type index). */
export function buildGenerations(g: HeapGraph, b: GenerationBreakdown, top: number): Generations {
  const rows: GenerationRow[] = [];
  if (b.generations && b.typeCount && b.typeBytes) {
    const cols = b.generations.length;
    const tc = g.types.count;
    for (let c = 0; c < cols; c++) {
      const gen = b.generations[c];
      const ids: number[] = [];
      for (let t = 0; t < tc; t++) if (b.typeCount[t * cols + c] > 0) ids.push(t);
      ids.sort((x, y) => b.typeBytes![y * cols + c] - b.typeBytes![x * cols + c] || x - y);
      rows.push({
        generation: gen.name,
        count: gen.count,
        size: gen.bytes,
        sizePercent: b.objectBytes > 0 ? (gen.bytes / b.objectBytes) * 100 : 0,
        topTypes: ids.slice(0, top).map((t) => ({ typeIndex: t, type: g.types.names[t], count: b.typeCount![t * cols + c], size: b.typeBytes![t * cols + c] })),
      });
    }
  }
  return {
    hasData: b.hasGenerationData,
    message: b.message,
    rows,
    largeBySize: { count: b.largeBySize.count, size: b.largeBySize.bytes, threshold: b.largeBySize.threshold },
    objects: { count: b.objectCount, size: b.objectBytes },
  };
}

export { generationBreakdown };

import type { HeapGraph } from '../graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../graph/heap-graph.js';
import { isSampled } from '../graph/metadata.js';
import { pluralIsAre, pluralWasWere } from '../util/plural.js';

/**
 * Things a reader of the numbers must know before trusting them: a sampled dump (counts are
 * estimates), a dump that dotnet-gcdump cut off at its node cap, undefined nodes, a declared
 * total that disagrees with the nodes, and data problems found while reading.
 *
 * Warnings are facts about the snapshot, not errors: the snapshot still opens.
 */
export type SnapshotWarningCode = 'sampled' | 'node-cap' | 'undefined-nodes' | 'size-mismatch' | 'problems' | 'dependent-roots';

export interface SnapshotWarning {
  code: SnapshotWarningCode;
  message: string;
}

/**
 * dotnet-gcdump stops adding object nodes once its graph holds this many nodes, silently
 * (gcdump spec §5.6): a file at or above it is missing objects.
 */
export const DOTNET_GCDUMP_NODE_CAP = 10_000_000;

const fmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

export function snapshotWarnings(g: HeapGraph): SnapshotWarning[] {
  const out: SnapshotWarning[] = [];
  const m = g.metadata;
  if (isSampled(m)) {
    const how = m.countMultipliersByType ? 'per-type multipliers' : 'average multipliers';
    out.push({
      code: 'sampled',
      message:
        `sampled dump: only part of the heap was saved; counts and sizes are scaled by ${how} ` +
        `(mean count multiplier ${fmt.format(m.averageCountMultiplier)}, mean size multiplier ${fmt.format(m.averageSizeMultiplier)})`,
    });
  }
  if (m.creationTool === 'dotnet-gcdump' && g.nodeCount >= DOTNET_GCDUMP_NODE_CAP) {
    out.push({
      code: 'node-cap',
      message: `truncated: dotnet-gcdump stops at 10M nodes (this file has ${fmt.format(g.nodeCount)}); objects beyond the cap are missing`,
    });
  }
  let undefinedCount = 0;
  const flags = g.nodeFlags;
  for (let i = 0; i < g.nodeCount; i++) if (flags[i] & NODE_UNDEFINED) undefinedCount++;
  if (undefinedCount > 0) {
    out.push({
      code: 'undefined-nodes',
      message: `${pluralIsAre(undefinedCount, 'node')} referenced but never described (shown as UNDEFINED, size 0, not counted as objects)`,
    });
  }
  if (m.declaredTotalSize !== null && m.declaredTotalSize !== g.totalSize) {
    out.push({
      code: 'size-mismatch',
      message: `the file declares a total size of ${fmt.format(m.declaredTotalSize)} bytes but its nodes add up to ${fmt.format(g.totalSize)}`,
    });
  }
  const dependentRoots = dependentHandleRoots(g);
  if (dependentRoots > 0) {
    out.push({
      code: 'dependent-roots',
      message:
        dependentRoots === 1
          ? '1 ConditionalWeakTable value is a root under [Dependent Handles]: this file does not say which key keeps it alive ' +
            '(dotnet-gcdump does not record it), so it counts as retained by the roots, not by its key'
          : `${fmt.format(dependentRoots)} ConditionalWeakTable values are roots under [Dependent Handles]: this file does not say which key ` +
            `keeps each one alive (dotnet-gcdump does not record it), so they count as retained by the roots, not by their keys`,
    });
  }
  if (g.problems.total > 0) {
    out.push({ code: 'problems', message: `${pluralWasWere(g.problems.total, 'data problem')} found while reading (see problems)` });
  }
  return out;
}

/**
 * References out of "[Dependent Handles]" pseudo-nodes: values of dependent handles kept as roots.
 * A trace (and our .gcdump of it) has a key → value reference instead and an empty category,
 * except for a value whose key is no object of the walk. Cost: one pass over the type names and
 * one over the nodes' types.
 */
function dependentHandleRoots(g: HeapGraph): number {
  const t = g.types.names.indexOf('[Dependent Handles]');
  if (t < 0) return 0;
  let n = 0;
  const { nodeType, nodeFlags, firstEdge } = g;
  for (let i = 0; i < g.nodeCount; i++) if (nodeType[i] === t && nodeFlags[i] & NODE_PSEUDO) n += firstEdge[i + 1] - firstEdge[i];
  return n;
}

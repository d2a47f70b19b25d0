import { shortestPathTree, type ShortestPathTree } from '../../../shared/analysis/paths-to-roots.js';
import { buildRetainers, type Retainers } from '../../../shared/analysis/retainers.js';
import { summarizeTypes, type TypeSummary } from '../../../shared/analysis/type-summary.js';
import type { CancellationToken } from '../../../shared/util/cancellation.js';
import { UsageError } from '../args.js';
import type { AnalyzedSnapshot } from '../analyzed-snapshot.js';
import { findByAddress, parseAddress } from '../commands/paths.js';
import { buildReportRows, type ReportRow } from '../commands/report.js';

/**
 * One snapshot as its own worker thread holds it (snapshot-worker.ts): the graph and dominator
 * analysis (about 50 bytes per object plus 8 per reference), and what only some tools need, built
 * on first use and kept: the shortest-path tree and retainer index (paths_to_roots; about 12 bytes
 * per object + 4 per reference), the per-type rows (top_types) and the per-name summary (diff).
 * Nothing here crosses to the main thread but the tools' JSON answers.
 */
export interface OpenSnapshot extends AnalyzedSnapshot {
  /** The id the main thread gave it ("s1"); set on each query, since it is given only once the open succeeded. */
  id: string;
  /** The path as given to open_snapshot. */
  path: string;
  cache: {
    spt?: ShortestPathTree;
    retainers?: Retainers;
    report?: { rows: ReportRow[]; sampled: boolean; objects: number; bytes: number };
    summary?: TypeSummary;
  };
}

/** The BFS shortest-path tree and the retainer index, built once per snapshot (a cancelled build leaves nothing cached). */
export function pathIndexOf(s: OpenSnapshot, token?: CancellationToken): { spt: ShortestPathTree; retainers: Retainers } {
  s.cache.spt ??= shortestPathTree(s.graph, { token });
  s.cache.retainers ??= buildRetainers(s.graph, token);
  return { spt: s.cache.spt, retainers: s.cache.retainers };
}

/** `heapscope report`'s rows (every type), built once per snapshot from the loaded analysis. */
export function reportOf(s: OpenSnapshot): NonNullable<OpenSnapshot['cache']['report']> {
  s.cache.report ??= buildReportRows(s.graph, s.analysis.typeRetained, s.analysis);
  return s.cache.report;
}

/** The per-name summary `heapscope diff` compares, built once per snapshot. */
export function summaryOf(s: OpenSnapshot, token?: CancellationToken): TypeSummary {
  s.cache.summary ??= summarizeTypes(s.graph, s.analysis, s.name, token);
  return s.cache.summary;
}

/** The object at a hex address (`paths --address`'s rules), or a usage error worded for the tools' `address` argument. */
export function nodeAtAddress(s: OpenSnapshot, address: string): number {
  if (!/^(0x)?[0-9a-f]{1,16}$/i.test(address)) throw new UsageError(`address must be hex like 0x7f3a2c10 (got "${address}")`);
  const { lo, hi } = parseAddress(address);
  const node = findByAddress(s.graph, lo, hi);
  if (node < 0) throw new UsageError(`no object at address ${address} in ${s.name}`);
  return node;
}

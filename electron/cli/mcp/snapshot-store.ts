import { shortestPathTree, type ShortestPathTree } from '../../../shared/analysis/paths-to-roots.js';
import { buildRetainers, type Retainers } from '../../../shared/analysis/retainers.js';
import { summarizeTypes, type TypeSummary } from '../../../shared/analysis/type-summary.js';
import { AppError } from '../../../shared/errors.js';
import type { ProgressSink } from '../../../shared/util/progress.js';
import { pluralIsAre } from '../../../shared/util/plural.js';
import { UsageError } from '../args.js';
import { loadAnalyzed, type AnalyzedSnapshot } from '../analyzed-snapshot.js';
import { findByAddress, parseAddress } from '../commands/paths.js';
import type { Writer } from '../output.js';
import { buildReportRows, type ReportRow } from '../commands/report.js';

/**
 * The snapshots `heapscope mcp` holds open, by id ("s1", "s2", …).
 *
 * A snapshot stays loaded (graph + dominator analysis, about 50 bytes per object plus 8 per
 * reference) until close_snapshot or the end of the session, so an assistant's follow-up
 * questions cost no reload. What only some tools need is built on first use and kept: the
 * shortest-path tree and retainer index (paths_to_roots; about 12 bytes per object + 4 per
 * reference), the per-type rows (top_types) and the per-name summary (diff). At most `maxOpen`
 * snapshots are open at once: one more is the coded error `mcp/too-many-snapshots`, so a chatty
 * assistant cannot exhaust memory by opening every file it sees.
 */
export interface OpenSnapshot extends AnalyzedSnapshot {
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

export const DEFAULT_MAX_OPEN = 4;

export class SnapshotStore {
  private readonly open = new Map<string, OpenSnapshot>();
  private nextId = 1;
  /** Loads under way count against the limit too (two concurrent opens cannot both pass it). */
  private loading = 0;

  constructor(
    readonly maxOpen: number,
    private readonly stderr: Writer,
  ) {}

  async openFile(path: string, select?: string, progress?: ProgressSink): Promise<OpenSnapshot> {
    const held = this.open.size + this.loading;
    if (held >= this.maxOpen) {
      const what = `${pluralIsAre(held, 'snapshot')} open${this.loading > 0 ? ' or opening' : ''}`;
      throw new AppError('mcp/too-many-snapshots', `${what} (the limit is ${this.maxOpen}): close one with close_snapshot first`, { open: held, limit: this.maxOpen });
    }
    this.loading++;
    try {
      const s = await loadAnalyzed(path, this.stderr, { select, progress });
      const id = `s${this.nextId++}`;
      const snap: OpenSnapshot = { ...s, id, path, cache: {} };
      this.open.set(id, snap);
      return snap;
    } finally {
      this.loading--;
    }
  }

  get(id: string): OpenSnapshot {
    const s = this.open.get(id);
    if (!s) throw unknownSnapshot(id, [...this.open.keys()]);
    return s;
  }

  close(id: string): OpenSnapshot {
    const s = this.get(id);
    this.open.delete(id);
    return s;
  }

  list(): OpenSnapshot[] {
    return [...this.open.values()];
  }
}

function unknownSnapshot(id: string, open: string[]): AppError {
  const which = open.length ? `open: ${open.join(', ')}` : 'none is open; call open_snapshot first';
  return new AppError('session/not-found', `no open snapshot "${id}" (${which})`, { snapshot: id });
}

/** The BFS shortest-path tree and the retainer index, built once per snapshot. */
export function pathIndexOf(s: OpenSnapshot): { spt: ShortestPathTree; retainers: Retainers } {
  s.cache.spt ??= shortestPathTree(s.graph);
  s.cache.retainers ??= buildRetainers(s.graph);
  return { spt: s.cache.spt, retainers: s.cache.retainers };
}

/** `heapscope report`'s rows (every type), built once per snapshot from the loaded analysis. */
export function reportOf(s: OpenSnapshot): NonNullable<OpenSnapshot['cache']['report']> {
  s.cache.report ??= buildReportRows(s.graph, s.analysis.typeRetained, s.analysis);
  return s.cache.report;
}

/** The per-name summary `heapscope diff` compares, built once per snapshot. */
export function summaryOf(s: OpenSnapshot): TypeSummary {
  s.cache.summary ??= summarizeTypes(s.graph, s.analysis, s.name);
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

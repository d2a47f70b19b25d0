import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { renderSuspectsMarkdown } from '../../../shared/analysis/suspects/render-markdown.js';
import {
  buildSuspectsReport,
  DEFAULT_FINDINGS_PER_KIND,
  DEFAULT_MAX_SUSPECTS,
  DEFAULT_THRESHOLD_PERCENT,
  MAX_PATH_STEPS,
  suspectsBaselineOf,
  type SuspectsBaseline,
} from '../../../shared/analysis/suspects/suspects-report.js';
import type { CancellationToken } from '../../../shared/util/cancellation.js';
import type { OpenSnapshot } from './loaded-snapshot.js';
import type { SnapshotStore } from './snapshot-store.js';
import { guarded, SNAPSHOT_ARG } from './tool-result.js';

/**
 * suspects: the leak-suspects report of `heapscope suspects` for an open snapshot (and, with a
 * baseline, growth). Its size is bounded by the report itself, not by paging: at most
 * DEFAULT_MAX_SUSPECTS suspects, each with one path of at most MAX_PATH_STEPS steps, and
 * DEFAULT_FINDINGS_PER_KIND findings per inspection kind, so the answer does not grow with the heap.
 * The baseline is reduced to its per-type and per-field figures (suspectsBaselineOf) on each call:
 * one O(nodes) pass over the baseline's graph in the baseline's worker, sent to the snapshot's worker.
 */
const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

interface SuspectsArgs {
  snapshot: string;
  baseline?: string;
  thresholdPercent?: number;
  format?: 'json' | 'md';
}

export function registerSuspectsTool(server: McpServer, store: SnapshotStore): void {
  server.registerTool(
    'suspects',
    {
      title: 'Leak-suspects report',
      description:
        'The leak-suspects report of `heapscope suspects` (format json: the same fields as `--format json`, plus snapshot; format md: ' +
        '{snapshot, markdown} with the text of `--format md`). summary (objects, reachable / unreachable bytes); suspects: the top-most heap ' +
        'objects of the dominator tree retaining at least thresholdPercent % of the reachable bytes each (at most ' +
        `${DEFAULT_MAX_SUSPECTS}), each with its accumulation point (heuristic: from the suspect, step to the largest dominator-tree child while ` +
        'it retains at least 70% of the current object) and its shortest path from a root (at most ' +
        `${MAX_PATH_STEPS} steps; elidedSteps says how many were cut from the middle); findings: the ${DEFAULT_FINDINGS_PER_KIND} largest per ` +
        'inspection kind (as the inspections tool); generations; growth when baseline is given. Sizes in bytes, retained sizes exact.',
      inputSchema: {
        snapshot: SNAPSHOT_ARG,
        baseline: z.string().optional().describe('Snapshot id of an earlier snapshot of the same process: adds growth.'),
        thresholdPercent: z
          .number()
          .gt(0)
          .max(100)
          .optional()
          .describe(`A suspect retains at least this percentage of the reachable bytes (default ${DEFAULT_THRESHOLD_PERCENT}).`),
        format: z.enum(['json', 'md']).optional().describe('json (default): the report as data; md: the report as Markdown text.'),
      },
      annotations: READ_ONLY,
    },
    guarded(async (a: SuspectsArgs, extra) => {
      store.get(a.snapshot); // an unknown id is the error, before any baseline work
      const baseline = a.baseline === undefined ? null : await store.query<SuspectsBaseline>(a.baseline, 'suspects_baseline', {}, extra.signal);
      return store.query(a.snapshot, 'suspects', { ...a, baseline }, extra.signal);
    }),
  );
}

/** suspects, in the snapshot's worker. */
export function suspectsQuery(s: OpenSnapshot, a: Omit<SuspectsArgs, 'baseline'> & { baseline: SuspectsBaseline | null }, token: CancellationToken) {
  const report = buildSuspectsReport(s.graph, s.analysis, { fileName: s.name, thresholdPercent: a.thresholdPercent ?? DEFAULT_THRESHOLD_PERCENT, baseline: a.baseline, token });
  return a.format === 'md' ? { snapshot: s.id, markdown: renderSuspectsMarkdown(report) } : { snapshot: s.id, ...report };
}

/** A baseline snapshot reduced for another snapshot's suspects report. */
export function suspectsBaselineQuery(s: OpenSnapshot): SuspectsBaseline {
  return suspectsBaselineOf(s.graph, s.analysis, s.name);
}

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { changedRows, diffSummaries, DIFF_SORT_KEYS, sortDiffRows, type DiffSortKey } from '../../../shared/analysis/diff.js';
import { childRange } from '../../../shared/analysis/dominator-tree.js';
import { isPseudo } from '../../../shared/analysis/paths-to-roots.js';
import { formatAddress } from '../../../shared/graph/heap-graph.js';
import { UsageError } from '../args.js';
import { percentOf } from '../analyzed-snapshot.js';
import { filterReportRows, reportColumns, REPORT_SORTS, sortReportRows, type ReportSort } from '../commands/report.js';
import { jsonObject } from '../output.js';
import type { CancellationToken } from '../../../shared/util/cancellation.js';
import type { TypeSummary } from '../../../shared/analysis/type-summary.js';
import { nodeAtAddress, reportOf, summaryOf, type OpenSnapshot } from './loaded-snapshot.js';
import type { SnapshotStore } from './snapshot-store.js';
import { guarded, pageArgs, pagedNote, pageOf, SNAPSHOT_ARG } from './tool-result.js';

/**
 * top_types, dominators and diff: `heapscope report`, `dominators` and `diff` as paged tools.
 * Rows carry the CLI's JSON field names and values (the integration test compares them).
 * The handlers run on the main thread and send the work to the snapshot's worker (the *Query
 * functions below run there); diff asks both snapshots' workers for their per-type summaries at
 * once and compares them here (O(types), not O(objects)).
 */
const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

export function registerTableTools(server: McpServer, store: SnapshotStore): void {
  server.registerTool(
    'top_types',
    {
      title: 'Types by retained size, size or count',
      description:
        'The type table of a snapshot (as `heapscope report --format json`), one row per type: count (heap objects), shallowSize (Σ own bytes), ' +
        'retainedSize (type retained size: Σ exact dominator-tree retained bytes of the instances that no other instance of the type dominates, ' +
        'reachable instances only; what instances keep alive only jointly is not in it), unreachableCount / unreachableSize (instances no root ' +
        'reaches and their bytes), scaledCount / scaledShallowSize (estimates of the real heap for a sampled .gcdump, else null), module. ' +
        'sort: retained, size (shallow bytes), count, or name (size and count use the scaled estimates for a sampled dump). filter: case-insensitive substring of the type name.' +
        pagedNote(20, 500),
      inputSchema: {
        snapshot: SNAPSHOT_ARG,
        sort: z.enum(REPORT_SORTS).optional().describe('retained (default), size, count or name.'),
        filter: z.string().optional().describe('Keep types whose name contains this text (case-insensitive).'),
        ...pageArgs(20, 500),
      },
      annotations: READ_ONLY,
    },
    guarded((a: TopTypesArgs, extra) => store.query(a.snapshot, 'top_types', a, extra.signal)),
  );

  server.registerTool(
    'dominators',
    {
      title: 'Dominator tree children',
      description:
        'The children of one node in the exact dominator tree, largest retained size first (ties by node id), paged. A node\'s children are the ' +
        'objects it alone keeps alive directly: retainedSize = bytes freed if that object went away (its own shallowSize plus every object only it ' +
        'keeps reachable). node: a node id from this tool, paths_to_roots or inspections, or address: an object\'s hex address (default: the ' +
        'root, whose retainedSize is every reachable byte). Each row: node, type, address (hex; "0x0" for pseudo-nodes such as root categories), shallowSize, retainedSize, percentOfReachable ' +
        '(retainedSize / reachable bytes × 100, 2 decimals), pseudo, childCount (its own dominator-tree children). The same rows as `heapscope dominators --format json`.' +
        pagedNote(20, 200),
      inputSchema: {
        snapshot: SNAPSHOT_ARG,
        node: z.number().int().min(0).optional().describe('Node id whose children to list (default: the root).'),
        address: z.string().optional().describe('Or the object at this hex address (0x…).'),
        ...pageArgs(20, 200),
      },
      annotations: READ_ONLY,
    },
    guarded((a: DominatorsArgs, extra) => store.query(a.snapshot, 'dominators', a, extra.signal)),
  );

  server.registerTool(
    'diff',
    {
      title: 'Compare two snapshots per type',
      description:
        'What changed between two open snapshots of one process, per type name (as `heapscope diff BASE NEW --format json`): base/new count, ' +
        'shallow bytes and type retained bytes, and their deltas (new − base); status both / added / removed. total: whole-heap counts and shallow ' +
        'bytes, and retained = bytes reachable from the roots. Rows are the types that changed (all: every type), sorted by growth of sort ' +
        '(retained default, shallow, count; name ascending), largest first.' + pagedNote(20, 500),
      inputSchema: {
        base: SNAPSHOT_ARG.describe('Snapshot id of the earlier snapshot.'),
        new: SNAPSHOT_ARG.describe('Snapshot id of the later snapshot.'),
        sort: z.enum(DIFF_SORT_KEYS).optional().describe('retained (default), shallow, count or name.'),
        all: z.boolean().optional().describe('List unchanged types too (default false).'),
        ...pageArgs(20, 500),
      },
      annotations: READ_ONLY,
    },
    guarded(async (a: { base: string; new: string; sort?: DiffSortKey; all?: boolean; offset?: number; limit?: number }, extra) => {
      const [base, next] = await Promise.all([store.query<TypeSummary>(a.base, 'type_summary', {}, extra.signal), store.query<TypeSummary>(a.new, 'type_summary', {}, extra.signal)]);
      const d = diffSummaries(base, next);
      const listed = sortDiffRows(a.all ? d.rows : changedRows(d.rows), a.sort ?? 'retained');
      const page = pageOf(listed, a.offset, a.limit, 20, ({ name, ...rest }) => ({ type: name, ...rest }));
      return { base: d.base, new: d.next, total: d.total, added: d.added, removed: d.removed, ...page };
    }),
  );
}

interface TopTypesArgs {
  snapshot: string;
  sort?: ReportSort;
  filter?: string;
  offset?: number;
  limit?: number;
}

/** top_types, in the snapshot's worker. */
export function topTypesQuery(s: OpenSnapshot, { sort, filter, offset, limit }: TopTypesArgs) {
  const report = reportOf(s);
  const cols = reportColumns('json', report.sampled);
  const rows = sortReportRows(filterReportRows([...report.rows], filter), sort ?? 'retained', report.sampled);
  return { snapshot: s.id, sort: sort ?? 'retained', reachableBytes: s.analysis.reachableSize, ...pageOf(rows, offset, limit, 20, (r) => jsonObject(r, cols)) };
}

interface DominatorsArgs {
  snapshot: string;
  node?: number;
  address?: string;
  offset?: number;
  limit?: number;
}

/** dominators, in the snapshot's worker: a page of one node's children (already sorted by the analysis). */
export function dominatorsQuery(s: OpenSnapshot, { node, address, offset, limit }: DominatorsArgs) {
  const parent = parentNode(s, node, address);
  const { start, end } = childRange(s.analysis, parent);
  const children = s.analysis.domChildren.subarray(start, end);
  const page = pageOf(children, offset, limit, 20, (n) => dominatorRow(s, n));
  return { snapshot: s.id, parent: dominatorRow(s, parent), reachable: s.analysis.reachable[parent] === 1, ...page };
}

/** diff's half in a worker: the snapshot's per-type summary (cached), structured-cloned to the main thread. */
export function typeSummaryQuery(s: OpenSnapshot, _args: unknown, token: CancellationToken): TypeSummary {
  return summaryOf(s, token);
}

/** The node named by `node` or `address` (not both), else the root. */
function parentNode(s: OpenSnapshot, node: number | undefined, address: string | undefined): number {
  if (node !== undefined && address !== undefined) throw new UsageError('give node or address, not both');
  if (address !== undefined) return nodeAtAddress(s, address);
  if (node === undefined) return s.graph.rootIndex;
  if (node >= s.graph.nodeCount) throw new UsageError(`no node ${node} (the snapshot has ${s.graph.nodeCount} nodes)`);
  return node;
}

function dominatorRow(s: OpenSnapshot, n: number) {
  const g = s.graph;
  const a = s.analysis;
  const { start, end } = childRange(a, n);
  return {
    node: n,
    type: g.types.names[g.nodeType[n]],
    address: formatAddress(g, n),
    shallowSize: g.selfSize[n],
    retainedSize: a.retainedSize[n],
    percentOfReachable: percentOf(a.retainedSize[n], a.reachableSize),
    pseudo: isPseudo(g, n),
    childCount: end - start,
  };
}

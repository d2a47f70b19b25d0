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
import { nodeAtAddress, reportOf, summaryOf, type OpenSnapshot, type SnapshotStore } from './snapshot-store.js';
import { guarded, pageArgs, pageOf, SNAPSHOT_ARG } from './tool-result.js';

/**
 * top_types, dominators and diff: `heapscope report`, `dominators` and `diff` as paged tools.
 * Rows carry the CLI's JSON field names and values (the integration test compares them).
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
        'sort: retained, size (shallow bytes), count, or name (size and count use the scaled estimates for a sampled dump). filter: case-insensitive substring of the type name. Paged.',
      inputSchema: {
        snapshot: SNAPSHOT_ARG,
        sort: z.enum(REPORT_SORTS).optional().describe('retained (default), size, count or name.'),
        filter: z.string().optional().describe('Keep types whose name contains this text (case-insensitive).'),
        ...pageArgs(20, 500),
      },
      annotations: READ_ONLY,
    },
    guarded(({ snapshot, sort, filter, offset, limit }: { snapshot: string; sort?: ReportSort; filter?: string; offset?: number; limit?: number }) => {
      const s = store.get(snapshot);
      const report = reportOf(s);
      const cols = reportColumns('json', report.sampled);
      const rows = sortReportRows(filterReportRows([...report.rows], filter), sort ?? 'retained', report.sampled);
      return { snapshot: s.id, sort: sort ?? 'retained', reachableBytes: s.analysis.reachableSize, ...pageOf(rows, offset, limit, 20, (r) => jsonObject(r, cols)) };
    }),
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
        '(retainedSize / reachable bytes × 100, 2 decimals), pseudo, childCount (its own dominator-tree children). The same rows as `heapscope dominators --format json`.',
      inputSchema: {
        snapshot: SNAPSHOT_ARG,
        node: z.number().int().min(0).optional().describe('Node id whose children to list (default: the root).'),
        address: z.string().optional().describe('Or the object at this hex address (0x…).'),
        ...pageArgs(20, 200),
      },
      annotations: READ_ONLY,
    },
    guarded(({ snapshot, node, address, offset, limit }: { snapshot: string; node?: number; address?: string; offset?: number; limit?: number }) => {
      const s = store.get(snapshot);
      const parent = parentNode(s, node, address);
      const { start, end } = childRange(s.analysis, parent);
      const children = s.analysis.domChildren.subarray(start, end);
      const page = pageOf(children, offset, limit, 20, (n) => dominatorRow(s, n));
      return { snapshot: s.id, parent: dominatorRow(s, parent), reachable: s.analysis.reachable[parent] === 1, ...page };
    }),
  );

  server.registerTool(
    'diff',
    {
      title: 'Compare two snapshots per type',
      description:
        'What changed between two open snapshots of one process, per type name (as `heapscope diff BASE NEW --format json`): base/new count, ' +
        'shallow bytes and type retained bytes, and their deltas (new − base); status both / added / removed. total: whole-heap counts and shallow ' +
        'bytes, and retained = bytes reachable from the roots. Rows are the types that changed (all: every type), sorted by growth of sort ' +
        '(retained default, shallow, count; name ascending), largest first. Paged.',
      inputSchema: {
        base: SNAPSHOT_ARG.describe('Snapshot id of the earlier snapshot.'),
        new: SNAPSHOT_ARG.describe('Snapshot id of the later snapshot.'),
        sort: z.enum(DIFF_SORT_KEYS).optional().describe('retained (default), shallow, count or name.'),
        all: z.boolean().optional().describe('List unchanged types too (default false).'),
        ...pageArgs(20, 500),
      },
      annotations: READ_ONLY,
    },
    guarded((a: { base: string; new: string; sort?: DiffSortKey; all?: boolean; offset?: number; limit?: number }) => {
      const d = diffSummaries(summaryOf(store.get(a.base)), summaryOf(store.get(a.new)));
      const listed = sortDiffRows(a.all ? d.rows : changedRows(d.rows), a.sort ?? 'retained');
      const page = pageOf(listed, a.offset, a.limit, 20, ({ name, ...rest }) => ({ type: name, ...rest }));
      return { base: d.base, new: d.next, total: d.total, added: d.added, removed: d.removed, ...page };
    }),
  );
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

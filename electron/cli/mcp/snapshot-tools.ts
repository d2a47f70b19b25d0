import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { buildInfo } from '../commands/info.js';
import type { OpenSnapshot } from './loaded-snapshot.js';
import type { SnapshotStore } from './snapshot-store.js';
import { guarded, progressOf, SNAPSHOT_ARG } from './tool-result.js';

/**
 * open_snapshot, summary and close_snapshot: the life of a snapshot in an MCP session.
 *
 * Every number is the one `heapscope info --format json` and `heapscope report` print for the
 * same file; the descriptions below are what an assistant reads to interpret them.
 */
const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

export function registerSnapshotTools(server: McpServer, store: SnapshotStore): void {
  server.registerTool(
    'open_snapshot',
    {
      title: 'Open a .NET heap snapshot',
      description:
        'Read a .NET heap snapshot (.gcdump, EventPipe .nettrace heap-walk trace, Compact Framework heap log, or a full process dump) ' +
        'and compute its exact dominator tree. Returns a snapshot id for the other tools, plus: objectCount (heap objects, pseudo-nodes not counted), ' +
        'totalSize (bytes of every node as read), reachableBytes (bytes reachable from the GC roots = retained size of the root). ' +
        `Snapshots stay loaded until close_snapshot; at most ${store.maxOpen} are open at once (error code mcp/too-many-snapshots). ` +
        'A file that cannot be read gives an error result with a code such as io/not-found, format/unknown or format/corrupt. ' +
        'Sends progress notifications (reading, dominators, retained, tree, types) when the request carries a progress token. ' +
        'Cancelling the request stops the read and frees its slot; other tools keep answering while a file opens.',
      inputSchema: {
        path: z.string().min(1).describe('Absolute path of the snapshot file.'),
        domain: z.string().optional().describe('Compact Framework heap logs only: the AppDomain section to open (name or index; default the first).'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async ({ path, domain }: { path: string; domain?: string }, extra) => {
      const s = await store.openFile(path, domain, progressOf(extra), extra.signal);
      return { snapshot: s.id, ...s.info, openSnapshots: store.list().map((o) => o.id) };
    }),
  );

  server.registerTool(
    'summary',
    {
      title: 'Snapshot summary',
      description:
        'What a snapshot is and its totals, all sizes in bytes: format, tool, pointer size; nodeCount, edgeCount, typeCount; objectCount (heap objects, ' +
        'pseudo-nodes and undefined nodes not counted); totalSize (Σ node sizes as read); reachableBytes / reachableObjects (what a GC root reaches; ' +
        'reachableBytes is the exact retained size of the root); unreachableObjects / unreachableBytes (garbage, weakly held, or frozen non-GC-heap ' +
        'objects without a root; unreachableFrozenObjects of them are frozen, never collected); sampled (a sampled .gcdump: scaled* estimate the real heap); ' +
        `rootsByCategory (root count per category; at most ${MAX_ROOT_CATEGORIES}, the most populous, when a file has more: rootsByCategoryOmitted then gives ` +
        'the categories and roots left out), process metadata, warnings about trusting the numbers, and the problem count. ' +
        'The same figures as `heapscope info --format json`.',
      inputSchema: { snapshot: SNAPSHOT_ARG },
      annotations: READ_ONLY,
    },
    guarded(({ snapshot }: { snapshot: string }, extra) => store.query(snapshot, 'summary', {}, extra.signal)),
  );

  server.registerTool(
    'close_snapshot',
    {
      title: 'Close a snapshot',
      description: 'Drop an open snapshot and its memory (its worker thread ends; a tool still running on it ends with an error). Returns the ids still open.',
      inputSchema: { snapshot: SNAPSHOT_ARG },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    guarded(({ snapshot }: { snapshot: string }) => {
      const s = store.close(snapshot);
      return { closed: s.id, file: s.name, openSnapshots: store.list().map((o) => o.id) };
    }),
  );
}

/** Root categories a summary lists; a file with more (an unusual producer, a crafted file) keeps the most populous. */
export const MAX_ROOT_CATEGORIES = 50;

/**
 * summary, in the snapshot's worker: `heapscope info`'s JSON plus the reachability totals of the analysis.
 * The root-category tree and problem messages are left out (they can be long); `rootsByCategory`
 * (capped at MAX_ROOT_CATEGORIES) and `problems.total` stay.
 */
export function summaryJson(s: OpenSnapshot): Record<string, unknown> {
  const { rootCategories: _tree, problems, ...info } = buildInfo(s);
  const a = s.analysis;
  const roots = info.rootsByCategory;
  const kept = roots.length > MAX_ROOT_CATEGORIES ? [...roots].sort((x, y) => y.count - x.count).slice(0, MAX_ROOT_CATEGORIES) : roots;
  const omitted = roots.length - kept.length;
  return {
    snapshot: s.id,
    ...info,
    rootsByCategory: kept,
    ...(omitted > 0 ? { rootsByCategoryOmitted: { categories: omitted, roots: roots.reduce((n, r) => n + r.count, 0) - kept.reduce((n, r) => n + r.count, 0) } } : {}),
    reachableObjects: a.reachableObjectCount,
    reachableBytes: a.reachableSize,
    unreachableObjects: a.unreachableObjectCount,
    unreachableBytes: a.unreachableObjectSize,
    unreachableFrozenObjects: a.unreachableFrozenCount,
    unreachableFrozenBytes: a.unreachableFrozenSize,
    problems: { total: problems.total, counts: problems.counts },
  };
}

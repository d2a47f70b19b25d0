import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { baselineOf, runInspections, type InspectionBaseline } from '../../../shared/analysis/inspections/index.js';
import { describePath, findRetentionPaths, type RetentionPath } from '../../../shared/analysis/paths-to-roots.js';
import { typePathTree, type TypePathBranch } from '../../../shared/analysis/type-path-tree.js';
import { GEN_FROZEN } from '../../../shared/graph/heap-graph.js';
import { UsageError } from '../args.js';
import { matchType } from '../commands/paths.js';
import type { CancellationToken } from '../../../shared/util/cancellation.js';
import { nodeAtAddress, pathIndexOf, type OpenSnapshot } from './loaded-snapshot.js';
import type { SnapshotStore } from './snapshot-store.js';
import { guarded, SNAPSHOT_ARG } from './tool-result.js';

/**
 * paths_to_roots and inspections: "why is it alive?" and "what looks like a leak?", as
 * `heapscope paths` and `heapscope inspect` answer them, with hard caps on the answer's size: a
 * path through a million-link list keeps its ends (the root side and the object's holders), a
 * type's merged path tree keeps its first branches (depth first, largest first).
 */
const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

/** Steps kept at the root end of a path cut by maxSteps; the rest of the budget goes to the target end. */
const ROOT_END_STEPS = 5;

interface PathsArgs {
  snapshot: string;
  address?: string;
  type?: string;
  maxPaths?: number;
  maxSteps?: number;
  depth?: number;
  breadth?: number;
  maxBranches?: number;
}

export function registerRetentionTools(server: McpServer, store: SnapshotStore): void {
  server.registerTool(
    'paths_to_roots',
    {
      title: 'Why is it alive? Paths from the GC roots',
      description:
        'Give exactly one of address or type. address (hex, e.g. "0x7f3a2c10"): the shortest path from the root to that object plus up to ' +
        'maxPaths−1 more distinct simple paths by length, over strong references only (weak handles never keep objects alive); each path: length ' +
        '(references), rootCategory / rootDetail (the root it enters through, e.g. "[static vars]"), steps root first, target last (node, typeName, ' +
        'address, selfSize bytes, pseudo, field where the dump names it). Steps beyond maxSteps are cut from the middle (omittedSteps says how many). ' +
        'truncated: the search budget ran out (more paths may exist). type (exact name, else a unique case-insensitive substring): the shortest ' +
        'path of every instance merged into a tree of type names from the instances up towards the root; count = instances whose path passes ' +
        'there, endsHere = paths reaching the root there, cutOff = not followed further (depth), omittedBranches / omittedCount = holders not ' +
        'listed (breadth or maxBranches). The same data as `heapscope paths --format json`. Size: at most maxPaths × maxSteps steps (address) ' +
        'or maxBranches branches (type). The first call on a snapshot builds its path index (one pass over every object and reference).',
      inputSchema: {
        snapshot: SNAPSHOT_ARG,
        address: z.string().optional().describe('Object address in hex (0x…).'),
        type: z.string().optional().describe('Type name (exact, or a substring matching one type name).'),
        maxPaths: z.number().int().min(1).max(20).optional().describe('address: paths wanted, the shortest included (default 3).'),
        maxSteps: z.number().int().min(10).max(1000).optional().describe('address: steps kept per path (default 60).'),
        depth: z.number().int().min(1).max(32).optional().describe('type: levels above the instances (default 10).'),
        breadth: z.number().int().min(1).max(20).optional().describe('type: holders listed per branch (default 5).'),
        maxBranches: z.number().int().min(1).max(1000).optional().describe('type: branches listed in all (default 50; each is about 130 characters of JSON).'),
      },
      annotations: READ_ONLY,
    },
    guarded((a: PathsArgs, extra) => {
      if ((a.address === undefined) === (a.type === undefined)) throw new UsageError('give exactly one of address or type');
      return store.query(a.snapshot, 'paths_to_roots', a, extra.signal);
    }),
  );

  server.registerTool(
    'inspections',
    {
      title: 'Known leak patterns (Insights)',
      description:
        'The findings of `heapscope inspect --format json`: event-handler leaks (objects kept alive only through delegate invocation lists of a ' +
        'long-lived publisher), timer-held objects, objects rooted only by the finalizer queue, accumulation points (a dominator whose retained ' +
        'size is large and made of many small objects; heuristic thresholds), large objects, statics holding the most memory, and with a baseline ' +
        'growth suspects. Each finding: kind, title, explanation, fix, objects (how many it names), bytes (exact retained size, counting no object ' +
        'twice within one inspection kind), shallowBytes, examples (node, address, type, retainedSize: use node with dominators, address with ' +
        'paths_to_roots), details. largeHeapShare: LOH/POH totals when the file has generation data. unavailable: inspections this file cannot run, and why. ' +
        'Size: at most top findings per kind, each with at most 3 examples.',
      inputSchema: {
        snapshot: SNAPSHOT_ARG,
        baseline: z.string().optional().describe('Snapshot id of an earlier snapshot of the same process: adds growth suspects.'),
        top: z.number().int().min(1).max(100).optional().describe('Findings kept per inspection kind, largest first (default 5).'),
      },
      annotations: READ_ONLY,
    },
    guarded(async (a: InspectionsArgs, extra) => {
      store.get(a.snapshot); // an unknown id is the error, before any baseline work
      const base = a.baseline === undefined ? null : await store.query<InspectionBaseline>(a.baseline, 'inspection_baseline', {}, extra.signal);
      return store.query(a.snapshot, 'inspections', { top: a.top, base }, extra.signal);
    }),
  );
}

interface InspectionsArgs {
  snapshot: string;
  baseline?: string;
  top?: number;
}

/** paths_to_roots, in the snapshot's worker (the path index is built there on first use, cancellable). */
export function pathsQuery(s: OpenSnapshot, a: PathsArgs, token: CancellationToken) {
  return a.address !== undefined ? objectPaths(s, a.address, a.maxPaths ?? 3, a.maxSteps ?? 60, token) : typePaths(s, a.type!, a.depth ?? 10, a.breadth ?? 5, a.maxBranches ?? 50, token);
}

/** inspections, in the snapshot's worker; `base` was made by the baseline snapshot's worker (inspectionBaselineQuery). */
export function inspectionsQuery(s: OpenSnapshot, { top, base }: { top?: number; base: InspectionBaseline | null }, token: CancellationToken) {
  const r = runInspections(s.graph, s.analysis, { baseline: base, top: top ?? 5, token });
  return { snapshot: s.id, file: s.name, baseline: base?.label ?? null, reachableBytes: s.analysis.reachableSize, findings: r.findings, largeHeapShare: r.largeHeapShare, unavailable: r.unavailable };
}

/** A baseline snapshot reduced to its per-type, per-static and big-retainer figures (one O(nodes) pass), for another snapshot's inspections. */
export function inspectionBaselineQuery(s: OpenSnapshot): InspectionBaseline {
  return baselineOf(s.graph, s.analysis, s.name);
}

function objectPaths(s: OpenSnapshot, address: string, maxPaths: number, maxSteps: number, token: CancellationToken) {
  const g = s.graph;
  const node = nodeAtAddress(s, address);
  const { spt, retainers } = pathIndexOf(s, token);
  const search = findRetentionPaths(g, node, spt, retainers, { maxPaths });
  return {
    target: describePath(g, [node]).steps[0],
    reachable: search.reachable,
    frozen: g.generation[node] === GEN_FROZEN,
    truncated: search.truncated,
    paths: search.paths.map((p) => capSteps(describePath(g, capNodes(p, maxSteps)), p.length, maxSteps)),
  };
}

/** The path's nodes, the middle cut out when longer than maxSteps (describePath allocates per step). */
function capNodes(p: Uint32Array, maxSteps: number): Uint32Array {
  if (p.length <= maxSteps) return p;
  const out = new Uint32Array(maxSteps);
  out.set(p.subarray(0, ROOT_END_STEPS));
  out.set(p.subarray(p.length - (maxSteps - ROOT_END_STEPS)), ROOT_END_STEPS);
  return out;
}

/** Restores the real length and says where steps were cut (a field on the step after the cut would be wrong: it is dropped). */
function capSteps(d: RetentionPath, nodes: number, maxSteps: number): RetentionPath & { omittedSteps?: number; omittedAfterStep?: number } {
  if (nodes <= maxSteps) return d;
  delete d.steps[ROOT_END_STEPS].field;
  return { ...d, length: nodes - 1, omittedSteps: nodes - maxSteps, omittedAfterStep: ROOT_END_STEPS - 1 };
}

function typePaths(s: OpenSnapshot, text: string, depth: number, breadth: number, maxBranches: number, token: CancellationToken) {
  const { names, mask } = matchType(s.graph, text);
  const { spt } = pathIndexOf(s, token);
  const { roots, ...counts } = typePathTree(s.graph, spt, mask, { maxDepth: depth, maxBreadth: breadth });
  const tree = capBranches(roots, maxBranches);
  // top-level branches (one per instance type name) past the budget: said, not silently lost
  return tree.length < roots.length ? { type: names[0], ...counts, tree, omittedRootBranches: roots.length - tree.length } : { type: names[0], ...counts, tree };
}

/**
 * At most `max` branches, depth first in listed order (largest first); a branch past the budget is
 * folded into its parent's omittedBranches / omittedCount, so every count still adds up. Walks the
 * output tree (at most depth × breadth per instance path, capped by typePathTree), not the heap.
 */
export function capBranches(roots: TypePathBranch[], max: number): TypePathBranch[] {
  let left = max;
  const keep = (list: TypePathBranch[], parent: TypePathBranch | null): TypePathBranch[] => {
    const kept: TypePathBranch[] = [];
    for (const b of list) {
      if (left <= 0) {
        if (parent) {
          parent.omittedBranches += 1;
          parent.omittedCount += b.count;
        }
        continue;
      }
      left--;
      const copy = { ...b, children: [] as TypePathBranch[] };
      kept.push(copy);
      copy.children = keep(b.children, copy);
    }
    return kept;
  };
  return keep(roots, null);
}

import { describePath, findRetentionPaths, shortestPathTree } from '../../../shared/analysis/paths-to-roots.js';
import { buildRetainers } from '../../../shared/analysis/retainers.js';
import { typePathTree, type TypePathTree } from '../../../shared/analysis/type-path-tree.js';
import type { HeapGraph } from '../../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../../shared/graph/heap-graph.js';
import type { TypePathNode } from '../../../shared/ipc/contract.js';
import { csvText, PATH_BRANCHES_CSV } from '../../../shared/session/csv-export.js';
import { flattenTypePathTree } from '../../../shared/session/paths-view.js';
import { flag, hasFlag, intFlag, UsageError } from '../args.js';
import { FORMAT_FLAG, formatOf } from '../analyzed-snapshot.js';
import { DOMAIN_FLAG, loadSnapshot, selectOf } from '../load.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { formatNumber, renderRows, treeIndent, type Column, type OutputFormat, type Writer } from '../output.js';
import { escapeControl } from '../terminal-text.js';
import { writeObjectPaths } from './object-paths-output.js';
import { plural } from '../../../shared/util/plural.js';

/**
 * `heapscope paths FILE (--address HEX | --type TEXT) [--max K]`: why is it alive?
 *
 * --address: the shortest path from the root to that object plus up to K−1 more distinct simple
 * paths by length (paths-to-roots.ts; weak handles never count). --type: the shortest paths of
 * every instance merged into a tree of type names with instance counts (type-path-tree.ts).
 * TEXT matches a type name exactly first, else as a case-insensitive substring that must pick one
 * name; several candidates are a usage error that lists them.
 *
 * JSON is nested (`{target, paths: [{steps: [...]}]}` / `{type, tree: [{children: [...]}]}`);
 * CSV is flat: one row per step (--address) or per branch with depth and parent id (--type).
 */
export const pathsCommand: CliCommand = {
  name: 'paths',
  summary: 'Show why an object (--address) or every instance of a type (--type) is alive: paths from the root.',
  usage: 'heapscope paths FILE (--address HEX | --type TEXT) [--max K] [--depth D] [--breadth B] [--domain NAME|INDEX] [--format table|csv|json]',
  flags: { address: { value: true }, type: { value: true }, max: { value: true }, depth: { value: true }, breadth: { value: true }, domain: DOMAIN_FLAG, format: FORMAT_FLAG },
  async run(args, io) {
    if (args.positionals.length !== 1) throw new UsageError('paths takes exactly one FILE');
    if (hasFlag(args, 'address') === hasFlag(args, 'type')) throw new UsageError('give exactly one of --address HEX or --type TEXT');
    const format = formatOf(args);
    const max = intFlag(args, 'max', 3);
    const depth = intFlag(args, 'depth', 32);
    const breadth = intFlag(args, 'breadth', 10);
    if (max < 1 || max > 100) throw new UsageError('--max must be between 1 and 100');
    const address = flag(args, 'address');
    const target = address !== undefined ? parseAddress(address) : null;
    // Paths need the BFS tree and (for --address) the retainers, not the dominators.
    const s = await loadSnapshot(args.positionals[0], io.stderr, selectOf(args));
    const g = s.graph;
    const spt = shortestPathTree(g);
    if (target) {
      const node = findByAddress(g, target.lo, target.hi);
      if (node < 0) throw new UsageError(`no object at address ${address} in ${s.name}`);
      const search = findRetentionPaths(g, node, spt, buildRetainers(g), { maxPaths: max });
      await writeObjectPaths(io.stdout, format, g, node, search.reachable, search.truncated, search.paths.map((p) => describePath(g, p)));
    } else {
      const { names, mask } = matchType(g, flag(args, 'type')!);
      const tree = typePathTree(g, spt, mask, { maxDepth: depth, maxBreadth: breadth });
      writeTypeTree(io.stdout, format, names[0], tree);
    }
    return EXIT_OK;
  },
};

export function parseAddress(text: string): { lo: number; hi: number } {
  if (!/^(0x)?[0-9a-f]{1,16}$/i.test(text)) throw new UsageError(`--address must be a hex address like 0x7f3a2c10 (got "${text}")`);
  const v = BigInt(text.startsWith('0x') || text.startsWith('0X') ? text : '0x' + text);
  if (v === 0n) throw new UsageError('--address 0 is not an object (pseudo-nodes such as the root have no address)');
  return { lo: Number(v & 0xffffffffn), hi: Number(v >> 32n) };
}

/** First node at that address (compared as two 32-bit words: no BigInt in the loop), or −1. */
export function findByAddress(g: HeapGraph, lo: number, hi: number): number {
  const words = new Uint32Array(g.address.buffer, g.address.byteOffset, g.nodeCount * 2);
  for (let n = 0; n < g.nodeCount; n++) if (words[2 * n] === lo && words[2 * n + 1] === hi && (g.nodeFlags[n] & NODE_UNDEFINED) === 0) return n;
  return -1;
}

/** Exact name first, else a unique case-insensitive substring among names that have objects. */
export function matchType(g: HeapGraph, text: string): { names: string[]; mask: Uint8Array } {
  const tc = g.types.count;
  const used = new Uint8Array(tc);
  for (let n = 0; n < g.nodeCount; n++) if ((g.nodeFlags[n] & (NODE_UNDEFINED | NODE_PSEUDO)) === 0) used[g.nodeType[n]] = 1;
  const maskFor = (pick: (name: string, t: number) => boolean) => {
    const mask = new Uint8Array(tc);
    const names = new Set<string>();
    for (let t = 0; t < tc; t++) {
      if (!pick(g.types.names[t], t)) continue;
      mask[t] = 1;
      names.add(g.types.names[t]);
    }
    return { names: [...names].sort(), mask };
  };
  const exact = maskFor((name) => name === text);
  if (exact.names.length > 0) return exact;
  const needle = text.toLowerCase();
  const sub = maskFor((name, t) => used[t] === 1 && name.toLowerCase().includes(needle));
  if (sub.names.length === 1) return sub;
  if (sub.names.length === 0) throw new UsageError(`no type name contains "${text}"`);
  const shown = sub.names.slice(0, 20).map((n) => `  ${n}`);
  const more = sub.names.length > 20 ? [`  … and ${sub.names.length - 20} more`] : [];
  throw new UsageError(`"${text}" matches ${sub.names.length} types; use the exact name:`, [...shown, ...more]);
}

// CSV goes through the app's layouts (shared/session/csv-export.ts) so both write the same bytes.
/** "N unreachable (garbage or weakly held)", frozen instances said apart: they are not garbage. */
function unreachableText(tree: TypePathTree): string {
  const n = formatNumber;
  const garbage = tree.unreachable - tree.unreachableFrozen;
  if (tree.unreachableFrozen === 0) return `${n(tree.unreachable)} unreachable (garbage or weakly held)`;
  return `${n(tree.unreachable)} unreachable (${n(garbage)} garbage or weakly held, ${n(tree.unreachableFrozen)} frozen (non-GC heap), never collected)`;
}

const BRANCH_TABLE_COLUMNS: Column<TypePathNode>[] = [
  { header: 'Instances', key: 'count', value: (r) => r.count, numeric: true },
  { header: 'Type (held by ↓)', key: 'type', value: (r) => r.type, text: (r) => treeIndent(r.depth) + r.type + notes(r) },
];

function notes(r: TypePathNode): string {
  const parts: string[] = [];
  if (r.cutOff) parts.push(`${formatNumber(r.cutOff)} not followed further`);
  if (r.omittedBranches) parts.push(`+${formatNumber(r.omittedBranches)} more holders with ${formatNumber(r.omittedCount)}`);
  return parts.length ? `  (${parts.join('; ')})` : '';
}

function writeTypeTree(out: Writer, format: OutputFormat, type: string, tree: TypePathTree): void {
  if (format === 'json') {
    const { roots, ...counts } = tree;
    out.write(JSON.stringify({ type, ...counts, tree: roots }, null, 2) + '\n');
    return;
  }
  const rows = flattenTypePathTree(tree.roots);
  if (format === 'csv') {
    out.write(csvText(PATH_BRANCHES_CSV, rows));
    return;
  }
  const n = formatNumber;
  out.write(`${escapeControl(type)}: ${plural(tree.instances, 'instance')}, ${n(tree.reachable)} reachable, ${unreachableText(tree)}\n`);
  if (tree.reachable === 0) return;
  out.write('shortest paths merged by type, from the instances up to the root:\n\n');
  out.write(renderRows('table', rows, BRANCH_TABLE_COLUMNS));
  if (tree.incomplete) out.write('\n(size cap reached: some paths are not followed to the root)\n');
}

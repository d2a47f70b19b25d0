import type { DominanceAnalysis } from '../../../shared/analysis/analyze.js';
import { childRange } from '../../../shared/analysis/dominator-tree.js';
import { isPseudo } from '../../../shared/analysis/paths-to-roots.js';
import type { HeapGraph } from '../../../shared/graph/heap-graph.js';
import { hasStringValues, stringPreviewOf } from '../../../shared/graph/string-values.js';
import { formatAddress } from '../../../shared/graph/heap-graph.js';
import { intFlag, UsageError } from '../args.js';
import { FORMAT_FLAG, formatOf, loadAnalyzed, percentOf } from '../analyzed-snapshot.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { DOMAIN_FLAG, selectOf } from '../load.js';
import { formatNumber, treeIndent, type Column } from '../output.js';
import { streamRows } from '../stream-rows.js';
import { escapeControl } from '../terminal-text.js';
import { applyIgnoreFlags, IGNORE_FLAGS, IGNORE_USAGE } from '../ignore-flags.js';
import { noun, plural } from '../../../shared/util/plural.js';

/**
 * `heapscope dominators FILE [--top N] [--depth D]`: the top of the dominator tree.
 *
 * Starts at the root (depth 0) and lists, for each shown node, its N largest dominator-tree
 * children (by retained size) down to depth D. Every format gets the same flat rows in depth-first
 * order (a parent before its children), with `depth` and `parent` (the parent's node ordinal) so
 * the tree can be rebuilt; `hiddenChildren` / `hiddenRetained` say what --top and --depth left
 * out below a row. The percentage is of the bytes reachable from the root.
 *
 * --depth has no cap: rows are produced and written one at a time (stream-rows.ts), so even every
 * node of a 2-million-long chain streams out in bounded memory; only the table's indentation
 * stops growing at MAX_TABLE_INDENT levels (output.ts).
 */
export interface DominatorCliRow {
  depth: number;
  node: number;
  parent: number | null;
  type: string;
  address: string;
  shallowSize: number;
  retainedSize: number;
  percentOfReachable: number;
  pseudo: boolean;
  childCount: number;
  hiddenChildren: number;
  hiddenRetained: number;
  /** Process dumps only: a System.String's value, quoted, at most 40 chars then … (stringPreviewOf); null for other objects. */
  value?: string | null;
}

/**
 * The rows one at a time, for streaming (a deep --depth on a long chain is millions of rows).
 * Iterative DFS over the shown nodes; the stack holds at most about top × depth entries (a chain: one),
 * as three number arrays rather than an object per entry. Children are pushed in reverse so they
 * pop in order.
 */
export function* iterateDominatorRows(g: HeapGraph, a: DominanceAnalysis, top: number, maxDepth: number): Generator<DominatorCliRow> {
  const { domChildren, retainedSize } = a;
  const stackNode: number[] = [g.rootIndex];
  const stackParent: number[] = [-1];
  const stackDepth: number[] = [0];
  const values = hasStringValues(g);
  while (stackNode.length > 0) {
    const node = stackNode.pop()!;
    const parent = stackParent.pop()!;
    const depth = stackDepth.pop()!;
    const { start, end } = childRange(a, node);
    const childCount = end - start;
    const shown = depth < maxDepth ? Math.min(childCount, top) : 0;
    let hiddenRetained = 0;
    for (let k = start + shown; k < end; k++) hiddenRetained += retainedSize[domChildren[k]];
    for (let k = start + shown - 1; k >= start; k--) {
      stackNode.push(domChildren[k]);
      stackParent.push(node);
      stackDepth.push(depth + 1);
    }
    yield {
      depth,
      node,
      parent: parent < 0 ? null : parent,
      type: g.types.names[g.nodeType[node]],
      address: formatAddress(g, node),
      shallowSize: g.selfSize[node],
      retainedSize: retainedSize[node],
      percentOfReachable: percentOf(retainedSize[node], a.reachableSize),
      pseudo: isPseudo(g, node),
      childCount,
      hiddenChildren: childCount - shown,
      hiddenRetained,
      ...(values ? { value: stringPreviewOf(g, node) } : {}),
    };
  }
}

const COLUMNS: Column<DominatorCliRow>[] = [
  { header: 'Depth', key: 'depth', value: (r) => r.depth, numeric: true },
  { header: 'Node', key: 'node', value: (r) => r.node, numeric: true, text: (r) => String(r.node) },
  { header: 'Parent', key: 'parent', value: (r) => r.parent, numeric: true, text: (r) => (r.parent === null ? '' : String(r.parent)) },
  { header: 'Type', key: 'type', value: (r) => r.type, text: (r) => treeIndent(r.depth) + r.type },
  { header: 'Address', key: 'address', value: (r) => r.address, text: (r) => (r.pseudo ? '' : r.address) },
  { header: 'Shallow bytes', key: 'shallowSize', value: (r) => r.shallowSize, numeric: true },
  { header: 'Retained bytes', key: 'retainedSize', value: (r) => r.retainedSize, numeric: true },
  { header: '% reachable', key: 'percentOfReachable', value: (r) => r.percentOfReachable, numeric: true, text: (r) => r.percentOfReachable.toFixed(2) },
  { header: 'Children', key: 'childCount', value: (r) => r.childCount, numeric: true },
  { header: 'Hidden', key: 'hiddenChildren', value: (r) => r.hiddenChildren, numeric: true, text: (r) => (r.hiddenChildren ? formatNumber(r.hiddenChildren) : '') },
  { header: 'Hidden retained', key: 'hiddenRetained', value: (r) => r.hiddenRetained, numeric: true, text: (r) => (r.hiddenChildren ? formatNumber(r.hiddenRetained) : '') },
  { header: 'Pseudo', key: 'pseudo', value: (r) => r.pseudo },
];

/** The table leaves out the columns that only help machines rebuild the tree. */
const TABLE_COLUMNS = COLUMNS.filter((c) => !['node', 'parent', 'pseudo', 'childCount'].includes(c.key));

/** Process dumps: a string's value after its address (table, CSV and JSON: `value`). */
const VALUE_COLUMN: Column<DominatorCliRow> = { header: 'Value', key: 'value', value: (r) => r.value ?? null, text: (r) => escapeControl(r.value ?? '') };
function withValues(cols: Column<DominatorCliRow>[], g: HeapGraph): Column<DominatorCliRow>[] {
  if (!hasStringValues(g)) return cols;
  const at = cols.findIndex((c) => c.key === 'address') + 1;
  return [...cols.slice(0, at), VALUE_COLUMN, ...cols.slice(at)];
}

export const dominatorsCommand: CliCommand = {
  name: 'dominators',
  summary: 'Print the dominator tree from the root: the largest retained sizes, N per level, D levels deep.',
  usage: `heapscope dominators FILE [--top N] [--depth D] ${IGNORE_USAGE} [--domain NAME|INDEX] [--format table|csv|json]`,
  flags: { top: { value: true }, depth: { value: true }, domain: DOMAIN_FLAG, format: FORMAT_FLAG, ...IGNORE_FLAGS },
  async run(args, io) {
    if (args.positionals.length !== 1) throw new UsageError('dominators takes exactly one FILE');
    const format = formatOf(args);
    const top = intFlag(args, 'top', 10);
    const depth = intFlag(args, 'depth', 3);
    if (top < 1) throw new UsageError('--top must be at least 1');
    let note: string | null = null;
    const s = await loadAnalyzed(args.positionals[0], io.stderr, selectOf(args), (g) => {
      const w = applyIgnoreFlags(g, args);
      note = w.note;
      return w.graph;
    });
    const a = s.analysis;
    const rows = () => iterateDominatorRows(s.graph, a, top, depth);
    if (format === 'table') {
      const n = formatNumber;
      io.stdout.write(
        `${escapeControl(s.name)}: ${n(a.reachableCount)} reachable ${noun(a.reachableCount, 'node')}, ${plural(a.reachableSize, 'byte')} reachable; ` +
          `${n(a.unreachableCount)} unreachable ${noun(a.unreachableCount, 'node')} (${plural(a.unreachableSize, 'byte')}) ${noun(a.unreachableCount, 'is', 'are')} not in the tree\n\n`,
      );
      if (note) io.stdout.write(note + '\n');
      await streamRows(io.stdout, 'table', rows, withValues(TABLE_COLUMNS, s.graph));
    } else {
      await streamRows(io.stdout, format, rows, withValues(COLUMNS, s.graph));
    }
    return EXIT_OK;
  },
};

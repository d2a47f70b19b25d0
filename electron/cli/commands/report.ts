import { analyzeTypeRetention, type TypeRetention } from '../../../shared/analysis/analyze.js';
import { computePerfViewInclusive, PERFVIEW_INCLUSIVE_LABEL } from '../../../shared/analysis/perfview-inclusive.js';
import { computeSetRetained, type SetRetainedBasis } from '../../../shared/analysis/set-retained.js';
import { computeTypeStats, moduleFileName, typeRows, type TypeRow } from '../../../shared/analysis/type-stats.js';
import type { HeapGraph } from '../../../shared/graph/heap-graph.js';
import { flag, flagAll, hasFlag, intFlag, UsageError } from '../args.js';
import { EXIT_OK, EXIT_THRESHOLD, type CliCommand } from '../command.js';
import { evaluateThresholds, parseThresholds, reportBreaches, retainedOfType } from '../thresholds.js';
import { DOMAIN_FLAG, ttyProgress } from '../load.js';
import { loadReportGraph, releaseParseGarbage } from '../report-graph.js';
import { formatNumber, renderRows, type Column, type OutputFormat, type Writer } from '../output.js';
import { escapeControl } from '../terminal-text.js';
import { IGNORE_DETAILS, IGNORE_FLAGS, IGNORE_USAGE } from '../ignore-flags.js';
import { noun, plural } from '../../../shared/util/plural.js';

/**
 * `heapscope report FILE`: the type table (count, shallow and retained bytes per type).
 *
 * Rows are heap objects only: pseudo-nodes and undefined nodes are never counted. Retained size
 * (`retainedSize`) is the type retained size: Σ exact retained size (dominator tree) of the
 * instances that no other instance of the type dominates, over the reachable heap; what instances
 * keep alive only jointly is not in it. `--set-retained` adds the set retained size
 * (`setRetainedSize`): the bytes that become unreachable when every instance is removed, at most
 * one walk over the reachable graph per printed type. For a sampled dump the scaled columns estimate the
 * real heap and the size sort uses them; retained sizes are not scaled.
 *
 * Unreachable columns: the type's objects no root reaches (garbage, objects held only by weak
 * handles, and frozen (non-GC heap) objects without a root). Retained size counts reachable
 * objects only, so per row retainedSize ≥ shallowSize − unreachableSize, always; a row whose
 * instances are all unreachable shows retained 0 next to a shallow size it explains.
 */
export interface ReportRow extends TypeRow {
  retainedSize: number;
  /** Heap objects of the type that no root reaches, and Σ their shallow sizes (not scaled). */
  unreachableCount: number;
  unreachableSize: number;
  /** Only with --perfview-inclusive: PerfView's heuristic, never a retained size (see perfview-inclusive.ts). */
  perfviewInclusiveSize?: number;
  /** Only with --set-retained: bytes freed when every instance goes (set-retained.ts). */
  setRetainedSize?: number;
}

export type ReportSort = 'size' | 'count' | 'name' | 'retained';
export const REPORT_SORTS = ['size', 'count', 'name', 'retained'] as const;

/** Table rows shown when --top is not given; CSV and JSON list every row unless --top is given. */
export const DEFAULT_TABLE_TOP = 50;

/** The per-type unreachable figures of an analysis (TypeRetention satisfies it). */
export interface UnreachableByType {
  typeUnreachableCount: Float64Array;
  typeUnreachableShallow: Float64Array;
}

export function buildReportRows(g: HeapGraph, retained: Float64Array, unreachable: UnreachableByType): { rows: ReportRow[]; sampled: boolean; objects: number; bytes: number } {
  const stats = computeTypeStats(g);
  const rows = typeRows(g, stats).map((r) => ({
    ...r,
    retainedSize: retained[r.typeIndex],
    unreachableCount: unreachable.typeUnreachableCount[r.typeIndex],
    unreachableSize: unreachable.typeUnreachableShallow[r.typeIndex],
  }));
  return { rows, sampled: stats.sampled, objects: stats.objectCount, bytes: stats.objectSize };
}

/** Sorts in place: numbers descending, names ascending (by UTF-16 code units, so the order is stable everywhere). */
export function sortReportRows(rows: ReportRow[], by: ReportSort, sampled: boolean): ReportRow[] {
  const byName = (a: ReportRow, b: ReportRow) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.typeIndex - b.typeIndex);
  const key: (r: ReportRow) => number =
    by === 'count'
      ? (r) => (sampled ? r.scaledCount! : r.count)
      : by === 'retained'
        ? (r) => r.retainedSize
        : (r) => (sampled ? r.scaledShallowSize! : r.shallowSize);
  rows.sort(by === 'name' ? byName : (a, b) => key(b) - key(a) || byName(a, b));
  return rows;
}

export function filterReportRows(rows: ReportRow[], text: string | undefined): ReportRow[] {
  if (!text) return rows;
  const needle = text.toLowerCase();
  return rows.filter((r) => r.name.toLowerCase().includes(needle));
}

export function reportColumns(format: OutputFormat, sampled: boolean, perfviewInclusive = false, setRetained = false): Column<ReportRow>[] {
  const cols: Column<ReportRow>[] = [
    { header: 'Type', key: 'type', value: (r) => r.name },
    { header: 'Count', key: 'count', value: (r) => r.count, numeric: true },
    { header: 'Shallow bytes', key: 'shallowSize', value: (r) => r.shallowSize, numeric: true },
    { header: 'Retained bytes', key: 'retainedSize', value: (r) => r.retainedSize, numeric: true },
  ];
  if (perfviewInclusive) cols.push({ header: PERFVIEW_INCLUSIVE_LABEL, key: 'perfviewInclusiveSize', value: (r) => r.perfviewInclusiveSize, numeric: true });
  if (setRetained) cols.push({ header: 'Set retained bytes', key: 'setRetainedSize', value: (r) => r.setRetainedSize, numeric: true });
  // Scaled columns: always in CSV/JSON (empty / null when not sampled) so the shape is stable; in
  // the table only when they say something.
  if (format !== 'table' || sampled) {
    cols.push(
      { header: 'Est. count', key: 'scaledCount', value: (r) => r.scaledCount, numeric: true, text: (r) => formatNumber(Math.round(r.scaledCount ?? 0)) },
      { header: 'Est. bytes', key: 'scaledShallowSize', value: (r) => r.scaledShallowSize, numeric: true, text: (r) => formatNumber(Math.round(r.scaledShallowSize ?? 0)) },
    );
  }
  cols.push(...unreachableColumns());
  cols.push(
    format === 'table'
      ? { header: 'Module', key: 'module', value: (r) => moduleFileName(r.module) }
      : { header: 'Module', key: 'module', value: (r) => r.module },
  );
  return cols;
}

export const reportCommand: CliCommand = {
  name: 'report',
  summary: 'Print the type table: objects, shallow and retained bytes, unreachable objects and bytes per type (table, CSV or JSON).',
  usage: `heapscope report FILE [--sort size|count|name|retained] [--top N] [--filter TEXT] [--fail-if-retained TYPE=BYTES ...] [--perfview-inclusive] [--set-retained] ${IGNORE_USAGE} [--domain NAME|INDEX] [--format table|csv|json]`,
  details: [
    'Retained bytes (retainedSize): the type retained size, Σ exact retained size (dominator tree)',
    '  of the instances that no other instance of the type dominates. It leaves out what',
    '  instances keep alive only jointly (one array shared by two Lists), so it can be far less',
    '  than what removing every instance would free. One pass for all types.',
    '--set-retained adds Set retained bytes (setRetainedSize): the bytes that become unreachable',
    '  when every instance of the type is removed (MAT\'s "precise retained size"); never less',
    '  than Retained bytes. Cost: at most one walk over the reachable graph per printed type (less',
    '  when the instances sit in one part of the heap), so it is computed only for the rows in the',
    '  output (after --filter and --top; CSV/JSON print every type unless --top is given).',
    'Unreachable / Unreachable bytes (unreachableCount, unreachableSize): instances no root reaches',
    '  (garbage, held only by weak handles, or frozen (non-GC heap) without a root) and their',
    '  shallow bytes. Retained sizes count reachable objects only: retainedSize >= shallowSize -',
    '  unreachableSize on every row.',
    ...IGNORE_DETAILS,
  ].join('\n'),
  flags: {
    sort: { value: true, choices: REPORT_SORTS },
    top: { value: true },
    filter: { value: true },
    format: { value: true, choices: ['table', 'csv', 'json'] },
    'fail-if-retained': { value: true, multiple: true },
    'perfview-inclusive': {},
    'set-retained': {},
    domain: DOMAIN_FLAG,
    ...IGNORE_FLAGS,
  },
  async run(args, io) {
    if (args.positionals.length !== 1) throw new UsageError('report takes exactly one FILE');
    const format = (flag(args, 'format') ?? 'table') as OutputFormat;
    const sort = (flag(args, 'sort') ?? 'size') as ReportSort;
    const top = intFlag(args, 'top', format === 'table' ? DEFAULT_TABLE_TOP : 0);
    const filter = flag(args, 'filter');
    const thresholds = parseThresholds(flagAll(args, 'fail-if-retained'), 'fail-if-retained');

    // low-memory mode only when memory is tight (report-graph.ts, memory-estimate.ts preferLowMemoryAnalysis)
    const loaded = await loadReportGraph(args.positionals[0], io.stderr, args);
    const { graph: g, lowMemory } = loaded;
    // the parse's garbage and the address column go before the dominators allocate (report-graph.ts)
    releaseParseGarbage();
    const line = ttyProgress(io.stderr, loaded.name);
    let retention: TypeRetention;
    try {
      retention = analyzeTypeRetention(g, { progress: line.sink, lowMemory });
    } finally {
      line.clear();
    }
    const { typeRetained: retained, reachableSize } = retention;
    const report = buildReportRows(g, retained, retention);
    const perfview = hasFlag(args, 'perfview-inclusive');
    if (perfview) addPerfViewInclusive(g, report.rows);
    const matching = sortReportRows(filterReportRows(report.rows, filter), sort, report.sampled);
    const shown = top > 0 ? matching.slice(0, top) : matching;
    const setRetained = hasFlag(args, 'set-retained');
    if (setRetained) addSetRetained(g, retention, shown, ttyProgress(io.stderr, loaded.name));
    if (format === 'table') writeTableHeader(io.stdout, loaded.name, report, hasFlag(args, 'filter') ? matching.length : null);
    if (format === 'table' && loaded.note) io.stdout.write(loaded.note + '\n');
    if (format === 'table' && perfview) io.stdout.write(PERFVIEW_TABLE_NOTE);
    if (format === 'table' && setRetained) io.stdout.write(SET_RETAINED_TABLE_NOTE);
    io.stdout.write(renderRows(format, shown, reportColumns(format, report.sampled, perfview, setRetained)));
    if (format === 'table' && shown.length < matching.length) {
      io.stdout.write(`(showing ${formatNumber(shown.length)} of ${formatNumber(matching.length)} types; --top 0 shows all)\n`);
    }
    const breaches = evaluateThresholds(thresholds, (t) => retainedOfType(report.rows, t, reachableSize), 'retained size is', 'fail-if-retained', io.stderr);
    return reportBreaches(breaches, io.stderr) ? EXIT_THRESHOLD : EXIT_OK;
  },
};

function writeTableHeader(out: Writer, name: string, r: { rows: ReportRow[]; sampled: boolean; objects: number; bytes: number }, matched: number | null): void {
  out.write(`${escapeControl(name)}: ${plural(r.objects, 'object')} of ${plural(r.rows.length, 'type')}, ${plural(r.bytes, 'byte')} (pseudo-nodes and undefined nodes not counted)\n`);
  if (matched !== null) out.write(`${plural(matched, 'type')} ${noun(matched, 'matches', 'match')} the filter\n`);
  if (r.sampled) out.write('sampled dump: "Est." columns scale the saved objects up to the real heap (PerfView multipliers)\n');
  if (r.rows.some((row) => row.unreachableCount > 0)) out.write(UNREACHABLE_TABLE_NOTE);
  out.write('\n');
}

/** Unreachable count and bytes per type: in every format, after the scaled columns. */
function unreachableColumns(): Column<ReportRow>[] {
  return [
    { header: 'Unreachable', key: 'unreachableCount', value: (r) => r.unreachableCount, numeric: true },
    { header: 'Unreachable bytes', key: 'unreachableSize', value: (r) => r.unreachableSize, numeric: true },
  ];
}

/**
 * --perfview-inclusive: PerfView's per-type ("By Name") inclusive size over its priority spanning
 * tree: Σ spanning-tree inclusive size over the instances with no other instance of the type above
 * them in that tree, so nested instances (a list of nodes of one type) are counted once, the rule
 * type retained sizes follow on the dominator tree. Like PerfView it includes objects no root
 * reaches (they hang below "[not reachable from roots]") and scales sampled dumps.
 */
function addPerfViewInclusive(g: HeapGraph, rows: ReportRow[]): void {
  const pv = computePerfViewInclusive(g);
  for (const r of rows) r.perfviewInclusiveSize = pv.typeInclusive[r.typeIndex];
}

const UNREACHABLE_TABLE_NOTE =
  'Unreachable: objects no root reaches (garbage, weakly held, or frozen (non-GC heap) without a root); retained bytes count reachable objects only, so retained >= shallow - unreachable bytes\n';

const PERFVIEW_TABLE_NOTE =
  'PerfView-style inclusive size: a heuristic that charges each shared object to one owner (PerfView\'s priority spanning tree); use Retained bytes for what freeing would release\n\n';

/**
 * --set-retained: the set retained size of each printed row (set-retained.ts), at most one walk over
 * the reachable graph per row, with a progress line on a terminal.
 */
function addSetRetained(g: HeapGraph, basis: SetRetainedBasis, rows: ReportRow[], line: ReturnType<typeof ttyProgress>): void {
  try {
    const set = computeSetRetained(g, basis, rows.map((r) => r.typeIndex), undefined, line.sink);
    rows.forEach((r, i) => (r.setRetainedSize = set[i]));
  } finally {
    line.clear();
  }
}

const SET_RETAINED_TABLE_NOTE =
  'Retained bytes: Σ retained of the instances no other instance of the type dominates; Set retained bytes: freed if every instance went away (includes what instances hold jointly)\n\n';

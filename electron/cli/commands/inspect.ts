import { baselineOf, runInspections, type Finding, type InspectionBaseline } from '../../../shared/analysis/inspections/index.js';
import { flag, intFlag, UsageError } from '../args.js';
import { FORMAT_FLAG, formatOf, loadAnalyzed } from '../analyzed-snapshot.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { DOMAIN_FLAG, selectOf } from '../load.js';
import { formatNumber, renderRows, type Column } from '../output.js';
import { escapeControl } from '../terminal-text.js';

/**
 * `heapscope inspect FILE [--baseline FILE] [--top N]`: known leak patterns found in a snapshot
 * (shared/analysis/inspections). Each finding names its objects with exact retained bytes; JSON
 * gives every field, CSV one row per finding (examples as addresses, details as a JSON cell), the
 * table one line per finding followed by what could not be checked.
 */
const COLUMNS: Column<Finding>[] = [
  { header: 'Kind', key: 'kind', value: (f) => f.kind },
  { header: 'Objects', key: 'objects', value: (f) => f.objects, numeric: true },
  { header: 'Retained bytes', key: 'bytes', value: (f) => f.bytes, numeric: true },
  { header: 'Shallow bytes', key: 'shallowBytes', value: (f) => f.shallowBytes, numeric: true },
  { header: 'Finding', key: 'title', value: (f) => f.title },
  { header: 'Explanation', key: 'explanation', value: (f) => f.explanation },
  { header: 'Fix', key: 'fix', value: (f) => f.fix },
  { header: 'Examples', key: 'examples', value: (f) => f.examples.map((e) => e.address).join(' ') },
  { header: 'Details', key: 'details', value: (f) => JSON.stringify(f.details) },
];
const TABLE_COLUMNS = COLUMNS.filter((c) => ['kind', 'objects', 'bytes', 'title'].includes(c.key));

export const inspectCommand: CliCommand = {
  name: 'inspect',
  summary: 'Find known leak patterns (event handlers, timers, finalization, accumulation points, statics, large objects, growth; on process dumps duplicate strings, sparse/empty arrays, empty collections).',
  usage: 'heapscope inspect FILE [--baseline FILE] [--top N] [--domain NAME|INDEX] [--format table|csv|json]',
  details:
    'Each finding gives objects (how many it names) and bytes: exact retained size, counting no object twice\n' +
    'within one inspection. --top N keeps the N largest findings per inspection (default 5 in a table, all otherwise).\n' +
    'Rules are in the README (under `heapscope inspect`); accumulation-point thresholds are heuristic.\n' +
    'Process dumps only (they hold object contents): duplicate strings; sparse arrays (a heuristic: length >= 16,\n' +
    'at most 25% of elements non-null/non-zero; wastedBytes = default elements x element size); empty arrays\n' +
    '(length 0, types with 2 or more); empty collections (Count 0: List, Dictionary, HashSet, Queue, Stack, SortedList,\n' +
    'SortedDictionary, SortedSet, LinkedList, ConcurrentDictionary/Queue/Bag/Stack, Collection<T>, StringBuilder,\n' +
    'PriorityQueue; backingBytes = bytes allocated to hold elements, per kind as the README defines).',
  flags: { baseline: { value: true }, top: { value: true }, domain: DOMAIN_FLAG, format: FORMAT_FLAG },
  async run(args, io) {
    if (args.positionals.length !== 1) throw new UsageError('inspect takes exactly one FILE');
    const format = formatOf(args);
    const top = intFlag(args, 'top', format === 'table' ? 5 : 0);
    if (top < 0) throw new UsageError('--top must be 0 (all) or more');
    const baselinePath = flag(args, 'baseline');
    let baseline: InspectionBaseline | null = null;
    if (baselinePath !== undefined) {
      // reduced to per-type and per-field figures, so only one graph is held at a time
      const b = await loadAnalyzed(baselinePath, io.stderr, selectOf(args));
      baseline = baselineOf(b.graph, b.analysis, b.name);
    }
    const s = await loadAnalyzed(args.positionals[0], io.stderr, selectOf(args));
    const r = runInspections(s.graph, s.analysis, { baseline, top: top > 0 ? top : Infinity });
    if (format === 'json') {
      const out = { file: s.name, baseline: baseline?.label ?? null, reachableBytes: s.analysis.reachableSize, findings: r.findings, largeHeapShare: r.largeHeapShare, unavailable: r.unavailable };
      io.stdout.write(JSON.stringify(out, null, 2) + '\n');
    } else if (format === 'csv') {
      io.stdout.write(renderRows('csv', r.findings, COLUMNS));
    } else {
      const n = formatNumber;
      io.stdout.write(`${escapeControl(s.name)}: ${n(r.findings.length)} findings; ${n(s.analysis.reachableSize)} bytes reachable` + (baseline ? `; baseline ${escapeControl(baseline.label)}` : '') + '\n\n');
      if (r.findings.length > 0) io.stdout.write(renderRows('table', r.findings, TABLE_COLUMNS));
      const sh = r.largeHeapShare;
      if (sh) io.stdout.write(`\nLarge object heap: ${n(sh.lohObjects)} objects, ${n(sh.lohBytes)} bytes; pinned object heap: ${n(sh.pohObjects)} objects, ${n(sh.pohBytes)} bytes; of ${n(sh.heapBytes)} heap bytes\n`);
      io.stdout.write('\n');
      for (const u of r.unavailable) io.stdout.write(`Not checked: ${u.reason}\n`);
    }
    return EXIT_OK;
  },
};

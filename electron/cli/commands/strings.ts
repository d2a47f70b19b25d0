import { duplicateStrings, type DuplicateStringRow } from '../../../shared/analysis/duplicate-strings.js';
import { hasStringValues } from '../../../shared/graph/string-values.js';
import { plural } from '../../../shared/util/plural.js';
import { intFlag, UsageError } from '../args.js';
import { FORMAT_FLAG, formatOf, loadAnalyzed } from '../analyzed-snapshot.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { DOMAIN_FLAG, selectOf } from '../load.js';
import { formatNumber, renderRows, type Column } from '../output.js';
import { escapeControl } from '../terminal-text.js';

/**
 * `heapscope strings FILE`: duplicate strings of a process dump (shared/analysis/duplicate-strings.ts).
 * Only dumps carry string contents; a .gcdump or trace is a usage mistake with its own code,
 * strings/needs-dump (exit 2), rather than an empty table that would read as "no duplicates".
 */
const DEFAULT_TABLE_TOP = 20;
/** Chars of a value shown in the table (CSV and JSON carry everything the dump kept). */
const TABLE_VALUE_CHARS = 60;

function tableValue(r: DuplicateStringRow): string {
  const v = escapeControl(r.value);
  return v.length > TABLE_VALUE_CHARS || r.truncated ? `"${v.slice(0, TABLE_VALUE_CHARS)}"…` : `"${v}"`;
}

function columns(table: boolean): Column<DuplicateStringRow>[] {
  return [
    { header: 'Count', key: 'count', value: (r) => r.count, numeric: true },
    { header: 'Wasted bytes', key: 'wastedBytes', value: (r) => r.wastedBytes, numeric: true },
    { header: 'Total bytes', key: 'totalBytes', value: (r) => r.totalBytes, numeric: true },
    { header: 'Length', key: 'length', value: (r) => r.length, numeric: true },
    table ? { header: 'Value', key: 'value', value: tableValue } : { header: 'Value', key: 'value', value: (r) => r.value },
    ...(table ? [] : [{ header: 'Truncated', key: 'truncated', value: (r: DuplicateStringRow) => r.truncated }]),
  ];
}

export const stringsCommand: CliCommand = {
  name: 'strings',
  summary: 'Duplicate strings of a process dump: per distinct value, copies, wasted bytes (all copies but one) and total bytes.',
  usage: 'heapscope strings FILE [--top N] [--min-count K] [--domain NAME|INDEX] [--format table|csv|json]',
  details: [
    'Counts reachable System.String objects only (garbage the next GC frees wastes nothing).',
    '  count: copies of the value; totalBytes: their shallow bytes; wastedBytes: totalBytes minus',
    '  one copy (what sharing one instance would save). Sorted by wastedBytes, then count.',
    '--min-count K: values with at least K copies (default 2; 1 lists every value).',
    '--top N: the first N values (default 20 in a table, all in CSV/JSON; 0 = all).',
    'Only process dumps carry string contents (the dump reader keeps the first 1,024 chars of each',
    '  value and its full length: truncated = the value is longer than the text shown); a .gcdump',
    '  or trace gives error strings/needs-dump.',
  ].join('\n'),
  flags: { top: { value: true }, 'min-count': { value: true }, domain: DOMAIN_FLAG, format: FORMAT_FLAG },
  async run(args, io) {
    if (args.positionals.length !== 1) throw new UsageError('strings takes exactly one FILE');
    const format = formatOf(args);
    const top = intFlag(args, 'top', format === 'table' ? DEFAULT_TABLE_TOP : 0);
    const minCount = intFlag(args, 'min-count', 2);
    if (minCount < 1) throw new UsageError('--min-count must be at least 1');
    const s = await loadAnalyzed(args.positionals[0], io.stderr, selectOf(args));
    if (!hasStringValues(s.graph)) {
      throw new UsageError(
        `${s.name} is a ${s.graph.metadata.format} file, which has no string contents: duplicate strings need a full process dump (heapscope dump -p PID)`,
        [],
        'strings/needs-dump',
      );
    }
    const r = duplicateStrings(s.graph, s.analysis.reachable, { minCount, top: top > 0 ? top : undefined })!;
    if (format === 'json') {
      const rows = r.rows.map(({ valueId: _id, ...row }) => row);
      const doc = { file: s.name, minCount, valueCount: r.valueCount, stringCount: r.stringCount, stringBytes: r.stringBytes, wastedBytes: r.wastedBytes, rows };
      io.stdout.write(JSON.stringify(doc, null, 2) + '\n');
      return EXIT_OK;
    }
    if (format === 'table') {
      io.stdout.write(`${escapeControl(s.name)}: ${plural(r.stringCount, 'reachable string')}, ${plural(r.stringBytes, 'byte')}\n`);
      io.stdout.write(`${plural(r.valueCount, 'value')} with at least ${plural(minCount, 'copy', 'copies')}, wasting ${plural(r.wastedBytes, 'byte')}\n\n`);
    }
    io.stdout.write(renderRows(format, r.rows, columns(format === 'table')));
    if (format === 'table' && r.rows.length < r.valueCount) io.stdout.write(`(showing ${formatNumber(r.rows.length)} of ${formatNumber(r.valueCount)} values; --top 0 shows all)\n`);
    return EXIT_OK;
  },
};

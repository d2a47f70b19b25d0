import { changedRows, diffSummaries, DIFF_SORT_KEYS, sortDiffRows, type DiffSortKey, type TypeDiff, type TypeDiffRow } from '../../../shared/analysis/diff.js';
import { flag, flagAll, hasFlag, intFlag, UsageError } from '../args.js';
import { FORMAT_FLAG, formatOf, loadSummary } from '../analyzed-snapshot.js';
import { EXIT_OK, EXIT_THRESHOLD, type CliCommand } from '../command.js';
import { DOMAIN_FLAG, selectOf } from '../load.js';
import { formatNumber, renderRows, type Column, type Writer } from '../output.js';
import { evaluateThresholds, parseThresholds, reportBreaches } from '../thresholds.js';
import { escapeControl } from '../terminal-text.js';
import { plural } from '../../../shared/util/plural.js';

/**
 * `heapscope diff BASE NEW`: what grew between two snapshots of one process, per type name.
 *
 * Rows are types whose count, shallow or retained bytes changed (--all: every type), sorted by
 * the growth of --sort (retained by default), largest first. --domain (CF heap logs) picks the
 * same AppDomain section in both files. `--fail-if-growth TYPE=BYTES`
 * (repeatable; TYPE `*` = whole heap) exits with 4 when a type's retained size grew by more than
 * BYTES: a leak gate for CI. The table stops at --top rows (default 20); CSV and JSON list all
 * rows unless --top is given.
 */
const sign = (n: number) => (n > 0 ? '+' : '') + formatNumber(n);

const COLUMNS: Column<TypeDiffRow>[] = [
  { header: 'Type', key: 'type', value: (r) => r.name },
  { header: 'Status', key: 'status', value: (r) => r.status, text: (r) => (r.status === 'both' ? '' : r.status) },
  { header: 'Base count', key: 'baseCount', value: (r) => r.baseCount, numeric: true },
  { header: 'New count', key: 'newCount', value: (r) => r.newCount, numeric: true },
  { header: 'Δ count', key: 'countDelta', value: (r) => r.countDelta, numeric: true, text: (r) => sign(r.countDelta) },
  { header: 'Base shallow', key: 'baseShallow', value: (r) => r.baseShallow, numeric: true },
  { header: 'New shallow', key: 'newShallow', value: (r) => r.newShallow, numeric: true },
  { header: 'Δ shallow', key: 'shallowDelta', value: (r) => r.shallowDelta, numeric: true, text: (r) => sign(r.shallowDelta) },
  { header: 'Base retained', key: 'baseRetained', value: (r) => r.baseRetained, numeric: true },
  { header: 'New retained', key: 'newRetained', value: (r) => r.newRetained, numeric: true },
  { header: 'Δ retained', key: 'retainedDelta', value: (r) => r.retainedDelta, numeric: true, text: (r) => sign(r.retainedDelta) },
  { header: 'Module', key: 'module', value: (r) => r.module },
];
const TABLE_COLUMNS = COLUMNS.filter((c) => c.key !== 'module');

export const diffCommand: CliCommand = {
  name: 'diff',
  summary: 'Compare two snapshots per type name (count, shallow, retained); --fail-if-growth gates CI (exit 4).',
  usage:
    'heapscope diff BASE NEW [--top N] [--sort retained|shallow|count|name] [--all] [--fail-if-growth TYPE=BYTES ...] [--domain NAME|INDEX] [--format table|csv|json]',
  flags: {
    top: { value: true },
    sort: { value: true, choices: DIFF_SORT_KEYS },
    all: {},
    'fail-if-growth': { value: true, multiple: true },
    domain: DOMAIN_FLAG,
    format: FORMAT_FLAG,
  },
  async run(args, io) {
    if (args.positionals.length !== 2) throw new UsageError('diff takes exactly two files: BASE NEW');
    const format = formatOf(args);
    const sort = (flag(args, 'sort') ?? 'retained') as DiffSortKey;
    const top = intFlag(args, 'top', format === 'table' ? 20 : 0);
    const thresholds = parseThresholds(flagAll(args, 'fail-if-growth'), 'fail-if-growth');
    const base = await loadSummary(args.positionals[0], io.stderr, selectOf(args));
    const next = await loadSummary(args.positionals[1], io.stderr, selectOf(args));
    const d = diffSummaries(base, next);
    const listed = sortDiffRows(hasFlag(args, 'all') ? d.rows : changedRows(d.rows), sort);
    const shown = top > 0 ? listed.slice(0, top) : listed;

    if (format === 'json') {
      io.stdout.write(JSON.stringify({ base: d.base, new: d.next, total: d.total, added: d.added, removed: d.removed, rows: shown.map(jsonRow) }, null, 2) + '\n');
    } else if (format === 'csv') {
      io.stdout.write(renderRows('csv', shown, COLUMNS));
    } else {
      writeTableHeader(io.stdout, d, listed.length);
      io.stdout.write(renderRows('table', shown, TABLE_COLUMNS));
      if (shown.length < listed.length) io.stdout.write(`(showing ${formatNumber(shown.length)} of ${formatNumber(listed.length)} types; --top 0 shows all)\n`);
    }

    const byName = new Map(d.rows.map((r) => [r.name, r.retainedDelta]));
    const breaches = evaluateThresholds(thresholds, (t) => (t === '*' ? d.total.retainedDelta : byName.get(t)), 'retained size grew by', 'fail-if-growth', io.stderr);
    return reportBreaches(breaches, io.stderr) ? EXIT_THRESHOLD : EXIT_OK;
  },
};

/** JSON row: `type` instead of `name`, like the other commands. */
function jsonRow(r: TypeDiffRow): Record<string, unknown> {
  const { name, ...rest } = r;
  return { type: name, ...rest };
}

function writeTableHeader(out: Writer, d: TypeDiff, changed: number): void {
  const t = d.total;
  const n = formatNumber;
  out.write(`base ${escapeControl(d.base)} → new ${escapeControl(d.next)}\n`);
  out.write(`objects ${n(t.baseCount)} → ${n(t.newCount)} (${sign(t.countDelta)}), shallow bytes ${n(t.baseShallow)} → ${n(t.newShallow)} (${sign(t.shallowDelta)}), `);
  out.write(`reachable bytes ${n(t.baseRetained)} → ${n(t.newRetained)} (${sign(t.retainedDelta)})\n`);
  out.write(`${plural(changed, 'type')} listed, ${n(d.added)} only in new, ${n(d.removed)} only in base\n\n`);
}

import { growingTypes, type TrendRow } from '../../../shared/analysis/trend.js';
import type { TypeSummary } from '../../../shared/analysis/type-summary.js';
import { hasFlag, intFlag, UsageError } from '../args.js';
import { FORMAT_FLAG, formatOf, loadSummary } from '../analyzed-snapshot.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { DOMAIN_FLAG, selectOf } from '../load.js';
import { formatNumber, renderRows, type Column } from '../output.js';
import { escapeControl } from '../terminal-text.js';
import { noun, plural } from '../../../shared/util/plural.js';
import { runTrendDominators, TREND_SORTS } from './trend-dominators.js';

/**
 * `heapscope trend A B C ...`: types that grow at every step over snapshots of one process.
 *
 * Files are taken in the order given (oldest first). A type is listed when its object count or its
 * retained size grows strictly from each snapshot to the next. CSV has one count_i / retained_i
 * column pair per snapshot; JSON gives the labels and per-row arrays. With --dominators: growing
 * retainers instead of types (trend-dominators.ts).
 */
const arrow = (values: number[]) => values.map((v) => formatNumber(v)).join(' → ');

function columns(k: number, format: 'table' | 'csv'): Column<TrendRow>[] {
  const grows = (r: TrendRow) => (r.countGrows && r.retainedGrows ? 'count+retained' : r.countGrows ? 'count' : 'retained');
  const cols: Column<TrendRow>[] = [
    { header: 'Type', key: 'type', value: (r) => r.name },
    { header: 'Grows', key: 'grows', value: grows },
  ];
  if (format === 'table') {
    cols.push(
      { header: 'Objects', key: 'counts', value: (r) => arrow(r.counts) },
      { header: 'Retained bytes', key: 'retained', value: (r) => arrow(r.retained) },
      { header: 'Δ retained', key: 'retainedGrowth', value: (r) => r.retainedGrowth, numeric: true },
    );
    return cols;
  }
  for (let i = 0; i < k; i++) cols.push({ header: `count_${i + 1}`, key: `count_${i + 1}`, value: (r) => r.counts[i], numeric: true });
  for (let i = 0; i < k; i++) cols.push({ header: `retained_${i + 1}`, key: `retained_${i + 1}`, value: (r) => r.retained[i], numeric: true });
  cols.push(
    { header: 'countGrowth', key: 'countGrowth', value: (r) => r.countGrowth, numeric: true },
    { header: 'retainedGrowth', key: 'retainedGrowth', value: (r) => r.retainedGrowth, numeric: true },
    { header: 'module', key: 'module', value: (r) => r.module },
  );
  return cols;
}

export const trendCommand: CliCommand = {
  name: 'trend',
  summary: 'Over 2+ snapshots of one process (oldest first), list types whose count or retained size grows at every step; --dominators: retainers whose retained size grew (heuristic match).',
  usage:
    'heapscope trend A B [C ...] [--top N] [--dominators [--sort growth|steadiness] [--min-bytes N] [--depth N]] [--domain NAME|INDEX] [--format table|csv|json]',
  details: [
    'Types: listed when the object count or the type retained size grows strictly from each snapshot to the next (absent = 0).',
    '--dominators: growth suspects at dominator level. Retainers = heap objects within --depth levels of the root',
    '  (default 8) of the dominator tree that retain ≥ --min-bytes, as do all their dominators (default: 0.01% of the',
    "  first snapshot's reachable bytes, at least 1,024; the same for every snapshot). Matched across snapshots by a",
    '  HEURISTIC signature: the chain of dominator types (and field names, when the file has them) from the root;',
    '  same-type siblings are numbered by retained size ("Type #2"), so two that swap sizes swap names.',
    '  growth = last − first retained; growingSteps = steps i → i+1 whose retained grew; steadiness = growingSteps /',
    '  (N − 1); slope = least-squares slope of retained over the snapshot index, bytes per snapshot. Listed when',
    '  growth > 0; --sort growth (default) or steadiness. Absent or under the threshold = 0. Full rules: README.',
  ].join('\n'),
  flags: {
    top: { value: true },
    dominators: {},
    sort: { value: true, choices: TREND_SORTS },
    'min-bytes': { value: true },
    depth: { value: true },
    domain: DOMAIN_FLAG,
    format: FORMAT_FLAG,
  },
  async run(args, io) {
    if (args.positionals.length < 2) throw new UsageError('trend needs at least two files, oldest first');
    if (hasFlag(args, 'dominators')) return runTrendDominators(args, io);
    for (const f of ['sort', 'min-bytes', 'depth']) if (hasFlag(args, f)) throw new UsageError(`--${f} needs --dominators`);
    const format = formatOf(args);
    const top = intFlag(args, 'top', format === 'table' ? 20 : 0);
    const summaries: TypeSummary[] = [];
    for (const path of args.positionals) summaries.push(await loadSummary(path, io.stderr, selectOf(args)));
    const times = summaries.map((s) => s.timeCollected);
    if (times.every((x) => x !== null) && times.some((x, i) => i > 0 && x! < times[i - 1]!)) {
      io.stderr.write(`note: the files are not in capture order (${escapeControl(times.join(', '))}); a trend reads them in the order given\n`);
    }
    const t = growingTypes(summaries);
    const shown = top > 0 ? t.rows.slice(0, top) : t.rows;
    if (format === 'json') {
      const rows = shown.map(({ name, ...rest }) => ({ type: name, ...rest }));
      io.stdout.write(JSON.stringify({ snapshots: t.labels, typesSeen: t.typesSeen, growing: t.rows.length, rows }, null, 2) + '\n');
      return EXIT_OK;
    }
    if (format === 'csv') {
      io.stdout.write(renderRows('csv', shown, columns(summaries.length, 'csv')));
      return EXIT_OK;
    }
    const n = formatNumber;
    io.stdout.write(`${escapeControl(t.labels.join(' → '))}\n`);
    io.stdout.write(`${n(t.rows.length)} of ${plural(t.typesSeen, 'type')} ${noun(t.rows.length, 'grows', 'grow')} at every step (count or retained size)\n\n`);
    if (t.rows.length > 0) io.stdout.write(renderRows('table', shown, columns(summaries.length, 'table')));
    if (shown.length < t.rows.length) io.stdout.write(`(showing ${n(shown.length)} of ${n(t.rows.length)}; --top 0 shows all)\n`);
    return EXIT_OK;
  },
};

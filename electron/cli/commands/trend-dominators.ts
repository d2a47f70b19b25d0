import { dominatorGrowth, rankedBy, type DominatorTrendRow, type DominatorTrendSort } from '../../../shared/analysis/dominator-growth.js';
import { DEFAULT_RETAINER_DEPTH, defaultRetainerMinBytes, retainerSignatures, type RetainerSnapshot } from '../../../shared/analysis/dominator-signatures.js';
import { flag, intFlag, type ParsedArgs } from '../args.js';
import { formatOf, loadAnalyzed } from '../analyzed-snapshot.js';
import { EXIT_OK, type CliIo } from '../command.js';
import { selectOf } from '../load.js';
import { formatNumber, renderRows, type Column } from '../output.js';
import { escapeControl } from '../terminal-text.js';
import { plural } from '../../../shared/util/plural.js';

/**
 * `heapscope trend A B C … --dominators`: growth suspects at dominator level (a heuristic
 * identity across snapshots: shared/analysis/dominator-signatures.ts). One graph at a time: each
 * file is reduced to its retainers (with their addresses) before the next is loaded.
 *
 * The threshold (--min-bytes, default 0.01% of the FIRST snapshot's reachable bytes, at least
 * 1 KiB) is the same for every snapshot, so "absent" means "under the same number of bytes".
 */
export const TREND_SORTS = ['growth', 'steadiness'] as const;

type Shown = DominatorTrendRow;

const arrow = (values: number[]) => values.map((v) => formatNumber(v)).join(' → ');
const round2 = (x: number) => Math.round(x * 100) / 100;

function columns(k: number, format: 'table' | 'csv', sort: DominatorTrendSort): Column<Shown>[] {
  if (format === 'table') {
    return [
      { header: '#', key: 'rank', value: (r) => (sort === 'growth' ? r.growthRank : r.steadinessRank), numeric: true },
      { header: 'Retained bytes', key: 'retained', value: (r) => arrow(r.retained) },
      { header: 'Δ retained', key: 'growth', value: (r) => r.growth, numeric: true },
      { header: 'Growing steps', key: 'growingSteps', value: (r) => `${r.growingSteps}/${k - 1}` },
      { header: 'Slope B/snapshot', key: 'slope', value: (r) => round2(r.slope), numeric: true },
      { header: 'Address (last)', key: 'address', value: (r) => r.lastAddress ?? '' },
      // last: the chain is long
      { header: 'Retainer (dominator chain)', key: 'signature', value: (r) => r.signature },
    ];
  }
  const cols: Column<Shown>[] = [
    { header: 'signature', key: 'signature', value: (r) => r.signature },
    { header: 'type', key: 'type', value: (r) => r.type },
    { header: 'depth', key: 'depth', value: (r) => r.depth, numeric: true },
  ];
  for (let i = 0; i < k; i++) cols.push({ header: `retained_${i + 1}`, key: `retained_${i + 1}`, value: (r) => r.retained[i], numeric: true });
  cols.push(
    { header: 'growth', key: 'growth', value: (r) => r.growth, numeric: true },
    { header: 'growingSteps', key: 'growingSteps', value: (r) => r.growingSteps, numeric: true },
    { header: 'steadiness', key: 'steadiness', value: (r) => r.steadiness, numeric: true },
    { header: 'slope', key: 'slope', value: (r) => r.slope, numeric: true },
    { header: 'growthRank', key: 'growthRank', value: (r) => r.growthRank, numeric: true },
    { header: 'steadinessRank', key: 'steadinessRank', value: (r) => r.steadinessRank, numeric: true },
    { header: 'address', key: 'address', value: (r) => r.lastAddress },
  );
  return cols;
}

export async function runTrendDominators(args: ParsedArgs, io: CliIo): Promise<number> {
  const format = formatOf(args);
  const top = intFlag(args, 'top', format === 'table' ? 20 : 0);
  const sort = (flag(args, 'sort') ?? 'growth') as DominatorTrendSort;
  const maxDepth = intFlag(args, 'depth', DEFAULT_RETAINER_DEPTH);
  let minBytes = flag(args, 'min-bytes') === undefined ? null : intFlag(args, 'min-bytes', 0);
  const snaps: RetainerSnapshot[] = [];
  for (const path of args.positionals) {
    const s = await loadAnalyzed(path, io.stderr, selectOf(args));
    minBytes ??= defaultRetainerMinBytes(s.analysis.reachableSize);
    snaps.push(retainerSignatures(s.graph, s.analysis, s.name, { minBytes, maxDepth }));
  }
  const t = dominatorGrowth(snaps);
  const ranked = rankedBy(t.rows, sort);
  const shown = top > 0 ? ranked.slice(0, top) : ranked;
  if (format === 'json') {
    const rows = shown.map(({ lastNode: _node, lastAddress, ...rest }) => ({ ...rest, address: lastAddress }));
    io.stdout.write(JSON.stringify({ snapshots: t.labels, minBytes: minBytes!, maxDepth, sort, retainersSeen: t.retainersSeen, growing: t.rows.length, rows }, null, 2) + '\n');
    return EXIT_OK;
  }
  if (format === 'csv') {
    io.stdout.write(renderRows('csv', shown, columns(snaps.length, 'csv', sort)));
    return EXIT_OK;
  }
  const n = formatNumber;
  io.stdout.write(`${escapeControl(t.labels.join(' → '))}\n`);
  io.stdout.write(
    `${n(t.rows.length)} of ${plural(t.retainersSeen, 'retainer')} grew (last > first), by ${sort}; retainers = dominators retaining ≥ ${n(minBytes!)} bytes within ${maxDepth} levels of the root, matched across snapshots by their dominator chain (heuristic)\n\n`,
  );
  if (shown.length > 0) io.stdout.write(renderRows('table', shown, columns(snaps.length, 'table', sort)));
  if (shown.length < t.rows.length) io.stdout.write(`(showing ${n(shown.length)} of ${n(t.rows.length)}; --top 0 shows all)\n`);
  return EXIT_OK;
}

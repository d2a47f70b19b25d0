import { generationBreakdown, type GenerationBreakdown } from '../../../shared/analysis/generation-breakdown.js';
import { FROZEN_GENERATION_NAME } from '../../../shared/graph/heap-graph.js';
import { UsageError } from '../args.js';
import { FORMAT_FLAG, formatOf, percentOf } from '../analyzed-snapshot.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { DOMAIN_FLAG, loadSnapshot, selectOf } from '../load.js';
import { formatNumber, renderRows, type Column } from '../output.js';
import { escapeControl } from '../terminal-text.js';
import { plural } from '../../../shared/util/plural.js';

/**
 * `heapscope generations FILE`: objects and bytes per GC generation.
 *
 * Only files with heap segments (PerfView's ClrMD dumps) or generation ranges (EventPipe traces)
 * know generations. For the others (every dotnet-gcdump file) the command says so instead of
 * printing zeros, and still lists the objects large enough for the LOH ("LOH by size").
 * CSV rows: the seven generation rows when known (gen0 … POH, unknown, frozen (non-GC heap): objects
 * on the runtime's frozen segments, outside every GC range), then always the "LOH by size" row;
 * JSON: the whole breakdown object (without the per-type table).
 */
interface GenCliRow {
  generation: string;
  count: number;
  bytes: number;
  percentOfBytes: number | null;
}

const COLUMNS: Column<GenCliRow>[] = [
  { header: 'Generation', key: 'generation', value: (r) => r.generation },
  { header: 'Objects', key: 'count', value: (r) => r.count, numeric: true },
  { header: 'Bytes', key: 'bytes', value: (r) => r.bytes, numeric: true },
  { header: '% bytes', key: 'percentOfBytes', value: (r) => r.percentOfBytes, numeric: true, text: (r) => (r.percentOfBytes === null ? '' : r.percentOfBytes.toFixed(2)) },
];

export const LOH_BY_SIZE_LABEL = 'LOH by size';

const FROZEN_NOTE = `"${FROZEN_GENERATION_NAME}": objects outside every GC segment, on the runtime's frozen segments (string literals, RuntimeType objects); the GC never collects them\n`;

function rowsOf(b: GenerationBreakdown): GenCliRow[] {
  const rows: GenCliRow[] = (b.generations ?? []).map((r) => ({ generation: r.name, count: r.count, bytes: r.bytes, percentOfBytes: percentOf(r.bytes, b.objectBytes) }));
  rows.push({ generation: LOH_BY_SIZE_LABEL, count: b.largeBySize.count, bytes: b.largeBySize.bytes, percentOfBytes: percentOf(b.largeBySize.bytes, b.objectBytes) });
  return rows;
}

export const generationsCommand: CliCommand = {
  name: 'generations',
  summary: 'Objects and bytes per GC generation (gen0, gen1, gen2, LOH, POH, unknown, frozen (non-GC heap)), or a note when the file has no generation data.',
  usage: 'heapscope generations FILE [--domain NAME|INDEX] [--format table|csv|json]',
  flags: { domain: DOMAIN_FLAG, format: FORMAT_FLAG },
  async run(args, io) {
    if (args.positionals.length !== 1) throw new UsageError('generations takes exactly one FILE');
    const format = formatOf(args);
    const s = await loadSnapshot(args.positionals[0], io.stderr, selectOf(args));
    const b = generationBreakdown(s.graph);
    if (format === 'json') {
      const { typeCount: _c, typeBytes: _b, ...rest } = b;
      io.stdout.write(JSON.stringify({ file: s.name, ...rest }, null, 2) + '\n');
      return EXIT_OK;
    }
    const rows = rowsOf(b);
    if (format === 'csv') {
      if (b.message) io.stderr.write(`note: ${escapeControl(b.message)}\n`);
      io.stdout.write(renderRows('csv', rows, COLUMNS));
      return EXIT_OK;
    }
    const n = formatNumber;
    io.stdout.write(`${escapeControl(s.name)}: ${plural(b.objectCount, 'object')}, ${plural(b.objectBytes, 'byte')}\n`);
    if (b.message) io.stdout.write(`${escapeControl(b.message)}\n`);
    io.stdout.write('\n');
    io.stdout.write(renderRows('table', rows, COLUMNS));
    io.stdout.write(`\n"${LOH_BY_SIZE_LABEL}": objects of at least ${n(b.largeBySize.threshold)} bytes, which the runtime allocates in the large-object heap\n`);
    if (b.generations?.some((r) => r.name === FROZEN_GENERATION_NAME && r.count > 0)) io.stdout.write(FROZEN_NOTE);
    return EXIT_OK;
  },
};

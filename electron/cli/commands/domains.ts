import { AppError } from '../../../shared/errors.js';
import { elapsedMs, listCfHeapLogSections, type CfHeapLogSection } from '../../../shared/formats/cf-heaplog/cf-heaplog-reader.js';
import { sniffFormat } from '../../../shared/formats/read-snapshot.js';
import { UsageError } from '../args.js';
import { FORMAT_FLAG, formatOf } from '../analyzed-snapshot.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { FileByteSource } from '../../files/file-byte-source.js';
import { ttyProgress } from '../load.js';
import { renderRows, type Column } from '../output.js';

/**
 * `heapscope domains FILE`: the AppDomain sections of a Compact Framework heap log.
 *
 * A log saved by the Remote Performance Monitor can hold one section per AppDomain (`a … c`);
 * each is a snapshot of its own, opened by the other commands with `--domain NAME|INDEX`. This
 * is one cheap pass over the file (no graph is built). Timestamps are milliseconds since the
 * device booted; durations allow for the 32-bit tick counter wrapping. JSON rows use the field
 * names of the table's `key`s; unnamed sections (records before any `a`) have name null.
 */
interface DomainRow extends CfHeapLogSection {
  durationMs: number | null;
}

const COLUMNS: Column<DomainRow>[] = [
  { header: 'Index', key: 'index', value: (r) => r.index, numeric: true },
  { header: 'AppDomain', key: 'name', value: (r) => r.name, text: (r) => r.name ?? '(unnamed)' },
  { header: 'Objects', key: 'objects', value: (r) => r.objects, numeric: true },
  { header: 'Start ms', key: 'startMs', value: (r) => r.startMs, numeric: true, text: (r) => (r.startMs === null ? '' : String(r.startMs)) },
  { header: 'End ms', key: 'endMs', value: (r) => r.endMs, numeric: true, text: (r) => (r.endMs === null ? '' : String(r.endMs)) },
  { header: 'Duration ms', key: 'durationMs', value: (r) => r.durationMs, numeric: true },
];

export const domainsCommand: CliCommand = {
  name: 'domains',
  summary: 'List the AppDomain sections of a Compact Framework heap log (open one with --domain NAME|INDEX).',
  usage: 'heapscope domains FILE [--format table|csv|json]',
  flags: { format: FORMAT_FLAG },
  async run(args, io) {
    if (args.positionals.length !== 1) throw new UsageError('domains takes exactly one FILE');
    const format = formatOf(args);
    const source = await FileByteSource.open(args.positionals[0]);
    const line = ttyProgress(io.stderr, source.name);
    let sections: CfHeapLogSection[];
    try {
      const kind = await sniffFormat(source);
      if (kind !== 'cf-heaplog') {
        throw new AppError('usage/bad-argument', `${source.name} is ${kind === 'unknown' ? 'not a snapshot' : `a ${kind} file`}; only Compact Framework heap logs have AppDomain sections`);
      }
      sections = await listCfHeapLogSections(source, { progress: line.sink });
    } finally {
      line.clear();
      await source.close();
    }
    const rows: DomainRow[] = sections.map((s) => ({
      ...s,
      durationMs: s.startMs !== null && s.endMs !== null ? elapsedMs(s.startMs, s.endMs) : null,
    }));
    if (format === 'json') {
      io.stdout.write(JSON.stringify({ file: source.name, sections: rows }, null, 2) + '\n');
    } else {
      io.stdout.write(renderRows(format, rows, COLUMNS));
    }
    return EXIT_OK;
  },
};

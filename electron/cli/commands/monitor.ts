import { monitorGcs } from '../../diagnostics/gc-monitor.js';
import { CancellationSource } from '../../../shared/util/cancellation.js';
import { csvRow } from '../../../shared/util/csv.js';
import { flag, intFlag, pidFlag } from '../args.js';
import type { CliCommand } from '../command.js';
import { formatNumber, OUTPUT_FORMATS, type Column, type OutputFormat } from '../output.js';
import type { GcRow } from '../../../shared/analysis/gc-timeline.js';
import { GC_COLUMNS, summaryText } from './gc-timeline.js';

/** Streaming rows can't be measured in advance: fixed widths, wide enough for real values. */
const WIDTHS = [6, 4, 13, 18, 11, 11, 13, 12, 12, 13, 12, 11, 13, 10];

function cellText(c: Column<GcRow>, r: GcRow): string {
  if (c.text) return c.text(r);
  const v = c.value(r);
  return typeof v === 'number' ? formatNumber(v) : v === null || v === undefined ? '' : String(v);
}

function streamLine(cells: string[]): string {
  return cells
    .map((s, i) => (i <= 1 || i >= 4 ? s.padStart(WIDTHS[i] ?? 10) : s.padEnd(WIDTHS[i] ?? 10)))
    .join('  ')
    .trimEnd();
}

/**
 * `heapscope monitor -p PID`: a live GC timeline, one row per GC as it happens, until Ctrl-C
 * (or --duration seconds). Table rows are aligned per row; csv streams RFC 4180 rows; json
 * streams one JSON object per line (NDJSON) with the gc-timeline keys, then a summary line.
 */
export const monitorCommand: CliCommand = {
  name: 'monitor',
  summary: 'Stream a live GC timeline of a running .NET process, one row per GC, until Ctrl-C.',
  usage: 'heapscope monitor -p PID [--duration S] [--format table|csv|json]',
  flags: {
    'process-id': { value: true, short: 'p' },
    duration: { value: true },
    format: { value: true, choices: OUTPUT_FORMATS },
  },
  async run(args, io) {
    const pid = pidFlag(args, 'monitor');
    const format = (flag(args, 'format') ?? 'table') as OutputFormat;
    const duration = intFlag(args, 'duration', 0);
    const cancel = new CancellationSource();
    const onSigint = () => cancel.cancel();
    process.once('SIGINT', onSigint);
    let header = false;
    try {
      const t = await monitorGcs({
        pid,
        token: cancel.token,
        durationSec: duration || undefined,
        onStarted: () => {
          if (format === 'table') io.stderr.write(`monitoring GCs of process ${pid} (Ctrl-C to stop)\n`);
          if (format === 'csv') io.stdout.write(csvRow(GC_COLUMNS.map((c) => c.key)));
        },
        onRow: (r) => {
          if (format === 'json') {
            const o: Record<string, unknown> = {};
            for (const c of GC_COLUMNS) o[c.key] = c.value(r) ?? null;
            io.stdout.write(JSON.stringify(o) + '\n');
          } else if (format === 'csv') {
            io.stdout.write(csvRow(GC_COLUMNS.map((c) => c.value(r))));
          } else {
            if (!header) io.stdout.write(streamLine(GC_COLUMNS.map((c) => c.header)) + '\n');
            header = true;
            io.stdout.write(streamLine(GC_COLUMNS.map((c) => cellText(c, r))) + '\n');
          }
        },
      });
      if (format === 'json') io.stdout.write(JSON.stringify({ summary: t.summary }) + '\n');
      else if (format === 'table') io.stdout.write(`\n${summaryText(t.summary)}\n`);
      return 0;
    } finally {
      process.removeListener('SIGINT', onSigint);
    }
  },
};

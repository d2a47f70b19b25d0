import { readGcTimeline, type GcRow, type GcTimelineSummary } from '../../../shared/analysis/gc-timeline.js';
import { FormatError } from '../../../shared/errors.js';
import { sniffFormat } from '../../../shared/formats/read-snapshot.js';
import { FileByteSource } from '../../files/file-byte-source.js';
import { UsageError } from '../args.js';
import { FORMAT_FLAG, formatOf } from '../analyzed-snapshot.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { ttyProgress } from '../load.js';
import { formatNumber, renderRows, type Column } from '../output.js';
import { escapeControl } from '../terminal-text.js';
import { plural } from '../../../shared/util/plural.js';

/**
 * `heapscope gc-timeline FILE`: one row per garbage collection in an EventPipe trace (.nettrace /
 * .netperf), with pause times, generation sizes after each GC, and a summary.
 *
 * Works on any trace with the runtime's GC events (keyword GC, level Informational), with or
 * without a heap snapshot. CSV: the rows; JSON: `{ file, summary, gcs }` with the CSV keys.
 * A GC's pause is the Σ of the runtime suspensions attributed to it, each suspension to one GC
 * (shared/analysis/gc-timeline.ts), so the pause total never exceeds the suspended time.
 */
const ms = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);
const size = (r: GcRow, g: number) => (r.sizesAfter ? r.sizesAfter[g] : null);

export const GC_COLUMNS: Column<GcRow>[] = [
  { header: 'GC', key: 'number', value: (r) => r.number, numeric: true, text: (r) => String(r.number) },
  { header: 'Gen', key: 'generation', value: (r) => r.generation, numeric: true },
  { header: 'Type', key: 'type', value: (r) => r.type },
  { header: 'Reason', key: 'reason', value: (r) => r.reason },
  { header: 'Start (ms)', key: 'startMs', value: (r) => ms(r.startMs), numeric: true, text: (r) => r.startMs.toFixed(3) },
  { header: 'Pause (ms)', key: 'pauseMs', value: (r) => ms(r.pauseMs), numeric: true, text: (r) => (r.pauseMs === null ? '' : r.pauseMs.toFixed(3)) },
  { header: 'Duration (ms)', key: 'durationMs', value: (r) => ms(r.durationMs), numeric: true, text: (r) => (r.durationMs === null ? '' : r.durationMs.toFixed(3)) },
  { header: 'Gen0 after', key: 'gen0After', value: (r) => size(r, 0), numeric: true },
  { header: 'Gen1 after', key: 'gen1After', value: (r) => size(r, 1), numeric: true },
  { header: 'Gen2 after', key: 'gen2After', value: (r) => size(r, 2), numeric: true },
  { header: 'LOH after', key: 'lohAfter', value: (r) => size(r, 3), numeric: true },
  { header: 'POH after', key: 'pohAfter', value: (r) => size(r, 4), numeric: true },
  { header: 'Promoted', key: 'promotedBytes', value: (r) => r.promotedBytes, numeric: true },
  { header: 'Mode', key: 'mode', value: (r) => r.mode },
];

export function summaryText(s: GcTimelineSummary): string {
  const n = formatNumber;
  const f = (x: number) => n(Math.round(x * 100) / 100);
  return [
    `${plural(s.gcCount, 'GC')} (gen0 ${n(s.byGeneration[0])}, gen1 ${n(s.byGeneration[1])}, gen2 ${n(s.byGeneration[2])}; ` +
      `background ${n(s.byType.Background)}, foreground ${n(s.byType.Foreground)}; induced ${n(s.induced)}) in ${f(s.traceDurationMs)} ms of trace`,
    `pauses: ${n(s.pause.count)} totalling ${f(s.pause.totalMs)} ms (${f(s.pausedPercent)}% of the trace); ` +
      `p50 ${f(s.pause.p50)} ms, p90 ${f(s.pause.p90)} ms, p99 ${f(s.pause.p99)} ms, max ${f(s.pause.max)} ms`,
    // each suspension counts for one GC or as "other", so the pauses plus "other" are this total
    `runtime suspended ${plural(s.suspensions.count, 'time')} for ${f(s.suspensions.totalMs)} ms ` +
      `(${n(s.otherSuspensions.count)} of them, ${f(s.otherSuspensions.totalMs)} ms, not for a GC)`,
  ].join('\n');
}

export const gcTimelineCommand: CliCommand = {
  name: 'gc-timeline',
  summary: 'Every garbage collection in a .nettrace trace: generation, type, reason, pause, sizes after, plus pause percentiles.',
  usage: 'heapscope gc-timeline FILE [--format table|csv|json]',
  flags: { format: FORMAT_FLAG },
  async run(args, io) {
    if (args.positionals.length !== 1) throw new UsageError('gc-timeline takes exactly one FILE');
    const format = formatOf(args);
    const source = await FileByteSource.open(args.positionals[0]);
    const line = ttyProgress(io.stderr, source.name);
    let t: Awaited<ReturnType<typeof readGcTimeline>>;
    try {
      const kind = await sniffFormat(source);
      if (kind !== 'nettrace') {
        throw new FormatError('format/unknown', `${source.name} is ${kind === 'unknown' ? 'not a known format' : `a ${kind} file`}; gc-timeline reads EventPipe traces (.nettrace, .netperf)`);
      }
      t = await readGcTimeline(source, { progress: line.sink });
    } finally {
      line.clear();
      await source.close();
    }
    if (t.trace.truncated) io.stderr.write(`note: ${escapeControl(source.name)} ends without its end-of-stream marker (cut off); GCs after the cut are missing\n`);
    if (t.trace.droppedEvents > 0) io.stderr.write(`note: the runtime dropped ${plural(t.trace.droppedEvents, 'event')}; some GCs may be incomplete\n`);
    if (format === 'json') {
      const gcs = JSON.parse(renderRows('json', t.gcs, GC_COLUMNS)) as unknown[];
      io.stdout.write(JSON.stringify({ file: source.name, summary: t.summary, gcs }, null, 2) + '\n');
      return EXIT_OK;
    }
    if (format === 'csv') {
      io.stdout.write(renderRows('csv', t.gcs, GC_COLUMNS));
      return EXIT_OK;
    }
    io.stdout.write(`${escapeControl(source.name)}\n${summaryText(t.summary)}\n\n`);
    if (t.gcs.length === 0) io.stdout.write('no GC events in this trace (collect with the GC keyword, e.g. dotnet-trace --profile gc-collect)\n');
    else io.stdout.write(renderRows('table', t.gcs, GC_COLUMNS));
    return EXIT_OK;
  },
};

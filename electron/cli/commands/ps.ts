import { listDotnetProcesses } from '../../diagnostics/endpoints.js';
import { queryProcessInfo } from '../../diagnostics/process-info.js';
import { OUTPUT_FORMATS, renderRows, type Column, type OutputFormat } from '../output.js';
import { flag } from '../args.js';
import type { CliCommand } from '../command.js';

interface PsRow {
  pid: number;
  name: string | null;
  runtime: string | null;
  commandLine: string | null;
}

const COLUMNS: Column<PsRow>[] = [
  { header: 'PID', key: 'pid', value: (r) => r.pid, numeric: true, text: (r) => String(r.pid) },
  { header: 'NAME', key: 'name', value: (r) => r.name },
  { header: 'RUNTIME', key: 'runtime', value: (r) => r.runtime },
  { header: 'COMMAND LINE', key: 'commandLine', value: (r) => r.commandLine },
];

/** `heapscope ps`: .NET processes this user can attach to (their diagnostic endpoints). */
export const psCommand: CliCommand = {
  name: 'ps',
  summary: 'List running .NET processes that can be captured: pid, name, runtime version, command line.',
  usage: 'heapscope ps [--format table|csv|json]',
  flags: { format: { value: true, choices: OUTPUT_FORMATS } },
  async run(args, io) {
    const format = (flag(args, 'format') ?? 'table') as OutputFormat;
    const procs = await listDotnetProcesses();
    const rows: PsRow[] = [];
    for (const p of procs) {
      let runtime: string | null = null;
      let commandLine = p.commandLine;
      let name = p.name;
      try {
        const info = await queryProcessInfo(p.endpoint, 2_000);
        runtime = info.clrVersion;
        commandLine = info.commandLine ?? commandLine;
        name = info.entrypointAssembly ?? name;
      } catch {
        /* a process that does not answer is still listed, without runtime details */
      }
      rows.push({ pid: p.pid, name, runtime, commandLine });
    }
    if (rows.length === 0 && format === 'table') {
      io.stdout.write('no .NET processes found\n');
      return 0;
    }
    io.stdout.write(renderRows(format, rows, COLUMNS));
    return 0;
  },
};

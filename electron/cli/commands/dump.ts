import { resolve } from 'node:path';
import { defaultProcessDumpName, processNameFor, writeProcessDump, type DumpKind } from '../../diagnostics/dump-writer.js';
import { endpointFor } from '../../diagnostics/process-info.js';
import { flag, intFlag, pidFlag, UsageError } from '../args.js';
import type { CliCommand } from '../command.js';
import { formatNumber } from '../output.js';

/**
 * `heapscope dump -p PID`: a full process dump (ELF core on Linux) written by the target's own
 * runtime over the diagnostics IPC — no dotnet-dump needed. Heapscope reads the file back with its
 * dump helper (electron/dump-reader); the output names the command that opens it.
 */
export const dumpCommand: CliCommand = {
  name: 'dump',
  summary: 'Have a running .NET process write a core dump of itself (no .NET tools needed).',
  usage: 'heapscope dump -p PID [-o FILE] [--type heap|full] [--timeout S] [--format text|json]',
  details: [
    '--type heap (default) asks for a WithHeap dump: every thread, module and the whole managed heap —',
    'what memory analysis needs; --type full adds every mapped page (much larger).',
    'The runtime writes the file itself, so the path (default <process>_<pid>_<yyyymmdd_hhmmss>.dmp in the',
    'current directory) is made absolute and must be writable by the target process\'s user; an existing',
    'file is never overwritten. --timeout (default 120 s) bounds the wait for the runtime\'s answer.',
    'JSON output: {path, bytes, type, pid, ms} — bytes is the file size, ms the time from request to answer.',
    'Every command that takes a snapshot reads the dump (heapscope report FILE, the app\'s Open); that needs',
    'the dump reader built once with npm run build:dump-reader (else error dump/helper-missing).',
  ].join('\n'),
  flags: {
    'process-id': { value: true, short: 'p' },
    output: { value: true, short: 'o' },
    type: { value: true, choices: ['heap', 'full'] },
    timeout: { value: true },
    format: { value: true, choices: ['text', 'json'] },
  },
  async run(args, io) {
    const pid = pidFlag(args, 'dump');
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${args.positionals[0]}`);
    const timeoutSec = intFlag(args, 'timeout', 120);
    if (timeoutSec <= 0) throw new UsageError('--timeout must be at least 1 second');
    const kind = (flag(args, 'type') ?? 'heap') as DumpKind;
    const json = flag(args, 'format') === 'json';
    await endpointFor(pid); // a missing or non-.NET process fails before anything is named after it
    const out = resolve(flag(args, 'output') ?? defaultProcessDumpName(await processNameFor(pid), pid));

    const r = await writeProcessDump({ pid, path: out, kind, timeoutSec });
    if (json) {
      io.stdout.write(JSON.stringify({ path: r.path, bytes: r.bytes, type: r.kind, pid: r.pid, ms: r.ms }, null, 2) + '\n');
    } else {
      io.stdout.write(
        `wrote ${r.path}: ${formatNumber(r.bytes)} bytes, ${kind === 'heap' ? 'WithHeap' : 'Full'} dump of process ${pid} (${(r.ms / 1000).toFixed(1)} s)\n` +
          `open it with: heapscope report ${shellWord(r.path)}\n`,
      );
    }
    return 0;
  },
};

/** The path as one shell word, so the printed command can be pasted as is. */
export function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

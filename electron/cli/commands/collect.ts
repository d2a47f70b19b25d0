import { createWriteStream } from 'node:fs';
import { collectHeapSnapshot } from '../../diagnostics/heap-collector.js';
import { writeGcdumpFile } from '../../files/write-gcdump-file.js';
import { CancellationSource } from '../../../shared/util/cancellation.js';
import { flag, intFlag, pidFlag, UsageError } from '../args.js';
import type { CliCommand } from '../command.js';
import { formatNumber } from '../output.js';
import { plural } from '../../../shared/util/plural.js';

/** dotnet-gcdump's default name: YYYYMMDD_HHMMSS_<pid>.gcdump (local time). */
export function defaultDumpName(pid: number, now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}_${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}_${pid}.gcdump`;
}

/**
 * `heapscope collect -p PID`: capture a heap snapshot from a live .NET process and write a
 * .gcdump (with generation data, which dotnet-gcdump drops). No .NET tool is needed.
 */
export const collectCommand: CliCommand = {
  name: 'collect',
  summary: 'Capture a heap snapshot from a running .NET process into a .gcdump (with generations; no .NET tools needed).',
  usage: 'heapscope collect -p PID [-o FILE] [--timeout S] [--trace-out FILE.nettrace]',
  flags: {
    'process-id': { value: true, short: 'p' },
    output: { value: true, short: 'o' },
    timeout: { value: true },
    'trace-out': { value: true },
  },
  async run(args, io) {
    const pid = pidFlag(args, 'collect');
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${args.positionals[0]}`);
    const timeoutSec = intFlag(args, 'timeout', 30);
    if (timeoutSec <= 0) throw new UsageError('--timeout must be at least 1 second');
    let out = flag(args, 'output') ?? defaultDumpName(pid);
    if (!out.toLowerCase().endsWith('.gcdump')) out += '.gcdump';

    const cancel = new CancellationSource();
    const onSigint = () => cancel.cancel('capture cancelled (Ctrl-C)');
    process.once('SIGINT', onSigint);
    const traceOut = flag(args, 'trace-out');
    const trace = traceOut ? createWriteStream(traceOut) : null;
    const tty = (io.stderr as { isTTY?: boolean }).isTTY === true;
    try {
      const result = await collectHeapSnapshot({
        pid,
        timeoutSec,
        token: cancel.token,
        onChunk: trace ? (c) => trace.write(c) : undefined,
        onPhase: tty ? (phase, bytes) => io.stderr.write(`\r\x1b[K${phase} (${formatNumber(bytes)} bytes of trace)`) : undefined,
      });
      if (tty) io.stderr.write('\r\x1b[K');
      const written = await writeGcdumpFile(out, result.graph);
      const g = result.graph;
      io.stdout.write(
        `wrote ${out}: ${plural(g.nodeCount, 'node')}, ${plural(g.edgeCount, 'reference')}, ${plural(g.totalSize, 'byte')} of heap` +
          ` (${formatNumber(written)} bytes on disk, ${(result.elapsedMs / 1000).toFixed(1)} s, ${result.command})\n`,
      );
      return 0;
    } finally {
      process.removeListener('SIGINT', onSigint);
      if (trace) await new Promise<void>((r) => trace.end(() => r()));
    }
  },
};

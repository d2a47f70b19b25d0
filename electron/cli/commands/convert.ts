import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writeGcdump } from '../../../shared/formats/gcdump/gcdump-writer.js';
import { readNetTraceSnapshot } from '../../../shared/formats/nettrace/read-nettrace-snapshot.js';
import { readSnapshot, sniffFormat } from '../../../shared/formats/read-snapshot.js';
import type { HeapGraph } from '../../../shared/graph/heap-graph.js';
import { FileByteSource, mapFsError } from '../../files/file-byte-source.js';
import { memoryBudget } from '../../files/memory-budget.js';
import { flag, UsageError } from '../args.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { cliStretchReader, DOMAIN_FLAG, selectOf, ttyProgress } from '../load.js';
import { formatNumber } from '../output.js';
import { escapeControl } from '../terminal-text.js';
import { plural } from '../../../shared/util/plural.js';

/**
 * `heapscope convert INPUT -o OUT.gcdump`: any snapshot Heapscope reads, as a .gcdump that
 * PerfView, Visual Studio and dotnet-gcdump open.
 *
 * For a trace, the heap dump is rebuilt with dotnet-gcdump's rules (weak-handle roots dropped, as
 * dotnet-gcdump does: other tools would read a weak category as strong roots), except that a
 * dependent handle is written as an ordinary key → value reference (the reader's default), so the
 * file gives the trace's dominators in Heapscope and in PerfView alike; `--select N` picks the N-th heap dump
 * (0-based) of a trace or the AppDomain of a Compact Framework heap log. Heap segments are kept
 * (DotNetHeapInfo), so generations survive the conversion.
 */
export const convertCommand: CliCommand = {
  name: 'convert',
  summary: 'Convert any snapshot (.nettrace heap dump, CF heap log, .gcdump) to a .gcdump file.',
  usage: 'heapscope convert INPUT -o OUT.gcdump [--select N|NAME] [--domain NAME|INDEX]',
  flags: { output: { value: true, short: 'o' }, select: { value: true }, domain: DOMAIN_FLAG },
  async run(args, io) {
    if (args.positionals.length !== 1) throw new UsageError('convert takes exactly one INPUT file');
    const out = flag(args, 'output');
    if (!out) throw new UsageError('convert needs -o OUT.gcdump');
    const input = args.positionals[0];
    if (resolve(out) === resolve(input)) throw new UsageError('the output file must differ from the input file');
    // --domain is the CF heap log name for --select (an AppDomain name or section index).
    const select = flag(args, 'select') ?? selectOf(args).select;
    const source = await FileByteSource.open(input);
    const line = ttyProgress(io.stderr, source.name);
    let graph: HeapGraph;
    try {
      const kind = await sniffFormat(source);
      graph =
        kind === 'nettrace'
          ? await readNetTraceSnapshot(source, { select, weakRoots: 'drop', progress: line.sink, memoryBudget: () => memoryBudget() })
          : await readSnapshot(source, { select, progress: line.sink, stretchReader: cliStretchReader(input), memoryBudget: () => memoryBudget() });
    } finally {
      line.clear();
      await source.close();
    }
    const chunks = writeGcdump(graph, { creationTool: 'heapscope' });
    let bytes = 0;
    try {
      const fh = await open(out, 'w');
      try {
        for (const c of chunks) {
          await fh.write(c);
          bytes += c.length;
        }
      } finally {
        await fh.close();
      }
    } catch (e) {
      throw mapFsError(e, out);
    }
    const n = formatNumber;
    io.stdout.write(`${escapeControl(out)}: ${plural(graph.nodeCount, 'node')}, ${plural(graph.edgeCount, 'reference')}, ${plural(graph.types.count, 'type')}, ${plural(bytes, 'byte')}\n`);
    if (graph.problems.total > 0) io.stderr.write(`note: ${n(graph.problems.total)} data problem${graph.problems.total === 1 ? '' : 's'} while reading ${escapeControl(source.name)} (see heapscope info)\n`);
    return EXIT_OK;
  },
};

import '../../shared/formats/all-readers.js';
import { AppError, toErrorDto } from '../../shared/errors.js';
import { parseArgs, UsageError } from './args.js';
import { EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_USAGE, type CliIo } from './command.js';
import { COMMANDS } from './commands/index.js';

/**
 * `heapscope` command-line entry: dispatches to a command and maps errors to exit codes.
 *
 * 0 success · 1 internal error · 2 bad usage · 3 unreadable input (one coded line on stderr,
 * e.g. `error format/truncated: ...`) · 4 a --fail-if-* threshold was exceeded.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(helpText());
    return name ? 0 : EXIT_USAGE;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write('heapscope 0.1.0\n');
    return 0;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    io.stderr.write(`error usage/bad-argument: unknown command "${name}" (see heapscope --help)\n`);
    return EXIT_USAGE;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`usage: ${cmd.usage}\n\n${cmd.summary}\n${cmd.details ? `\n${cmd.details}\n` : ''}`);
    return 0;
  }
  try {
    const args = parseArgs(rest, cmd.flags);
    return await cmd.run(args, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`error ${e.code}: ${e.message}\nusage: ${cmd.usage}\n`);
      return EXIT_USAGE;
    }
    const dto = toErrorDto(e);
    const where = dto.detail?.offset !== undefined && !/offset/.test(dto.message) ? ` at offset ${dto.detail.offset}` : '';
    io.stderr.write(`error ${dto.code}: ${dto.message}${where}\n`);
    if (e instanceof AppError && dto.code !== 'bug') return EXIT_BAD_INPUT;
    if (dto.code === 'worker/out-of-memory') return EXIT_BAD_INPUT;
    if (process.env.HEAPSCOPE_DEBUG && e instanceof Error) io.stderr.write(`${e.stack}\n`);
    return EXIT_INTERNAL;
  }
}

function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length), 4);
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'heapscope: .NET memory analysis (.gcdump, .nettrace, Compact Framework heap logs)',
    '',
    'usage: heapscope <command> [options]   (heapscope <command> --help for details)',
    '',
    'commands:',
    ...lines,
    '',
    'exit codes: 0 ok, 1 internal error, 2 bad usage, 3 unreadable input, 4 threshold exceeded',
    '',
  ].join('\n');
}

const isMain = import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/cli/main.ts');
if (isMain) {
  const io: CliIo = { stdout: process.stdout, stderr: process.stderr };
  runCli(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`error bug: ${String(e)}\n`);
      process.exitCode = EXIT_INTERNAL;
    },
  );
}

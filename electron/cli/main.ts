import '../../shared/formats/all-readers.js';
import '../dump-reader/register-dump-reader.js';
import { AppError, toErrorDto, type AppErrorDto } from '../../shared/errors.js';
import { parseArgs, UsageError } from './args.js';
import { watchClosedPipes } from './closed-pipe.js';
import { EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_USAGE, type CliIo } from './command.js';
import { COMMANDS } from './commands/index.js';
import { escapeControl } from './terminal-text.js';

/**
 * `heapscope` command-line entry: dispatches to a command and maps errors to exit codes.
 *
 * 0 success (also: the reader closed stdout early, closed-pipe.ts) · 1 internal error or output
 * not writable · 2 bad usage · 3 unreadable input (one coded line on stderr, e.g.
 * `error format/truncated: ...`) · 4 a --fail-if-* threshold was exceeded.
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
    io.stderr.write(`error usage/bad-argument: unknown command "${escapeControl(name)}" (see heapscope --help)\n`);
    return EXIT_USAGE;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`usage: ${cmd.usage}\n\n${cmd.summary}\n${cmd.details ? `\n${cmd.details}\n` : ''}`);
    return 0;
  }
  watchClosedPipes(io.stdout, io.stderr);
  try {
    const args = parseArgs(rest, cmd.flags);
    return await cmd.run(args, io);
  } catch (e) {
    // Messages quote file names, type names and arguments: escaped, so each error is one line
    // (a crafted name cannot forge a second "error ..." line or send terminal escapes).
    if (e instanceof UsageError) {
      const listing = e.lines.map((l) => `${escapeControl(l)}\n`).join('');
      io.stderr.write(`error ${e.code}: ${escapeControl(e.headline)}\n${listing}usage: ${cmd.usage}\n`);
      return EXIT_USAGE;
    }
    const dto = tooLongForOneString(e) ?? toErrorDto(e);
    const where = dto.detail?.offset !== undefined && !/offset/.test(dto.message) ? ` at offset ${dto.detail.offset}` : '';
    io.stderr.write(`error ${dto.code}: ${escapeControl(dto.message)}${where}\n`);
    if (e instanceof AppError && dto.code !== 'bug') return EXIT_BAD_INPUT;
    if (dto.code === 'worker/out-of-memory') return EXIT_BAD_INPUT;
    if (process.env.HEAPSCOPE_DEBUG && e instanceof Error) io.stderr.write(`${e.stack}\n`);
    return EXIT_INTERNAL;
  }
}

/**
 * V8 caps one string near 2^29 characters. Outputs that are still built whole (a JSON document
 * of a multi-million-step path, a report of millions of types) can pass it; that is a limit of
 * the input's size, not a bug: one coded line and exit 3, like running out of memory.
 */
function tooLongForOneString(e: unknown): AppErrorDto | null {
  if (!(e instanceof RangeError) || !/Invalid string length/i.test(e.message)) return null;
  return { code: 'worker/out-of-memory', message: 'the output is too large to build as one string; try --format csv or a smaller --top / --depth' };
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
    'exit codes: 0 ok (also when the reader closes the pipe early), 1 internal error or output not writable,',
    '            2 bad usage, 3 unreadable input (or not a regular file), 4 threshold exceeded',
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
      process.stderr.write(`error bug: ${escapeControl(String(e))}\n`);
      process.exitCode = EXIT_INTERNAL;
    },
  );
}
